/**
 * The rule data of value redaction (applied by secret-values.ts): what a secret written inside
 * a string looks like. Derived from the rules of secretlint's recommended preset
 * (`@secretlint/secretlint-rule-preset-recommend` 13.x: AWS, GCP, private keys, npm, basic auth,
 * Slack, SendGrid, Shopify, Stripe, GitHub, GitLab, Grafana, OpenAI, Anthropic, Groq, Hugging
 * Face, Linear, Notion, 1Password, database connection strings, HashiCorp Vault, Vercel,
 * Databricks, Docker, Figma, Cloudflare, Tailscale) — the token formats those rules document,
 * written here as synchronous patterns — plus the spellings of issues 19 and 42 (`NAME=value`,
 * URL-encoded forms, Python-repr and YAML names, header pairs, JWTs with any header spacing).
 *
 * Why derived rather than depended on at run time: the preset ships as one 230 kB bundle whose
 * engine is asynchronous and file-oriented (a `lintSource` call per text, ~100× the cost of
 * this whole path per value: bench/redaction-rules.ts) and it only finds, never replaces.
 * `npm run bench:redaction` checks that every sample its own rules flag is masked here, so a
 * rule the preset gains shows up there as a coverage gap.
 *
 * Each rule names a keyword family: cheap patterns its matches cannot lack. {@link MAY_HOLD} is
 * the union of all, so a string with none is passed after one test; otherwise each family's
 * test runs once, and only the rules of the families present run.
 */

/** One way a secret can be written. */
export interface SecretRule {
  /** What the value is, as a person reads it in an approval form ("GitHub token"). */
  name: string;
  /** The keyword family (a key of K) a match of `pattern` always contains one of. */
  family: Family;
  /** Global: every match is a secret (value rules) or holds one in a group (context rules). */
  pattern: RegExp;
  /** Value rules only: a narrower pattern for approval forms, where a match must hide nothing but the secret. */
  display?: RegExp;
  /** Context rules only: the match with its secret part replaced. */
  redact?: (...groups: string[]) => string;
  /** Context rules only, instead of `redact`: the whole text with this rule's secrets replaced. */
  apply?: (text: string) => string;
}

const R = '[redacted]';

// The keyword sources, kept as strings so that MAY_HOLD is their exact union.
const K = {
  pem: 'PRIVATE KEY',
  // The payload's start: cheaper to find than the header's (`e` is a common letter, `.e` much less).
  jwt: String.raw`\.e[wy]`,
  github: String.raw`gh[pousr]_|github_pat_`,
  gitlab: 'glpat-',
  grafana: 'glc_|glsa_',
  slack: String.raw`xox[abposr]-|xapp-|hooks\.slack\.com`,
  awsId: 'A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA',
  google: 'AIza',
  openai: 'sk-',
  stripe: 'k_live_|k_test_',
  npm: 'npm_',
  pypi: 'pypi-',
  groq: 'gsk_',
  huggingface: 'hf_',
  linear: 'lin_api_',
  notion: 'ntn_',
  sendgrid: String.raw`SG\.`,
  shopify: 'shp(?:pa|ca|at|ss)_',
  vault: String.raw`hv[sbr]\.`,
  vercel: 'vc[pciark]_',
  databricks: 'dapi',
  docker: 'dckr_pat_',
  figma: 'figd_',
  cloudflare: 'cfk_|cfut_|cfat_',
  tailscale: 'tskey-',
  onepassword: 'ops_ey',
  userinfo: String.raw`:\/\/`,
  // Every name SECRET_NAME accepts contains one of these.
  // Also the HTTP authorization schemes (bearer, basic, token, digest): one family, since they share words.
  name: String.raw`pass|pwd|secret|token|key|auth|sess|jwt|bearer|basic|digest|sig|refresh|cookie|credential`,
} as const;

// Words matched in any case; token prefixes are case-sensitive by their formats. Spelled as
// `[pP][aA]…` rather than with the `i` flag: V8 scans for a miss faster so (bench:redaction).
const ANY_CASE: ReadonlySet<string> = new Set([K.pem, K.name]);
const anyCase = (source: string) => source.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
const keywordSource = (source: string) => (ANY_CASE.has(source) ? anyCase(source) : source);

/** A keyword family: each rule names the one its matches contain. */
export type Family = keyof typeof K;
const FAMILY_TEST = Object.fromEntries(Object.entries(K).map(([family, source]) => [family, new RegExp(keywordSource(source))])) as Record<Family, RegExp>;

/**
 * A memoized test of which keyword families occur in `text`: each family's regex runs at most
 * once per text, and only for the rules that ask.
 */
export function familyTester(text: string): (family: Family) => boolean {
  const known = new Map<Family, boolean>();
  return (family) => {
    let hit = known.get(family);
    if (hit === undefined) known.set(family, (hit = FAMILY_TEST[family].test(text)));
    return hit;
  };
}

