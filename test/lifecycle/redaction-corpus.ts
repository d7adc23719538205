/**
 * The redaction corpus (issue 42.2): the 29 spellings of a secret inside a value that reach
 * observers, spans and logs — 14 the rules caught before, 15 that got through — and one sample
 * per rule of secretlint's recommended preset, each a value that preset flags itself
 * (test/lifecycle/redaction-corpus.test.ts checks both; bench/redaction-rules.ts reports them).
 * Each case names the secret texts that must not survive.
 */

export const S = 'Zq8vN3xR7tLm2KpW9yB4';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vN3xR7t';
const b64url = (text: string) => Buffer.from(text).toString('base64url');

export interface RedactionCase {
  name: string;
  /** The value as a tool's arguments carry it. */
  input: Record<string, unknown>;
  /** Texts that must appear nowhere once redacted. */
  secrets: string[];
  /** True for the 15 spellings that reached observers before issue 42. */
  missedBefore?: true;
}

const PEM_LINES = ['-----BEGIN RSA PRIVATE KEY-----', `MIIEowIBAAKCAQEA${S}${S}`, `q1w2e3r4t5y6u7i8o9p0${S}`, '-----END RSA PRIVATE KEY-----'];

export const CORPUS: readonly RedactionCase[] = [
  { name: 'URL query token', input: { url: `https://api.example.com/v1/items?page=2&access_token=${S}` }, secrets: [S] },
  { name: 'URL credentials', input: { url: `postgres://admin:${S}@db.internal:5432/app` }, secrets: [S] },
  { name: 'curl bearer header', input: { command: `curl -H 'Authorization: Bearer ${S}' https://api.example.com` }, secrets: [S] },
  { name: 'export assignment', input: { command: `export GITHUB_TOKEN=${S} && gh repo list` }, secrets: [S] },
  { name: 'inline env assignment', input: { command: `DB_PASSWORD='${S}' ./migrate` }, secrets: [S] },
  { name: 'form body', input: { body: `user=alice&password=${S}&remember=1` }, secrets: [S] },
  { name: 'JSON text in a string', input: { payload: `{"user":"alice","client_secret":"${S}"}` }, secrets: [S] },
  { name: 'PEM block under an innocent key', input: { note: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${S}\n-----END RSA PRIVATE KEY-----` }, secrets: [S] },
  { name: 'JWT', input: { header: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${S}` }, secrets: [S, 'eyJzdWIiOiIxMjM0NTY3ODkwIn0'] },
  { name: 'GitHub token prefix', input: { text: `use ghp_${S}${S.slice(0, 16)} for this` }, secrets: [S] },
  { name: 'AWS access key id', input: { text: 'key AKIAIOSFODNN7EXAMPLE here' }, secrets: ['AKIAIOSFODNN7EXAMPLE'] },
  { name: 'Anthropic key in code', input: { code: `const k = "sk-ant-api03-${S}${S}";\nreturn k;` }, secrets: [S] },
  { name: 'OpenAI project key in an error', input: { error: `401 Unauthorized: incorrect API key provided: sk-proj-${S}${S}` }, secrets: [S] },
  { name: 'database URL in an error', input: { error: `connect failed for postgres://app:${S}@db.internal:5432/app: ECONNREFUSED` }, secrets: [S] },
  // The 15 that got through.
  { name: 'JWT whose header starts `{ "`', input: { token_hint: `${b64url('{ "alg": "HS256", "typ": "JWT" }')}.${b64url('{ "sub": "1234567890" }')}.${S}` }, secrets: [S, b64url('{ "sub": "1234567890" }')], missedBefore: true },
  { name: 'AWS secret key beside its AKIA id', input: { line: `AKIAIOSFODNN7EXAMPLE ${AWS_SECRET}` }, secrets: [AWS_SECRET, 'AKIAIOSFODNN7EXAMPLE'], missedBefore: true },
  { name: 'PEM key split into an array of lines', input: { key_lines: PEM_LINES }, secrets: [S, 'q1w2e3r4t5y6u7i8o9p0'], missedBefore: true },
  { name: 'URL password containing /', input: { url: `postgres://app:${S.slice(0, 10)}/${S.slice(10)}@db.internal/app` }, secrets: [S.slice(0, 10), S.slice(10)], missedBefore: true },
  { name: 'URL password containing @', input: { remote: `https://deploy:p@${S}@git.example.com/repo.git` }, secrets: [S], missedBefore: true },
  { name: 'URL-encoded access_token%3D', input: { next: `https://login.example/cb?next=%2Fhome%3Faccess_token%3D${S}%26page%3D2` }, secrets: [S], missedBefore: true },
  { name: 'URL-encoded Bearer%20', input: { link: `https://proxy.example/fetch?h=Authorization%3A%20Bearer%20${S}` }, secrets: [S], missedBefore: true },
  { name: 'header pairs [["X-Api-Key", …]]', input: { headers: [['X-Api-Key', S], ['Accept', 'application/json']] }, secrets: [S], missedBefore: true },
  { name: 'header pairs as text', input: { spec: `[["X-Api-Key", "${S}"], ["Accept", "text/plain"]]` }, secrets: [S], missedBefore: true },
  { name: 'Python repr', input: { log: `creds = {'user': 'alice', 'password': '${S}'}` }, secrets: [S], missedBefore: true },
  { name: 'YAML password:', input: { config: `db:\n  host: db.internal\n  password: ${S}\n  pool: 5\n` }, secrets: [S], missedBefore: true },
  { name: 'key `refresh`', input: { refresh: S }, secrets: [S], missedBefore: true },
  { name: 'key `Ocp-Apim-Subscription-Key`', input: { 'Ocp-Apim-Subscription-Key': S }, secrets: [S], missedBefore: true },
  { name: 'header `Ocp-Apim-Subscription-Key:` in a command', input: { command: `curl -H 'Ocp-Apim-Subscription-Key: ${S}' https://api.example.com/v1` }, secrets: [S], missedBefore: true },
  { name: '`refresh=` in a form body', input: { body: `grant_type=refresh_token&refresh=${S}&client_id=app` }, secrets: [S], missedBefore: true },
];

