/**
 * Who may talk to `serve --http`: which binds count as loopback, token files, bearer checks.
 * And the secret files serve reads (its own --token-file, an auth key's clientSecretFile and
 * privateKeyFile): refused, saying why, when other users can read or change them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { bearerChecker, isLoopbackHost, readTokenFile } from '../../src/serve/auth.ts';
import { parseServeConfig } from '../../src/serve/config.ts';
import { secretFileProblem } from '../../src/mcpl/auth/secret-file.ts';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';

test('loopback is 127.0.0.0/8, ::1 and localhost; anything else needs a token', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1']) assert.equal(isLoopbackHost(host), false, host);
});

test('a token file holds one token; empty or several words are refused', () => {
  const dir = scratchDir();
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text, { mode: 0o600 });
    return join(dir, name);
  };
  assert.equal(readTokenFile(file('ok', '  abc.DEF-123\n')), 'abc.DEF-123');
  assert.throws(() => readTokenFile(file('empty', ' \n')), /is empty/);
  assert.throws(() => readTokenFile(file('two', 'a b\n')), /one token/);
  assert.throws(() => readTokenFile(join(dir, 'missing')), /cannot read token file/);
});

test('the bearer check accepts exactly "Bearer <token>"', () => {
  const ok = bearerChecker('s3cret');
  assert.equal(ok('Bearer s3cret'), true);
  assert.equal(ok('bearer s3cret'), true, 'the scheme is case-insensitive');
  for (const header of [undefined, '', 's3cret', 'Bearer', 'Bearer ', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 'Bearer s3cret extra']) {
    assert.equal(ok(header), false, String(header));
  }
});

test('a token file other users can read or write is refused, saying why and what to do, as ssh does', () => {
  const dir = scratchDir();
  const path = join(dir, 'token');
  writeFileSync(path, 'abc\n', { mode: 0o600 });
  assert.equal(readTokenFile(path), 'abc');
  for (const [mode, what] of [[0o644, 'readable'], [0o640, 'readable'], [0o604, 'readable'], [0o620, 'writable'], [0o666, 'readable and writable'], [0o610, 'accessible']] as const) {
    chmodSync(path, mode);
    const shown = mode.toString(8).padStart(4, '0');
    assert.throws(() => readTokenFile(path), (error: Error) => error.message === `token file ${path} is ${what} by group/others (mode ${shown}); chmod 600 it`, shown);
  }
  chmodSync(path, 0o400);
  assert.equal(readTokenFile(path), 'abc', 'owner-only read is fine');
});

test('a secret file owned by another user (not root) is refused; one owned by root is not', () => {
  const uid = process.getuid!();
  assert.equal(secretFileProblem('secret file', '/s', { mode: 0o100600, uid }), undefined);
  assert.equal(secretFileProblem('secret file', '/s', { mode: 0o100600, uid: 0 }), undefined);
  assert.match(secretFileProblem('secret file', '/s', { mode: 0o100600, uid: uid + 1 })!, /secret file \/s belongs to another user \(uid \d+, not \d+\); a secret file must be yours/);
});

test('serve --token-file readable by others: serve exits 1 before serving, saying why', () => {
  const dir = scratchDir();
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [], codeExecution: false }));
  const token = join(dir, 'token');
  writeFileSync(token, 'tok-123\n');
  chmodSync(token, 0o644);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'serve', '--config', config, '--http', '0.0.0.0:0', '--token-file', token], { cwd: REPO_ROOT, encoding: 'utf8', input: '', timeout: 60_000 });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /token file .*token is readable by group\/others \(mode 0644\); chmod 600 it/);
  assert.doesNotMatch(run.stderr, /tok-123/);
});

test('an auth key whose clientSecretFile or privateKeyFile other users can read is refused when the config is loaded, naming the key and the fix', () => {
  const dir = scratchDir();
  const url = 'http://127.0.0.1:1/mcp';
  writeFileSync(join(dir, 'secret'), 's3cret\n');
  chmodSync(join(dir, 'secret'), 0o644);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  chmodSync(join(dir, 'key.pem'), 0o640);
  const cases: [unknown, RegExp][] = [
    [{ type: 'client_credentials', clientId: 'cid', clientSecretFile: 'secret', issuer: 'https://auth.example.com' }, /^auth\.clientSecretFile: secret file .*\/secret is readable by group\/others \(mode 0644\); chmod 600 it$/],
    [{ type: 'interactive', clientId: 'cid', clientSecretFile: 'secret', redirectPort: 43123 }, /^auth\.clientSecretFile: secret file .*\/secret is readable by group\/others \(mode 0644\); chmod 600 it$/],
    [{ type: 'private_key_jwt', clientId: 'cid', privateKeyFile: 'key.pem', algorithm: 'ES256', issuer: 'https://auth.example.com' }, /^auth\.privateKeyFile: private key file .*\/key\.pem is readable by group\/others \(mode 0640\); chmod 600 it$/],
  ];
  for (const [auth, expected] of cases) {
    assert.throws(() => parseServeConfig({ servers: [{ id: 'a', url, auth }] }, 'toolcell.json', dir), (error: Error) => expected.test(error.message) && !error.message.includes('s3cret'), JSON.stringify(auth));
  }
  chmodSync(join(dir, 'secret'), 0o600);
  chmodSync(join(dir, 'key.pem'), 0o600);
  for (const [auth] of cases) assert.equal(parseServeConfig({ servers: [{ id: 'a', url, auth }] }, 'toolcell.json', dir).servers.length, 1);
});