/**
 * Whether a name (of `NAME=value`, `"name": …`, `name: value` or a `[name, value]` pair) marks
 * its value as a secret: it contains one of these words, in any case.
 */
const SECRET_WORD = /password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|subscription[_-]?key|credentials?|auth|session[_-]?id|sessid|jwt|bearer|signature|sig|refresh|cookie/i;

/** The value after `NAME=`: quoted, or up to a separator (URL-encoded `&`, `;`, `,`, space and quotes too). */
const ASSIGNED_VALUE = /"[^"]*"|'[^']*'|(?:%(?!26|3B|2C|20|22|27)|[^\s&;,'"#)%])+/iy;
/** The value after `name:`: quoted, or to the line's end (or a quote, `,`, `;`, `}`). */
const FIELD_VALUE = /"[^"\r\n]*"|'[^'\r\n]*'|[^\s"',;{}()[\]][^\r\n"',;}]*/y;

const isNameChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46 || code === 45;

/**
 * `text` with the value after each match of `head` replaced. `head` (global) starts at a secret
 * word and runs through the separator; the name is the word extended backwards over name
 * characters, so that the regex scans for the rare secret words rather than every word.
 */
function redactNamedValues(text: string, head: RegExp, value: RegExp): string {
  let out = '';
  let last = 0;
  head.lastIndex = 0;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    let start = m.index;
    while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
    if (start < last) continue; // inside a value already replaced
    value.lastIndex = head.lastIndex;
    const v = value.exec(text);
    if (v === null) continue;
    out += `${text.slice(last, head.lastIndex)}${R}`;
    last = head.lastIndex + v[0].length;
    head.lastIndex = last;
  }
  return last === 0 ? text : out + text.slice(last);
}

// The quoted rules match any name and test it with SECRET_WORD afterwards: a name pattern with
// the words inside backtracks through every word of a long text.
const NAME = '[A-Za-z0-9_.-]+';

// Secret word first (any case, spelled out: see kw), then the rest of the name and the separator.
const WORD_FIRST = `(?:${anyCase(SECRET_WORD.source)})[A-Za-z0-9_.-]*`;
const ASSIGNMENT_HEAD = new RegExp(String.raw`${WORD_FIRST}\s*(?:=|%3[dD])\s*`, 'g');
const FIELD_HEAD = new RegExp(String.raw`${WORD_FIRST}\s*:[ \t]*(?!\/\/|[a-zA-Z][a-zA-Z0-9+.-]*:\/\/)`, 'g');

/** Rules that recognize a value by itself: a person's approval form may mask what these match. */
export const VALUE_RULES: readonly SecretRule[] = [
  {
    name: 'private key',
    family: 'pem',
    // To the block's end, or the string's when the END line is elsewhere (a key split into lines).
    pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    // In a form: only a whole block of base64 lines (newlines real or written `\n`), each one
    // word, so nothing runnable hides in it.
    display: /-----BEGIN(?: [A-Z0-9]+)* PRIVATE KEY-----(?:(?:\r?\n|\\n)[A-Za-z0-9+/]{1,76}={0,2})+(?:\r?\n|\\n)-----END(?: [A-Z0-9]+)* PRIVATE KEY-----/g,
  },
  // A JWT's header and payload are base64url JSON objects: `{"` is `eyJ`, `{ "` is `eyA`, `{\n` is `ewo`.
  { name: 'JSON Web Token', family: 'jwt', pattern: /\be[wy][A-Za-z0-9_-]{8,}\.e[wy][A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g },
  { name: 'GitHub token', family: 'github', pattern: /\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { name: 'GitLab token', family: 'gitlab', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'Grafana token', family: 'grafana', pattern: /\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})/g },
  { name: 'Slack token', family: 'slack', pattern: /\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})|https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/g },
  { name: 'AWS access key id', family: 'awsId', pattern: /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g },
  { name: 'Google API key', family: 'google', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'OpenAI or Anthropic key', family: 'openai', pattern: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'Stripe key', family: 'stripe', pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'npm token', family: 'npm', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'PyPI token', family: 'pypi', pattern: /\bpypi-[A-Za-z0-9_-]{40,}/g },
  { name: 'Groq key', family: 'groq', pattern: /\bgsk_[A-Za-z0-9]{52}\b/g },
  { name: 'Hugging Face token', family: 'huggingface', pattern: /\bhf_[A-Za-z]{34}\b/g },
  { name: 'Linear key', family: 'linear', pattern: /\blin_api_[A-Za-z0-9_]{32,128}\b/g },
  { name: 'Notion token', family: 'notion', pattern: /\bntn_[0-9]{11}[A-Za-z0-9]{35}\b/g },
  { name: 'SendGrid key', family: 'sendgrid', pattern: /\bSG\.[\w-]{10,}\.[\w-]{10,}/g },
  { name: 'Shopify token', family: 'shopify', pattern: /\bshp(?:pa|ca|at|ss)_[A-Za-z0-9]{32,64}\b/g },
  { name: 'HashiCorp Vault token', family: 'vault', pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{90,300}/g },
  { name: 'Vercel token', family: 'vercel', pattern: /\bvc[pciark]_[A-Za-z0-9]{20,60}\b/g },
  { name: 'Databricks token', family: 'databricks', pattern: /\bdapi[a-fA-F0-9]{32}(?:-[0-9])?\b/g },
  { name: 'Docker token', family: 'docker', pattern: /\bdckr_pat_[A-Za-z0-9_-]{27}/g },
  { name: 'Figma token', family: 'figma', pattern: /\bfigd_[A-Za-z0-9_-]{40,200}/g },
  { name: 'Cloudflare token', family: 'cloudflare', pattern: /\b(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}\b/g },
  { name: 'Tailscale key', family: 'tailscale', pattern: /\btskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}\b/g },
  { name: '1Password token', family: 'onepassword', pattern: /\bops_ey[A-Za-z0-9+/=]{100,1280}/g },
];

