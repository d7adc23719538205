/**
 * Secrets inside values never reach observers (issue 19.5). Key-based redaction caught
 * `password` and `api_key` members, but a granted observer received a URL's `access_token=`, a
 * shell command's `Authorization: Bearer` header or `export TOKEN=…`, a form body, JSON text in
 * a string, a PEM key under an innocent key, keys spelled `pwd`/`jwt`/`session_id`/…, or with a
 * Cyrillic `а`, and `code_execution`'s `code` verbatim. boundInput is what observers, span
 * content capture and approval forms all go through, so each case is checked there; the secret
 * must be gone and the innocent text kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundInput } from '../../src/lifecycle/input-bound.ts';

const S = 'Zq8vN3xR7tLm2KpW9yB4';

const CASES: [string, Record<string, unknown>][] = [
  ['URL query token', { url: `https://api.example.com/v1/items?page=2&access_token=${S}` }],
  ['URL credentials', { url: `postgres://admin:${S}@db.internal:5432/app` }],
  ['curl bearer header', { command: `curl -H 'Authorization: Bearer ${S}' https://api.example.com` }],
  ['export assignment', { command: `export GITHUB_TOKEN=${S} && gh repo list` }],
  ['inline env assignment', { command: `DB_PASSWORD='${S}' ./migrate` }],
  ['form body', { body: `user=alice&password=${S}&remember=1` }],
  ['JSON text in a string', { payload: `{"user":"alice","client_secret":"${S}"}` }],
  ['PEM block under an innocent key', { note: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${S}\n-----END RSA PRIVATE KEY-----` }],
  ['JWT', { header: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${S}` }],
  ['GitHub token prefix', { text: `use ghp_${S}${S.slice(0, 16)} for this` }],
  ['AWS access key id', { text: 'key AKIAIOSFODNN7EXAMPLE here', marker: S }],
  ['pwd', { pwd: S }],
  ['pass', { pass: S }],
  ['jwt', { jwt: S }],
  ['session_id', { session_id: S }],
  ['ssh_key', { ssh_key: S }],
  ['bearer', { bearer: S }],
  ['Cyrillic а in password', { 'pаssword': S }],
  ['fullwidth key', { 'ＴＯＫＥＮ': S }],
  ['code_execution code', { code: `const r = await tools.fetch({ url: "https://x.test/?api_key=${S}" });\nconst k = "sk-ant-api03-${S}${S}";\nreturn r;` }],
];

for (const [name, input] of CASES) {
  test(`value redaction: ${name}`, () => {
    const bounded = boundInput(input);
    assert.equal(bounded.ok, true, JSON.stringify(bounded));
    const json = (bounded as { json: string }).json;
    if (name === 'AWS access key id') assert.ok(!json.includes('AKIAIOSFODNN7EXAMPLE'), json);
    else assert.ok(!json.includes(S), `${name}: ${json}`);
    assert.equal((bounded as { altered: boolean }).altered, true);
  });
}

test('innocent text is left alone and not marked altered', () => {
  for (const input of [
    { command: 'ls -la /tmp && echo done', url: 'https://example.com/search?q=tokens&page=2' },
    { author: 'Ada', max_tokens: 100, compass: 'north', bypass: false, text: 'a=b is an assignment' },
    { code: 'const total = items.reduce((a, b) => a + b, 0); return total;' },
  ]) {
    const bounded = boundInput(input);
    assert.equal(bounded.ok, true);
    assert.equal((bounded as { altered: boolean }).altered, false, JSON.stringify(bounded));
    assert.deepEqual((bounded as { input: unknown }).input, input);
  }
});
