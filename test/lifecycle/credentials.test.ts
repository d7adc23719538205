import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialKey, mayHoldCredential, REDACTED, redactCredentials } from '../../src/lifecycle/credentials.ts';

const CREDENTIAL_NAMES = ['password', 'Password', 'db_password', 'passwd', 'passphrase', 'apiKey', 'api_key', 'X-API-Key', 'token', 'accessToken', 'refresh_token', 'client_secret', 'secret', 'Authorization', 'auth', 'private_key', 'aws_secret_access_key', 'cookie', 'Set-Cookie', 'credentials'];
const ORDINARY_NAMES = ['max_tokens', 'author', 'path', 'tokens', 'keyboard', 'key', 'secretary_name', 'password_hint_text', 'authentic'];

describe('credential names', () => {
  it('recognizes credential-like names', () => {
    for (const k of CREDENTIAL_NAMES) assert.equal(isCredentialKey(k), true, k);
  });
  it('leaves look-alikes alone', () => {
    for (const k of ORDINARY_NAMES) assert.equal(isCredentialKey(k), false, k);
  });
  it('the serialized pre-check never misses a credential name', () => {
    for (const k of CREDENTIAL_NAMES) assert.equal(mayHoldCredential(JSON.stringify({ [k]: 1 })), true, k);
    assert.equal(mayHoldCredential(JSON.stringify({ command: 'ls', n: 3 })), false);
  });
});

describe('redactCredentials', () => {
  it('replaces values at any depth, copy-on-write', () => {
    const input = { a: { keep: [1, 2] }, b: [{ apiKey: 'k' }], secret: { nested: 'whole value' } };
    const r = redactCredentials(input);
    assert.equal(r.changed, true);
    assert.deepEqual(r.value, { a: { keep: [1, 2] }, b: [{ apiKey: REDACTED }], secret: REDACTED });
    assert.equal((r.value as { a: unknown }).a, input.a, 'unchanged subtrees are shared');
    assert.deepEqual(input.b, [{ apiKey: 'k' }], 'the input is not modified');
  });
  it('returns the same value when nothing is redacted', () => {
    const input = { token: null, secret: true, x: 1 };
    const r = redactCredentials(input);
    assert.equal(r.changed, false);
    assert.equal(r.value, input);
  });
});
