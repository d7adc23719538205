/**
 * Child process of listen.test.ts: a host listening to a 2026 server (the SDK v2 fixture) whose
 * stream the server just ended, so a re-listen waits out its back-off, is closed. The process
 * must then exit by itself: no re-listen, acknowledgement or back-off timer may keep it alive.
 * Prints "retrying" once the re-listen waits, "closed" once close() resolved.
 */
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { REPO_ROOT } from '../helpers/peers.ts';

const host = new ToolHost({ logger: pino({ level: 'silent' }) });
const connection = await host.connectServer({ id: 'v2', command: process.execPath, args: [join(REPO_ROOT, 'test', 'mcpl', 'fixtures', 'v2-changing-server.mjs')], protocolEra: 'auto' });
const ended = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--end_listens', input: {} });
if (ended.status !== 'completed') throw new Error(`end_listens: ${ended.status}`);
// The server's `complete` result was written before the call's answer: the back-off is running.
if (!connection.listenStatus?.retrying) throw new Error(`not retrying: ${JSON.stringify(connection.listenStatus)}`);
process.stdout.write('retrying\n');
await host.close();
process.stdout.write('closed\n');
