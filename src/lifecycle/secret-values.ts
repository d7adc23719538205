/**
 * Redaction by value: secrets written *inside* strings (a URL's token query, a shell command's
 * `Authorization: Bearer …` or `export TOKEN=…`, a form body, JSON text, a PEM block, a JWT, a
 * token with a well-known prefix) are replaced in place, the text around them kept. Beside
 * credentials.ts, which redacts by member name; boundInput applies both, so observers' inputs,
 * `code_execution`'s `code`, span content capture and approval forms all get it.
 *
 * The rules are hand-written after the shapes secretlint's recommended preset and gitleaks
 * detect (no dependency: their engines are async/file-oriented and too slow for a per-call
 * hot path). A string without any rule's trigger is passed by one pre-check regex.
 */

/** What replaces a secret found inside a string. */
export const REDACTED_VALUE = '[redacted]';

/** Names that, in `NAME=value` or `"name": "value"`, mark the value as a secret. */
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth|session[_-]?id|sessid|jwt|bearer|signature|sig)[A-Za-z0-9_-]*`;

interface Rule {
  pattern: RegExp;
  replace: string | ((...groups: string[]) => string);
}

const RULES: readonly Rule[] = [
  // PEM private keys, whole block.
  { pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g, replace: REDACTED_VALUE },
  // HTTP authorization schemes: Bearer/Basic/Token credentials.
  { pattern: /\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+\/=-]{8,}/gi, replace: (_m, scheme, space) => `${scheme}${space}${REDACTED_VALUE}` },
  // user:password@ in a URL.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@\/?#]*:)[^\s@\/?#]+@/gi, replace: (_m, head) => `${head}${REDACTED_VALUE}@` },
  // JSON text inside a string: "client_secret": "…".
  { pattern: new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'), replace: (_m, head) => `${head}"${REDACTED_VALUE}"` },
  // NAME=value: shell assignments, query parameters, form bodies, config lines.
  { pattern: new RegExp(String.raw`(^|[\s?&;,'"(]|\b)(${SECRET_NAME})(\s*=\s*)("[^"]*"|'[^']*'|[^\s&;,'"#)]+)`, 'gi'), replace: (_m, lead, name, eq) => `${lead}${name}${eq}${REDACTED_VALUE}` },
  // JWTs.
  { pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, replace: REDACTED_VALUE },
  // Well-known token prefixes (GitHub, GitLab, Slack, AWS, Google, OpenAI/Anthropic, Stripe, npm, PyPI).
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{40,})/g, replace: REDACTED_VALUE },
];

// A superset of every rule's trigger: a string it misses holds nothing a rule would change.
const TRIGGERS = String.raw`-----BEGIN|bearer|basic|token|digest|:\/\/[^\s\/]*@|=|eyJ|gh[pousr]_|github_pat_|glpat-|xox|AKIA|ASIA|AIza|sk-|[sr]k_|npm_|pypi-`;
const MAY_HOLD = new RegExp(String.raw`${TRIGGERS}|":`, 'i');
// The same over serialized JSON, where a quote inside a string is escaped: `\":` is JSON text
// inside a string, while every member name ends in a bare `":`.
const MAY_HOLD_JSON = new RegExp(String.raw`${TRIGGERS}|\\":`, 'i');

/** Strings shorter than this hold no secret worth the scan (the shortest trigger plus a value). */
const MIN_CHARS = 8;

/** `text` with every secret found inside it replaced; the same string when none is. */
export function redactSecretsInText(text: string): string {
  if (text.length < MIN_CHARS || !MAY_HOLD.test(text)) return text;
  let out = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: any[]) => string);
  }
  return out;
}

/** Cheap test on serialized JSON: false means no string in it can hold a secret by value. */
export function mayHoldSecretValue(json: string): boolean {
  return MAY_HOLD_JSON.test(json);
}
