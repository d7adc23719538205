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
 * Each rule has a keyword: a cheap regex its matches cannot lack. {@link MAY_HOLD} is their
 * union, so a string with none of them is passed after one test.
 */

/** One way a secret can be written. */
export interface SecretRule {
  /** What the value is, as a person reads it in an approval form ("GitHub token"). */
  name: string;
  /** A match of `pattern` always contains a match of this (case-insensitive, not global). */
  keyword?: RegExp;
  /** Global: every match is a secret (value rules) or holds one in a group (context rules). */
  pattern: RegExp;
  /** Value rules only: a narrower pattern for approval forms, where a match must hide nothing but the secret. */
  display?: RegExp;
  /** Context rules only: the match with its secret part replaced. */
  redact?: (...groups: string[]) => string;
}

const R = '[redacted]';

// The keyword sources, kept as strings so that MAY_HOLD is their exact union.
const K = {
  pem: 'PRIVATE KEY',
  jwt: String.raw`\be[wy][A-Za-z0-9_-]{8,}\.e[wy]`,
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
  scheme: String.raw`bearer|basic|token|digest`,
  userinfo: String.raw`:\/\/[^\s]*@`,
  // Every name SECRET_NAME accepts contains one of these.
  name: String.raw`pass|pwd|secret|token|key|auth|sess|jwt|bearer|sig|refresh|cookie|credential`,
} as const;

const kw = (source: string) => new RegExp(source, 'i');