/** The union of the value rules' families: a text it misses skips every value rule at once. */
export const MAY_HOLD_VALUE = new RegExp([...new Set(VALUE_RULES.map((rule) => rule.family))].map((family) => keywordSource(K[family])).join('|'));

/** Rules that recognize a secret by what surrounds it: for what leaves the host, never for approval forms. */
export const CONTEXT_RULES: readonly SecretRule[] = [
  {
    // An AWS secret access key (40 base64 characters) written near its access key id, either side.
    name: 'AWS secret access key',
    family: 'awsId',
    pattern: /((?:AKIA|ASIA)[0-9A-Z]{16})([^\n]{1,80}?)(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])|(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])([^\n]{1,80}?)((?:AKIA|ASIA)[0-9A-Z]{16})/g,
    redact: (match, id, gap, gapBefore, idAfter) => (id !== undefined ? `${id}${gap}${R}` : idAfter !== undefined ? `${R}${gapBefore}${idAfter}` : match),
  },
  {
    // HTTP authorization schemes, also URL-encoded (`Bearer%20…`) or form-encoded (`Bearer+…`).
    name: 'authorization credentials',
    family: 'name',
    pattern: /(?<![A-Za-z])(Bearer|Basic|Token|Digest)(\s+|%20|\+)[A-Za-z0-9._~+/=%-]{8,}/gi,
    redact: (_m, scheme, space) => `${scheme}${space}${R}`,
  },
  {
    // user:password@ in a URL; the password may hold `/` or `@` (the last `@` of the run ends it).
    name: 'URL credentials',
    family: 'userinfo',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"'<>]*:)[^\s"'<>]*@/gi,
    redact: (_m, head) => `${head}${R}@`,
  },
  {
    // JSON or Python-repr text: "client_secret": "…", 'password': '…', and either quote mixed.
    name: 'quoted secret member',
    family: 'name',
    pattern: new RegExp(String.raw`((["'])(${NAME})\2\s*:\s*)(["'])(?:(?!\4)[^\\]|\\.)*\4`, 'g'),
    redact: (match, head, _q1, name, quote) => (SECRET_WORD.test(name!) ? `${head}${quote}${R}${quote}` : match),
  },
  {
    // Header pairs as text: [["X-Api-Key", "…"]], ('Authorization', '…').
    name: 'secret header pair',
    family: 'name',
    pattern: new RegExp(String.raw`([\[(]\s*(["'])(${NAME})\2\s*,\s*)(["'])(?:(?!\4)[^\\]|\\.)*\4`, 'g'),
    redact: (match, head, _q1, name, quote) => (SECRET_WORD.test(name!) ? `${head}${quote}${R}${quote}` : match),
  },
  {
    // NAME=value: shell assignments, query parameters (also URL-encoded: `access_token%3D…`), form bodies, config lines.
    name: 'secret assignment',
    family: 'name',
    pattern: ASSIGNMENT_HEAD,
    apply: (text) => redactNamedValues(text, ASSIGNMENT_HEAD, ASSIGNED_VALUE),
  },
  {
    // name: value — YAML, HTTP headers (`Ocp-Apim-Subscription-Key: …`), JS object literals; to the
    // line's end. Not a URL there (`credentials: https://…`): the URL rules keep its host.
    name: 'secret field',
    family: 'name',
    pattern: FIELD_HEAD,
    apply: (text) => redactNamedValues(text, FIELD_HEAD, FIELD_VALUE),
  },
];

/**
 * The union of every rule's keyword: a string it misses holds nothing any rule would change.
 * Case-sensitive, with the words that may come in any case spelled as `[pP][aA]…` (see kw).
 */
export const MAY_HOLD = new RegExp(
  Object.values(K).map(keywordSource).join('|'),
);

/**
 * The same test over serialized JSON. Every keyword survives JSON escaping (none contains a
 * quote, backslash or control character), so it is the same regex.
 */
export const MAY_HOLD_JSON = MAY_HOLD;
