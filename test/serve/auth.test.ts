/** Who may talk to `serve --http`: which binds count as loopback, token files, bearer checks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearerChecker, isLoopbackHost, readTokenFile } from '../../src/serve/auth.ts';
import { scratchDir } from '../helpers/peers.ts';

test('loopback is 127.0.0.0/8, ::1 and localhost; anything else needs a token', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1']) assert.equal(isLoopbackHost(host), false, host);
});

test('a token file holds one token; empty or several words are refused', () => {
  const dir = scratchDir();
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
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
