/** The strict command-line rules, checked on the pure parser (the CLI process tests cover the wiring). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, parseHttpBind } from '../../src/cli/args.ts';

const error = (argv: string[]) => {
  const parsed = parseCommandLine(argv);
  assert.equal(parsed.kind, 'error', `${argv.join(' ')} → ${JSON.stringify(parsed)}`);
  return (parsed as { message: string }).message;
};

test('serve takes --config in both spellings, --http and --token-file', () => {
  assert.deepEqual(parseCommandLine(['serve', '--config', 'a.json']), { kind: 'serve', config: 'a.json' });
  assert.deepEqual(parseCommandLine(['serve', '--config=a.json']), { kind: 'serve', config: 'a.json' });
  assert.deepEqual(parseCommandLine(['serve', '--http', '8080', '--token-file=t']), { kind: 'serve', http: { host: '127.0.0.1', port: 8080 }, tokenFile: 't' });
  assert.deepEqual(parseCommandLine(['serve']), { kind: 'serve' });
});

test('--help and -h print usage for every command, whatever else is on the line', () => {
  for (const argv of [['--help'], ['-h'], ['help'], ['serve', '--help'], ['serve', '-h'], ['serve', '--config', 'x', '--help'], ['demo', '--help']]) {
    assert.deepEqual(parseCommandLine(argv), { kind: 'help' }, argv.join(' '));
  }
});

test('unknown flags, missing values, repeats and stray words are errors', () => {
  assert.match(error(['serve', '--bogus']), /Unknown option '--bogus'/);
  assert.match(error(['serve', '--config']), /--config/);
  assert.match(error(['serve', '--config', '--http', '1']), /--config/);
  assert.match(error(['serve', '--config=']), /--config needs a non-empty value/);
  assert.match(error(['serve', '--config', 'a', '--config', 'b']), /--config given more than once/);
  assert.match(error(['serve', 'extra']), /extra/);
  assert.match(error(['serve', '--token-file', 't']), /only applies to --http/);
  assert.match(error(['demo', '--fast']), /Unknown option '--fast'/);
  assert.match(error(['frobnicate']), /unknown command: frobnicate/);
  assert.match(error(['help', 'me']), /takes no arguments/);
});

test('--http takes PORT, HOST:PORT or [IPV6]:PORT', () => {
  assert.deepEqual(parseHttpBind('0'), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(parseHttpBind('0.0.0.0:9000'), { host: '0.0.0.0', port: 9000 });
  assert.deepEqual(parseHttpBind('localhost:1'), { host: 'localhost', port: 1 });
  assert.deepEqual(parseHttpBind('[::1]:65535'), { host: '::1', port: 65535 });
  for (const bad of ['', 'x', '65536', ':80', '::1:80', 'host:', 'host:-1', '1.5']) {
    assert.equal((parseHttpBind(bad) as { kind?: string }).kind, 'error', bad);
  }
});
