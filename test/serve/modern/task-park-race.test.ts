/**
 * A 2026 task is never answered `input_required` without its `inputRequests` (issue 43): not by
 * another instance reading its row, and not by the instance holding it while it parks the task.
 *
 * In process, on a memory store: a real Exchange (an SDK server whose tool asks one elicitation)
 * driven by ModernTasks with a StoredTasks; the durable pause is a stand-in that parks when the
 * test lets it. The owner's `tasks/get` is held at its store read (the "ended elsewhere" check)
 * while the park happens, then let go: it must answer from what the task is now, not from the
 * record that left during its read (whose exchange and requests are gone).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { MemoryStore } from '../../../src/store/memory.ts';
import type { StoredScript } from '../../../src/store/types.ts';
import { Exchange } from '../../../src/serve/modern/exchange.ts';
import { ModernTasks } from '../../../src/serve/modern/tasks.ts';
import { StoredTasks, type DetailedTask } from '../../../src/serve/modern/stored-tasks.ts';
import type { DurablePauses } from '../../../src/serve/modern/durable.ts';
import type { RequestMeta } from '../../../src/serve/modern/wire.ts';

const logger = pino({ level: 'silent' });
const CALLER = 'caller-a';
const META: RequestMeta = { protocolVersion: '2026-07-28', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'race', version: '1.0.0' }, logLevel: undefined };

/** A promise and its resolve, to order the steps by events. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A memory store whose reads can be held, and which lets `onWrite` see every row write. */
class HeldStore extends MemoryStore {
  holdReads: Promise<void> | undefined;
  readHeld = signal();
  onWrite: (id: string) => Promise<void> = async () => {};

  override async getScript(id: string): Promise<StoredScript | undefined> {
    if (this.holdReads !== undefined) {
      this.readHeld.resolve();
      await this.holdReads;
    }
    return super.getScript(id);
  }

  override async putScript(script: StoredScript): Promise<void> {
    await super.putScript(script);
    await this.onWrite(script.id);
  }

  override async replaceRunningScript(script: StoredScript): Promise<boolean> {
    const done = await super.replaceRunningScript(script);
    await this.onWrite(script.id);
    return done;
  }
}

/** A server whose one tool asks the client one question and then answers. */
function asking(): Server {
  const server = new Server({ name: 'asking', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async () => {
    await server.elicitInput({ message: 'send it?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [{ type: 'text', text: 'sent' }] };
  });
  return server;
}

const askedOf = (task: DetailedTask) => Object.keys((task.inputRequests ?? {}) as object);

test('a task being parked is never answered input_required without its inputRequests — at its own instance (a tasks/get across the park) or at another (its row)', async () => {
  const store = new HeldStore();
  const reader = new StoredTasks(store, logger);
  const seen: DetailedTask[] = [];
  // Another instance reads the row after every write.
  store.onWrite = async (id) => void seen.push((await reader.read(id, CALLER))!);
  const parkAsked = signal();
  const letPark = signal<string>();
  const pauses = {
    park: async () => {
      parkAsked.resolve();
      return letPark.promise;
    },
    forget: async () => {},
  } as unknown as DurablePauses;
  const stored = new StoredTasks(store, logger);
  const tasks = new ModernTasks(stored, { pauses, logger, reopen: () => Promise.reject(new Error('not resumed in this test')) });
  const request: JSONRPCRequest = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'send', arguments: {} } };
  const exchange = await Exchange.start(asking(), META, request);
  const released = signal();
  const created = await tasks.start(CALLER, exchange, META, () => released.resolve());
  const taskId = created.taskId as string;
  await parkAsked.promise;

  // The owner's tasks/get finds the task held (working) and reads the store; the park happens meanwhile.
  const opened = signal();
  store.holdReads = opened.promise;
  const got = tasks.get(CALLER, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } });
  await store.readHeld.promise;
  store.holdReads = undefined;
  letPark.resolve('run-1');
  await released.promise; // the run ended here: its exchange closed, its record gone
  opened.resolve();
  const answered = (await got) as DetailedTask;

  const parkedRow = await reader.read(taskId, CALLER);
  assert.equal(parkedRow?.status, 'input_required', JSON.stringify(parkedRow));
  assert.equal(askedOf(parkedRow!).length, 1, 'the parked row lists its request');
  assert.ok(answered.status !== 'input_required' || askedOf(answered).length > 0, `the owner answered input_required without inputRequests: ${JSON.stringify(answered)}`);
  assert.deepEqual(askedOf(answered), askedOf(parkedRow!), 'the owner answers what the row says');
  assert.deepEqual(seen.map((t) => t.status), ['working', 'input_required'], 'the reader saw each write: the task created, then parked');
  for (const task of seen) assert.ok(task.status !== 'input_required' || askedOf(task).length > 0, `another instance read input_required without inputRequests: ${JSON.stringify(task)}`);
  await tasks.close();
});
