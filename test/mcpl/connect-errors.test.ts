/**
 * What an operator reads when a server cannot be used: the failing request is named, the
 * server's stderr is labelled as such, a misconfigured grant is refused before anything is
 * spawned, and routine per-tool class notes stay below the default log level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { serverConfigErrors } from '../../src/mcpl/config.ts';
import { ConnectError } from '../../src/index.ts';
import { officialServer } from '../real-servers/servers.ts';

const silent = () => pino({ level: 'silent' });

test('a server that exits while starting: the error names the request and labels the stderr tail', async () => {
  const host = new ToolHost({ logger: silent() });
  const script = "console.error('loading config'); console.error('fatal: API_KEY is not set'); process.exit(2)";
  await assert.rejects(host.connectServer({ id: 'bad', command: process.execPath, args: ['-e', script] }), (error: Error) => {
    assert.match(error.message, /^server bad failed to start: initialize failed: .*Connection closed\nserver stderr \(last lines\):\nloading config\nfatal: API_KEY is not set$/);
    return true;
  });
  assert.equal(host.server('bad'), undefined);
  await host.close();
});

test('a grant naming no known capability path is refused before anything is spawned', async () => {
  const host = new ToolHost({ logger: silent() });
  // The command does not exist: had it been spawned, the error would be ENOENT.
  const config = { id: 'obs', command: '/nonexistent/server', policy: { enabledCapabilities: ['toolLifecycle', 'toolLifecycle.observ', 'toolLifecycle.*'] } };
  await assert.rejects(host.connectServer(config), (error: Error) => {
    assert.match(error.message, /^server "obs" is misconfigured: /);
    assert.match(error.message, /"toolLifecycle" names no known capability path/);
    assert.match(error.message, /"toolLifecycle\.observ" names no known capability path/);
    assert.doesNotMatch(error.message, /ENOENT/);
    assert.equal(error.message.match(/names no known capability path/g)!.length, 2, 'toolLifecycle.* is a valid entry');
    return true;
  });
  assert.deepEqual(serverConfigErrors({ id: 'a--b', command: 'x' }), ['id: "a--b" must not contain "--" (it separates the server id from its tool names)']);
  assert.equal(serverConfigErrors({ id: 'r', url: 'ftp://example.org' } as never).length, 1);
  assert.equal(serverConfigErrors({ id: 'r', command: 'x', url: 'http://127.0.0.1/mcp' } as never).length, 1);
  await host.close();
});

test("per-tool 'unclassed' notes of a plain MCP server are debug, not info", async () => {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const host = new ToolHost({ logger: pino({ level: 'debug' }, sink) });
  try {
    await host.connectServer(officialServer('everything', 'ev').config);
    const unclassed = lines.filter((l) => /unclassed/.test(l.msg));
    assert.ok(unclassed.length >= 5, 'every tool of server-everything is unclassed');
    assert.ok(unclassed.every((l) => l.level === 20), 'logged at debug');
  } finally {
    await host.close();
  }
});

/** A loopback port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

test('connect failures are ConnectErrors with a code: spawn_failed, connection_refused, unauthorized, timeout, initialize_failed', async () => {
  const host = new ToolHost({ logger: silent() });
  const http401 = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { 'content-type': 'text/plain' }).end('no token');
  });
  http401.listen(0, '127.0.0.1');
  await once(http401, 'listening');
  try {
    const expect = async (config: Parameters<ToolHost['connectServer']>[0], code: string, text: RegExp) => {
      await assert.rejects(host.connectServer(config), (error: unknown) => {
        assert.ok(error instanceof ConnectError, `${code}: a ConnectError`);
        assert.equal(error.code, code);
        assert.equal(error.serverId, config.id);
        assert.match(error.message, text);
        return true;
      });
      assert.equal(host.server(config.id), undefined);
    };
    await expect({ id: 'nocmd', command: '/nonexistent/mcp-server' }, 'spawn_failed', /could not spawn \/nonexistent\/mcp-server: ENOENT/);
    const port = await closedPort();
    const refused = `http://127.0.0.1:${port}/mcp`;
    await expect({ id: 'refused', url: refused }, 'connection_refused', new RegExp(`could not connect to ${refused.replace(/[.]/g, '\\.')}: .*ECONNREFUSED`));
    await assert.rejects(host.connectServer({ id: 'refused2', url: refused }), (error: Error) => !/Connection closed/.test(error.message));
    const url401 = `http://127.0.0.1:${(http401.address() as AddressInfo).port}/mcp`;
    await expect({ id: 'locked', url: url401 }, 'unauthorized', /initialize failed: .* answered 401 Unauthorized/);
    // Reads its stdin and never answers.
    await expect({ id: 'mute', command: process.execPath, args: ['-e', 'process.stdin.resume()'], requestTimeoutMs: 300 }, 'timeout', /initialize failed: no answer in time/);
    await expect({ id: 'quits', command: process.execPath, args: ['-e', 'process.exit(3)'] }, 'initialize_failed', /initialize failed: .*Connection closed/);
  } finally {
    http401.close();
    await host.close();
  }
});
