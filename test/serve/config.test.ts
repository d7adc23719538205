/** The serve config file: every mistake named by its full path, ids checked, runtime keys kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServeConfig, parseServeConfig, ServeConfigError } from '../../src/serve/config.ts';
import { jsonErrorPlace } from '../../src/serve/json-error.ts';

function problems(raw: unknown): readonly string[] {
  try {
    parseServeConfig(raw, 'toolcell.json', '/base');
  } catch (error) {
    assert.ok(error instanceof ServeConfigError, String(error));
    return error.problems;
  }
  assert.fail('the config was accepted');
}

test('codeExecution fields are named by path, with what was expected and what came', () => {
  assert.deepEqual(problems({ codeExecution: { maxTimeLimitMs: 'x', languages: ['cobol'], isolation: 'full', python: '', jsPoolSize: 0, bogus: true } }), [
    'codeExecution.languages[0]: expected one of "javascript", "python", got "cobol"',
    'codeExecution.maxTimeLimitMs: expected a number ≥ 1000, got "x"',
    'codeExecution.jsPoolSize: expected an integer ≥ 1, got 0',
    'codeExecution.isolation: expected one of "auto", "bwrap", "none", got "full"',
    'codeExecution.python: expected a non-empty string, got ""',
    'codeExecution.bogus: unknown key',
  ]);
  assert.deepEqual(problems({ codeExecution: 'yes' }), ['codeExecution: expected false or an object, got "yes"']);
  assert.deepEqual(problems({ codeExecution: { defaultTimeLimitMs: 10 } }), ['codeExecution.defaultTimeLimitMs: expected a number ≥ 1000, got 10']);
});

test('duplicate ids and ids containing "--" are refused, with every other mistake', () => {
  assert.deepEqual(
    problems({
      servers: [
        { id: 'a', command: 'node' },
        { id: 'a', command: 'node' },
        { id: 'b--c', command: 'node', requestTimeoutMs: 'soon' },
      ],
    }),
    [
      'servers[2].requestTimeoutMs: expected a number > 0, got "soon"',
      'servers[1].id: "a" is already the id of servers[0]',
      'servers[2].id: "b--c" must not contain "--" (tool names are <id>--<tool>)',
    ],
  );
});

test('a server is spawned (command) or remote (url), never both, and each takes only its own keys', () => {
  assert.deepEqual(
    problems({
      servers: [
        { id: 'none' },
        { id: 'both', command: 'node', url: 'http://127.0.0.1:1/mcp' },
        { id: 'r', url: 'http://127.0.0.1:1/mcp', args: ['x'], cwd: '.' },
        { id: 'l', command: 'node', headers: { a: 'b' } },
        { id: 'f', url: 'ftp://example.com/mcp' },
      ],
    }),
    [
      'servers[0]: a server needs "command" (spawned over stdio) or "url" (remote, Streamable HTTP)',
      'servers[1].url: a server is either spawned ("command") or remote ("url"), not both',
      'servers[2].args: only a spawned ("command") server takes "args"; this one is remote ("url")',
      'servers[2].cwd: only a spawned ("command") server takes "cwd"; this one is remote ("url")',
      'servers[3].headers: only a remote ("url") server takes "headers"',
      'servers[4].url: expected a valid url, got "ftp://example.com/mcp"',
    ],
  );
});

test('a valid file: cwd resolved against its folder, python wired, engine and isolation kept', () => {
  const config = parseServeConfig(
    {
      conversationId: 'desk',
      servers: [
        { id: 'files', command: 'node', args: ['s.mjs'], cwd: 'srv' },
        { id: 'remote', url: 'https://tools.example/mcp', headers: { Authorization: 'Bearer t' } },
      ],
      codeExecution: { languages: ['python'], engine: 'quickjs', isolation: 'bwrap', python: '/usr/bin/python3' },
    },
    'toolcell.json',
    '/base',
  );
  assert.deepEqual(config, {
    conversationId: 'desk',
    servers: [
      { id: 'files', command: 'node', args: ['s.mjs'], cwd: '/base/srv' },
      { id: 'remote', url: 'https://tools.example/mcp', headers: { Authorization: 'Bearer t' } },
    ],
    codeExecution: { languages: ['python'], python: { python: '/usr/bin/python3' } },
    runtime: { engine: 'quickjs', isolation: 'bwrap' },
  });
  assert.deepEqual(parseServeConfig({ codeExecution: false }, 'f', '/').codeExecution, false);
});

test('session, interpreter and sandbox-pool bounds are accepted, checked and passed to code_execution', () => {
  const config = parseServeConfig(
    { codeExecution: { sessionIdleMs: 60_000, maxPythonInterpreters: 4, jsPool: { maxProcesses: 3, maxQueued: 10, queueTimeoutMs: 500 } } },
    'toolcell.json',
    '/base',
  );
  assert.deepEqual(config.codeExecution, { sessionIdleMs: 60_000, maxPythonInterpreters: 4, jsPool: { maxProcesses: 3, maxQueued: 10, queueTimeoutMs: 500 } });
  assert.deepEqual(problems({ codeExecution: { sessionIdleMs: 0, maxPythonInterpreters: 1.5, jsPool: { maxProcesses: 0, spare: 1 } } }), [
    'codeExecution.sessionIdleMs: expected a number > 0, got 0',
    'codeExecution.maxPythonInterpreters: expected an integer ≥ 1, got 1.5',
    'codeExecution.jsPool.maxProcesses: expected an integer ≥ 1, got 0',
    'codeExecution.jsPool.spare: unknown key',
  ]);
});

test('prefixTools and required are booleans, kept on the server they name', () => {
  assert.deepEqual(problems({ servers: [{ id: 'a', command: 'x', prefixTools: 'no', required: 1 }] }), [
    'servers[0].prefixTools: expected true or false, got "no"',
    'servers[0].required: expected true or false, got 1',
  ]);
  const config = parseServeConfig({ servers: [{ id: 'a', url: 'http://127.0.0.1:1/mcp', prefixTools: false, required: true }] }, 'f', '/');
  assert.equal(config.servers[0]?.prefixTools, false);
  assert.equal(config.servers[0]?.required, true);
});

test('upstreamSessions takes a mode and a positive bound, kept on the server it names; mistakes are named by path', () => {
  const found = problems({ servers: [{ id: 'a', command: 'x', upstreamSessions: { mode: 'sometimes', max: 0, extra: 1 } }] });
  assert.equal(found.length, 3, found.join('\n'));
  for (const key of ['mode', 'max']) assert.ok(found.some((p) => p.startsWith(`servers[0].upstreamSessions.${key}:`)), found.join('\n'));
  assert.ok(found.some((p) => /upstreamSessions.*extra/.test(p)), found.join('\n'));
  const config = parseServeConfig({ servers: [{ id: 'a', command: 'x', upstreamSessions: { mode: 'shared', max: 4 } }] }, 'f', '/');
  assert.deepEqual(config.servers[0]?.upstreamSessions, { mode: 'shared', max: 4 });
});

test('a remote server\'s auth key selects a provider; mistakes are named by path, one line each', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { TokenFileProvider, ClientCredentialsProvider } = await import('../../src/mcpl/auth/index.ts');
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-auth-config-'));
  writeFileSync(join(dir, 'secret'), 's3cret\n', { mode: 0o600 });
  const config = parseServeConfig(
    {
      servers: [
        { id: 'a', url: 'http://127.0.0.1:1/mcp', auth: { type: 'token_file', path: 'token' } },
        { id: 'b', url: 'http://127.0.0.1:1/mcp', auth: { type: 'client_credentials', clientId: 'cid', clientSecretFile: 'secret' } },
      ],
    },
    'toolcell.json',
    dir,
  );
  const [a, b] = config.servers as { authProvider?: unknown }[];
  assert.ok(a!.authProvider instanceof TokenFileProvider);
  assert.equal((a!.authProvider as InstanceType<typeof TokenFileProvider>).path, join(dir, 'token'));
  assert.ok(b!.authProvider instanceof ClientCredentialsProvider);
  const error = (() => {
    try {
      parseServeConfig(
        { servers: [{ id: 'c', url: 'http://127.0.0.1:1/mcp', auth: { type: 'magic' } }, { id: 'd', command: 'x', auth: { type: 'token_file', path: 'p' } }] },
        'toolcell.json',
        dir,
      );
    } catch (e) {
      return e as Error;
    }
    return undefined;
  })();
  assert.ok(error instanceof ServeConfigError);
  assert.match(error.message, /servers\[0\]\.auth/);
  assert.match(error.message, /servers\[1\]\.auth.*only a remote/);
});

test('codeExecution.caps reach the Python interpreters; null lifts a cap; mistakes are named', () => {
  const config = parseServeConfig({ codeExecution: { caps: { memoryBytes: 536870912, cpuSeconds: null } } }, 'f', '/');
  assert.deepEqual(config.codeExecution && config.codeExecution.caps, { memoryBytes: 536870912, cpuSeconds: Infinity });
  const lines = problems({ codeExecution: { caps: { processes: 0, memory: 1 } } });
  assert.ok(lines.some((l) => /^codeExecution\.caps\.processes: expected an integer ≥ 1, got 0/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /^codeExecution\.caps\.memory: unknown key/.test(l)), lines.join('\n'));
});

test('an interactive auth key is checked strictly: its options reach the provider, mistakes are named by path', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-auth-config-'));
  writeFileSync(join(dir, 'secret'), 's3cret\n', { mode: 0o600 });
  const url = 'http://127.0.0.1:1/mcp';
  const config = parseServeConfig(
    {
      servers: [
        { id: 'dyn', url, auth: { type: 'interactive', scopes: ['files:read'], clientName: 'my-agent' } },
        { id: 'pre', url, auth: { type: 'interactive', clientId: 'cid', clientSecretFile: 'secret', redirectPort: 43123, authorizationTimeoutMs: 60_000 } },
      ],
    },
    'toolcell.json',
    dir,
  );
  const [dyn, pre] = config.servers;
  assert.deepEqual(dyn!.interactiveAuth, { scopes: ['files:read'], clientName: 'my-agent', authorizationTimeoutMs: 300_000 });
  assert.deepEqual(pre!.interactiveAuth, { redirectPort: 43123, clientInformation: { client_id: 'cid', client_secret: 's3cret' }, authorizationTimeoutMs: 60_000 });
  assert.equal((dyn as { authProvider?: unknown }).authProvider, undefined, 'the provider is started by serve, not by parsing');

  const lines = problems({
    servers: [
      { id: 'a', url, auth: { type: 'interactive', clientSecretFile: 'secret' } },
      { id: 'b', url, auth: { type: 'interactive', clientId: 'cid' } },
      { id: 'c', url, auth: { type: 'interactive', clientMetadataUrl: 'http://example.com/client.json', browser: 'firefox' } },
      { id: 'd', url, auth: { type: 'interactive', redirectPort: 70000, scopes: [] } },
    ],
  });
  const text = lines.join('\n');
  assert.match(text, /servers\[0\]\.auth\.clientSecretFile: a client secret belongs to a pre-registered client/);
  assert.match(text, /servers\[1\]\.auth\.redirectPort: a pre-registered client \("clientId"\) needs a fixed "redirectPort"/);
  assert.match(text, /servers\[2\]\.auth\.clientMetadataUrl/);
  assert.match(text, /servers\[2\]\.auth\.browser: unknown key/);
  assert.match(text, /servers\[3\]\.auth\.redirectPort: expected a number ≤ 65535, got 70000/);
  assert.match(text, /servers\[3\]\.auth\.scopes: expected at least 1 item/);
});

test('a private_key_jwt auth key gives the SDK\'s PrivateKeyJwtProvider its key, read at start; mistakes are named by path', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { generateKeyPairSync } = await import('node:crypto');
  const { PrivateKeyJwtProvider } = await import('../../src/mcpl/auth/index.ts');
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-auth-config-'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const url = 'http://127.0.0.1:1/mcp';
  const config = parseServeConfig(
    { servers: [{ id: 'm2m', url, auth: { type: 'private_key_jwt', clientId: 'agent', privateKeyFile: 'key.pem', algorithm: 'ES256', issuer: 'https://auth.example.com' } }] },
    'toolcell.json',
    dir,
  );
  const provider = (config.servers[0] as { authProvider?: unknown }).authProvider as InstanceType<typeof PrivateKeyJwtProvider>;
  assert.ok(provider instanceof PrivateKeyJwtProvider);
  assert.equal(provider.clientInformation().client_id, 'agent');
  assert.equal(provider.clientMetadata.token_endpoint_auth_method, 'private_key_jwt');

  assert.throws(
    () => parseServeConfig({ servers: [{ id: 'm2m', url, auth: { type: 'private_key_jwt', clientId: 'agent', privateKeyFile: 'missing.pem', algorithm: 'ES256' } }] }, 'toolcell.json', dir),
    /auth\.privateKeyFile: cannot read .*missing\.pem: ENOENT/,
  );
  const text = problems({ servers: [{ id: 'm2m', url, auth: { type: 'private_key_jwt', clientId: 'agent', privateKeyFile: 'key.pem', algorithm: 'HS256' } }] }).join('\n');
  assert.match(text, /servers\[0\]\.auth\.algorithm: expected one of "RS256"/);
});

test('a config file that is not JSON is named by line and column, with what was expected and the line under a caret', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-config-json-'));
  const path = join(dir, 'toolcell.json');
  writeFileSync(path, '{\n  "servers": [\n    { "id": "files", "command": "node" }\n    { "id": "web", "url": "https://example.org/mcp" }\n  ]\n}\n');
  const error = (() => {
    try {
      loadServeConfig(path);
    } catch (e) {
      return e as ServeConfigError;
    }
    assert.fail('a file that is not JSON was accepted');
  })();
  assert.ok(error instanceof ServeConfigError);
  assert.deepEqual(error.problems, [
    'not JSON at line 4, column 5: expected "," or "]" after an array element, got "{"',
    '      { "id": "web", "url": "https://example.org/mcp" }',
    '      ^',
  ]);
});

test('jsonErrorPlace finds the first place a text stops being JSON, and nothing in JSON', () => {
  const cases: [string, number, number, RegExp][] = [
    ['{"a": 1,}', 1, 9, /expected a property name in double quotes, got "}"/],
    ['{"a": 1', 1, 8, /expected "," or "}" after a property value, got the end of the file/],
    ['[1, 2]\n x', 2, 2, /expected the end of the file after the value, got "x"/],
    ['{\n\t"a": tru }', 2, 10, /expected "true", got " "/],
    ['{"a": "line\nbreak"}', 1, 12, /a control character must be escaped/],
    ['{"a": 01}', 1, 8, /expected "," or "}" after a property value, got "1"/],
    ['', 1, 1, /expected a value .*, got the end of the file/],
  ];
  for (const [text, line, column, reason] of cases) {
    assert.throws(() => JSON.parse(text), SyntaxError, `${JSON.stringify(text)} is not JSON to JSON.parse either`);
    const at = jsonErrorPlace(text);
    assert.ok(at, JSON.stringify(text));
    assert.deepEqual([at.line, at.column], [line, column], JSON.stringify(text));
    assert.match(at.reason, reason);
  }
  for (const text of ['{}', ' [1, -2.5e+3, "x\\u00e9\\n", true, false, null, {"a": {}}] ', '"s"', '0']) assert.equal(jsonErrorPlace(text), undefined, text);
  assert.match(jsonErrorPlace('['.repeat(600))!.reason, /at most 512 levels of nesting/);
});

test("the http block: allowedOrigins and serve --http's bounds are kept; a non-origin or a bad bound is named by path", () => {
  const config = parseServeConfig({ http: { allowedOrigins: ['https://app.example.com'], maxSessions: 10, maxSessionsPerClient: 2, bodyTimeoutMs: 5000 } }, 'toolcell.json', '/base');
  assert.deepEqual(config.http, { allowedOrigins: ['https://app.example.com'], maxSessions: 10, maxSessionsPerClient: 2, bodyTimeoutMs: 5000 });
  assert.equal(parseServeConfig({}, 'toolcell.json', '/base').http, undefined);
  const lines = problems({ http: { allowedOrigins: ['https://app.example.com/path', 'app.example.com', 'null'], maxSessions: 0, headersTimeoutMs: 'soon', bogus: 1 } });
  assert.deepEqual(lines.filter((l) => l.startsWith('http.allowedOrigins')).length, 3, lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('http.allowedOrigins[0]: must be an origin')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('http.maxSessions: expected an integer ≥ 1')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('http.headersTimeoutMs:')), lines.join('\n'));
  assert.ok(lines.includes('http.bogus: unknown key'), lines.join('\n'));
});

test('store: a URL of a kind toolcell knows; a relative SQLite file is the config file\'s neighbour; a password is not echoed', () => {
  assert.equal(parseServeConfig({ store: 'sqlite:./runs.db' }, 'f', '/base').store, 'sqlite:/base/runs.db');
  assert.equal(parseServeConfig({ store: 'postgres://u@db:5432/x' }, 'f', '/base').store, 'postgres://u@db:5432/x');
  const [line] = problems({ store: 'redis://user:hunter2@cache/0' });
  assert.match(line!, /^store: expected "sqlite:<file>", "postgres:\/\/…" or "memory:", got "redis:\/\/…@cache\/0"$/);
  assert.deepEqual(problems({ store: 5 }).length, 1);
});