/** Names that, in `NAME=value`, `"name": …`, `name: value` or a `[name, value]` pair, mark the value as a secret. */
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|subscription[_-]?key|credentials?|auth|session[_-]?id|sessid|jwt|bearer|signature|sig|refresh|cookie)[A-Za-z0-9_-]*`;

/** Rules that recognize a value by itself: a person's approval form may mask what these match. */
export const VALUE_RULES: readonly SecretRule[] = [
  {
    name: 'private key',
    keyword: kw(K.pem),
    // To the block's end, or the string's when the END line is elsewhere (a key split into lines).
    pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    // In a form: only a whole block of base64 lines (newlines real or written `\n`), each one
    // word, so nothing runnable hides in it.
    display: /-----BEGIN(?: [A-Z0-9]+)* PRIVATE KEY-----(?:(?:\r?\n|\\n)[A-Za-z0-9+/]{1,76}={0,2})+(?:\r?\n|\\n)-----END(?: [A-Z0-9]+)* PRIVATE KEY-----/g,
  },
  // A JWT's header and payload are base64url JSON objects: `{"` is `eyJ`, `{ "` is `eyA`, `{\n` is `ewo`.
  { name: 'JSON Web Token', keyword: kw(K.jwt), pattern: /\be[wy][A-Za-z0-9_-]{8,}\.e[wy][A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g },
  { name: 'GitHub token', keyword: kw(K.github), pattern: /\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { name: 'GitLab token', keyword: kw(K.gitlab), pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'Grafana token', keyword: kw(K.grafana), pattern: /\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})/g },
  { name: 'Slack token', keyword: kw(K.slack), pattern: /\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})|https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/g },
  { name: 'AWS access key id', keyword: kw(K.awsId), pattern: /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g },
  { name: 'Google API key', keyword: kw(K.google), pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'OpenAI or Anthropic key', keyword: kw(K.openai), pattern: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'Stripe key', keyword: kw(K.stripe), pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'npm token', keyword: kw(K.npm), pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'PyPI token', keyword: kw(K.pypi), pattern: /\bpypi-[A-Za-z0-9_-]{40,}/g },
  { name: 'Groq key', keyword: kw(K.groq), pattern: /\bgsk_[A-Za-z0-9]{52}\b/g },
  { name: 'Hugging Face token', keyword: kw(K.huggingface), pattern: /\bhf_[A-Za-z]{34}\b/g },
  { name: 'Linear key', keyword: kw(K.linear), pattern: /\blin_api_[A-Za-z0-9_]{32,128}\b/g },
  { name: 'Notion token', keyword: kw(K.notion), pattern: /\bntn_[0-9]{11}[A-Za-z0-9]{35}\b/g },
  { name: 'SendGrid key', keyword: kw(K.sendgrid), pattern: /\bSG\.[\w-]{10,}\.[\w-]{10,}/g },
  { name: 'Shopify token', keyword: kw(K.shopify), pattern: /\bshp(?:pa|ca|at|ss)_[A-Za-z0-9]{32,64}\b/g },
  { name: 'HashiCorp Vault token', keyword: kw(K.vault), pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{90,300}/g },
  { name: 'Vercel token', keyword: kw(K.vercel), pattern: /\bvc[pciark]_[A-Za-z0-9]{20,60}\b/g },
  { name: 'Databricks token', keyword: kw(K.databricks), pattern: /\bdapi[a-fA-F0-9]{32}(?:-[0-9])?\b/g },
  { name: 'Docker token', keyword: kw(K.docker), pattern: /\bdckr_pat_[A-Za-z0-9_-]{27}/g },
  { name: 'Figma token', keyword: kw(K.figma), pattern: /\bfigd_[A-Za-z0-9_-]{40,200}/g },
  { name: 'Cloudflare token', keyword: kw(K.cloudflare), pattern: /\b(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}\b/g },
  { name: 'Tailscale key', keyword: kw(K.tailscale), pattern: /\btskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}\b/g },
  { name: '1Password token', keyword: kw(K.onepassword), pattern: /\bops_ey[A-Za-z0-9+/=]{100,1280}/g },
];

/** Rules that recognize a secret by what surrounds it: for what leaves the host, never for approval forms. */
export const CONTEXT_RULES: readonly SecretRule[] = [
  {
    // An AWS secret access key (40 base64 characters) written near its access key id, either side.
    name: 'AWS secret access key',
    keyword: kw('AKIA|ASIA'),
    pattern: /((?:AKIA|ASIA)[0-9A-Z]{16})([^\n]{1,80}?)(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])|(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])([^\n]{1,80}?)((?:AKIA|ASIA)[0-9A-Z]{16})/g,
    redact: (match, id, gap, gapBefore, idAfter) => (id !== undefined ? `${id}${gap}${R}` : idAfter !== undefined ? `${R}${gapBefore}${idAfter}` : match),
  },
  {
    // HTTP authorization schemes, also URL-encoded (`Bearer%20…`) or form-encoded (`Bearer+…`).
    name: 'authorization credentials',
    keyword: kw(K.scheme),
    pattern: /(?<![A-Za-z])(Bearer|Basic|Token|Digest)(\s+|%20|\+)[A-Za-z0-9._~+/=%-]{8,}/gi,
    redact: (_m, scheme, space) => `${scheme}${space}${R}`,
  },
  {
    // user:password@ in a URL; the password may hold `/` or `@` (the last `@` of the run ends it).
    name: 'URL credentials',
    keyword: kw(K.userinfo),
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"'<>]*:)[^\s"'<>]*@/gi,
    redact: (_m, head) => `${head}${R}@`,
  },
  {
    // JSON or Python-repr text: "client_secret": "…", 'password': '…', and either quote mixed.
    name: 'quoted secret member',
    keyword: kw(K.name),
    pattern: new RegExp(String.raw`((["'])${SECRET_NAME}\2\s*:\s*)(["'])(?:(?!\3)[^\\]|\\.)*\3`, 'gi'),
    redact: (_m, head, _q1, quote) => `${head}${quote}${R}${quote}`,
  },
  {
    // Header pairs as text: [["X-Api-Key", "…"]], ('Authorization', '…').
    name: 'secret header pair',
    keyword: kw(K.name),
    pattern: new RegExp(String.raw`([\[(]\s*(["'])${SECRET_NAME}\2\s*,\s*)(["'])(?:(?!\3)[^\\]|\\.)*\3`, 'gi'),
    redact: (_m, head, _q1, quote) => `${head}${quote}${R}${quote}`,
  },
  {
    // NAME=value: shell assignments, query parameters (also URL-encoded: `access_token%3D…`), form bodies, config lines.
    name: 'secret assignment',
    keyword: kw(K.name),
    pattern: new RegExp(String.raw`(^|[\s?&;,'"(]|\b)(${SECRET_NAME})(\s*(?:=|%3D)\s*)("[^"]*"|'[^']*'|(?:%(?!26|3B|2C|20|22|27)|[^\s&;,'"#)%])+)`, 'gi'),
    redact: (_m, lead, name, eq) => `${lead}${name}${eq}${R}`,
  },
  {
    // name: value — YAML, HTTP headers (`Ocp-Apim-Subscription-Key: …`), JS object literals; to the
    // line's end. Not a URL there (`credentials: https://…`): the URL rules keep its host.
    name: 'secret field',
    keyword: kw(K.name),
    pattern: new RegExp(String.raw`(^|[\s{,;(\['"])(${SECRET_NAME})(\s*:[ \t]*)(?!\/\/|[a-z][a-z0-9+.-]*:\/\/)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"',;{}()\[\]][^\r\n"',;}]*)`, 'gim'),
    redact: (_m, lead, name, colon) => `${lead}${name}${colon}${R}`,
  },
];

/** The union of every rule's keyword: a string it misses holds nothing any rule would change. */
export const MAY_HOLD = new RegExp(Object.values(K).join('|'), 'i');

/**
 * The same test over serialized JSON. Every keyword survives JSON escaping (none contains a
 * quote, backslash or control character), so it is the same regex.
 */
export const MAY_HOLD_JSON = MAY_HOLD;