/**
 * One sample per rule of secretlint's recommended preset, shaped as its rule documents the
 * token (all fake). Each must be flagged by the preset itself and masked by toolcell; those not
 * marked `context` by the value rules alone (what an approval form may mask).
 */
// A 1Password service account token is `ops_` and base64 JSON (this one fake, padded to end in `fQ==`).
const ONEPASSWORD = {
  signInAddress: 'my.1password.com',
  userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000 },
  email: 'ci@example.com',
  secretKey: 'A3-ABCDEF-GHIJKL-MNOPQ-RSTUV-WXYZ2-34567',
  srpX: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  muk: { alg: 'A256GCM', ext: true, k: 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8f', key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' },
};

export const PRESET_SAMPLES: readonly { rule: string; text: string; context?: true }[] = [
  { rule: 'aws secret', context: true, text: `AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"\n` },
  { rule: 'gcp', text: `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${'A'.repeat(13)}\\n${'B'.repeat(64)}\\n${'C'.repeat(40)}\\n-----END PRIVATE KEY-----\\n"}` },
  { rule: 'privatekey', text: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${'x9Kq'.repeat(12)}\n${'x9Kq'.repeat(16)}\n${'Ab3D'.repeat(16)}\n-----END RSA PRIVATE KEY-----\n` },
  { rule: 'npm', text: `//registry.npmjs.org/:_authToken=npm_${'a1B2c3D4e5'.repeat(3)}a1B2c3\n` },
  { rule: 'basicauth', context: true, text: `fetch("https://alice:${S}@example.com/api")\n` },
  { rule: 'slack', text: `SLACK=xoxb-${'1234567890'}-${'1234567890123'}-${'aB3dE5fG7hJ9kL1mN2pQ4rS6'}\n` },
  { rule: 'sendgrid', text: `SENDGRID=SG.${'aB3dE5fG7hJ9kL1mN2pQ4r'}.${'sT6uV8wX0yZ2aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2u'}\n` },
  { rule: 'shopify', text: `SHOPIFY=shpat_${'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'}\n` },
  { rule: 'stripe', text: `STRIPE=sk_live_${'aB3dE5fG7hJ9kL1mN2pQ4rS6'}\n` },
  { rule: 'github', text: `GITHUB=ghp_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4'}\n` },
  { rule: 'gitlab', text: `GITLAB=glpat-${'aB3dE5fG7hJ9kL1mN2pQ'}\n` },
  { rule: 'grafana', text: `GRAFANA=glsa_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY'}_${'0a1b2c3d'}\n` },
  { rule: 'openai', text: `OPENAI=sk-proj-${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8mN0'.slice(0, 74)}T3BlbkFJ${'zA4bC6dE8fG0hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8mN0aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2'.slice(0, 74)}\n` },
  { rule: 'anthropic', text: `ANTHROPIC=sk-ant-api03-${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8mN0pQ'}AA\n` },
  { rule: 'groq', text: `GROQ=gsk_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2kL4m'}\n` },
  { rule: 'huggingface', text: `HF=hf_${'aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH'}\n` },
  { rule: 'linear', text: `LINEAR=lin_api_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4'}\n` },
  { rule: 'notion', text: `NOTION=ntn_${'12345678901'}${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA'}\n` },
  { rule: '1password', text: `OP=ops_${Buffer.from(`${JSON.stringify(ONEPASSWORD).slice(0, -1)} }`).toString('base64')}\n` },
  { rule: 'database-connection-string', context: true, text: `DATABASE_URL=mongodb+srv://app:${S}@cluster0.example.mongodb.net/prod\n` },
  { rule: 'hashicorp-vault', text: `VAULT=hvs.${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8mN0'}\n` },
  { rule: 'vercel', text: `VERCEL=vcp_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0'}\n` },
  { rule: 'databricks', text: `DATABRICKS=dapi${'0123456789abcdef0123456789abcdef'}\n` },
  { rule: 'docker', text: `DOCKER=dckr_pat_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8'}\n` },
  { rule: 'figma', text: `FIGMA=figd_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE'}\n` },
  { rule: 'cloudflare', text: `CLOUDFLARE=cfat_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6d'}${'0a1b2c3d'}\n` },
  { rule: 'tailscale', text: `TAILSCALE=tskey-auth-${'kAbCdEf1CNTRL'}-${'aB3dE5fG7hJ9kL1mN2pQ4rS6'}\n` },
];
