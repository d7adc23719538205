/**
 * Child process of reconnect.test.ts: a host whose server died, waiting out a 60 s reconnect
 * back-off, is closed. The process must then exit by itself, at once: no timer may keep its
 * event loop alive. Prints "closed" once close() resolved.
 */
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { makePeer, scratchDir } from '../helpers/peers.ts';

const host = new ToolHost({ logger: pino({ level: 'silent' }) });
const peer = makePeer(scratchDir(), 'p', { tools: [{ name: 'run' }] });
const connection = await host.connectServer({ ...peer.config, reconnect: { delayMs: 60_000 } });
const closed = new Promise<void>((resolve) => host.once('server-closed', () => resolve()));
connection.kill();
await closed;
await host.close();
process.stdout.write('closed\n');
