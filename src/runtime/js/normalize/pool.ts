/**
 * The threads that prepare scripts off the host's thread (./worker.ts): TypeScript stripping
 * (amaro: swc in WebAssembly, whose cost grows faster than the script — 43 KB of parameter
 * properties took 9 s — and whose stack a deeply nested script overflows) and every step
 * whose cost at the size limit is not provably small (acorn on 256 KiB of regular expression
 * literals: ~0.5 s). The host's event loop only posts a script and reads the answer.
 *
 * Bounds (docs/security.md, "Host-side bounds"): one preparation runs at most
 * {@link NORMALIZE_TIME_LIMIT_MS} on its thread, which is then terminated and replaced; a thread
 * that failed in any way but a script's own syntax error is terminated and never used again, so
 * a broken amaro instance is never shared; at most {@link NORMALIZE_THREADS} threads, and a
 * conversation has at most one preparation on a thread at a time (its others queue behind it,
 * not in front of other conversations'), so another conversation waits for a thread at most
 * one time limit per conversation queued ahead of it, divided among the threads.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { FenceLanguage } from './fence.ts';
import type { PreparedScript } from './script.ts';
import type { PrepareReply, PrepareRequest } from './worker.ts';

/**
 * Longest one script's preparation may run on its thread. Stripping a 256 KiB TypeScript script
 * without pathological constructs takes ~0.1 s (bench/scripts.ts measures 200 lines at ~1 ms),
 * so 5 s leaves a wide margin for a loaded machine while ending an attack well before the run's
 * own time limit would.
 */
export const NORMALIZE_TIME_LIMIT_MS = 5_000;
/** Threads at most: two preparations at once; a third conversation's waits (see the header). */
export const NORMALIZE_THREADS = 2;
/**
 * Longest a thread may take to start (load acorn and the normalizers; amaro loads on the first
 * TypeScript script, inside the time limit). ~30 ms from the compiled package, ~0.7 s under
 * tsx, several times that on a loaded machine: a start that never comes still ends.
 */
export const NORMALIZE_START_LIMIT_MS = 30_000;
/** The thread's own V8 heap: a 256 KiB script's syntax tree and strings, with room. */
const THREAD_HEAP_MB = 256;

const WORKER = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url));
const ENTRY = fileURLToPath(new URL('./worker-entry.mjs', import.meta.url));

/** A prepared script, or why none could be prepared (a clear sentence for the model). */
export type PrepareOutcome = { ok: true; prepared: PreparedScript } | { ok: false; message: string };

interface Job {
  code: string;
  language: FenceLanguage;
  conversation: string;
  retried: boolean;
  resolve: (outcome: PrepareOutcome) => void;
}

class PrepareThread {
  readonly worker: Worker;
  readonly ready: Promise<boolean>;
  /** Preparations this thread has answered: a failure after some may be an earlier script's doing. */
  served = 0;
  dead = false;
  private nextId = 0;
  private pending: { id: number; settle: (reply: PrepareReply | { id: number; ok: false; message: string; fatal: true }) => void } | undefined;

  constructor(onDeath: (thread: PrepareThread) => void) {
    this.worker = new Worker(ENTRY, {
      workerData: { entry: WORKER },
      env: {},
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    this.worker.unref();
    let started: (ok: boolean) => void;
    this.ready = new Promise((resolve) => (started = resolve));
    this.worker.on('message', (reply: PrepareReply) => {
      if ('ready' in reply) return started(true);
      if (this.pending?.id !== reply.id) return;
      const { settle } = this.pending;
      this.pending = undefined;
      this.served++;
      settle(reply);
    });
    const die = (message: string) => {
      if (this.dead) return;
      this.dead = true;
      started(false);
      const pending = this.pending;
      this.pending = undefined;
      pending?.settle({ id: pending.id, ok: false, message, fatal: true });
      onDeath(this);
    };
    this.worker.once('error', (error: Error) => {
      const oom = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      die(oom ? `the script's preparation ran out of memory (its thread's heap limit of ${THREAD_HEAP_MB} MiB)` : `the script's preparation failed: ${error.message}`);
    });
    this.worker.once('exit', (code) => die(`the preparing thread exited (exit code ${code})`));
  }

  /** The thread's answer for one script; the caller bounds the wait. */
  prepare(code: string, language: FenceLanguage): Promise<PrepareReply | { id: number; ok: false; message: string; fatal: true }> {
    const id = ++this.nextId;
    return new Promise((settle) => {
      this.pending = { id, settle };
      this.worker.ref();
      this.worker.postMessage({ id, code, language } satisfies PrepareRequest);
    }).finally(() => this.worker.unref()) as Promise<PrepareReply | { id: number; ok: false; message: string; fatal: true }>;
  }

  /** Ends the thread; it is never used again. */
  end(): Promise<unknown> {
    this.dead = true;
    return this.worker.terminate();
  }
}

/** See the file header. One per `code_execution` tool; `close()` ends its threads. */
export class NormalizePool {
  private readonly idle: PrepareThread[] = [];
  private readonly all = new Set<PrepareThread>();
  private readonly queue: Job[] = [];
  /** Conversations with a preparation on a thread now. */
  private readonly active = new Set<string>();
  private closed = false;

  /** @param timeLimitMs longest one preparation may run on its thread (tests shorten it) */
  constructor(private readonly timeLimitMs = NORMALIZE_TIME_LIMIT_MS) {}

  /** Threads alive now (tests watch a broken one go). */
  get threads(): number {
    return this.all.size;
  }

  /** `code` prepared on a thread of the pool; never rejects. */
  prepare(code: string, language: FenceLanguage, conversation: string): Promise<PrepareOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, message: 'code_execution is closing; the script was not run.' });
    return new Promise((resolve) => {
      this.queue.push({ code, language, conversation, retried: false, resolve });
      this.pump();
    });
  }

  /** Ends every thread; preparations not done end with a message. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ ok: false, message: 'code_execution is closing; the script was not run.' });
    await Promise.all([...this.all].map((thread) => thread.end()));
    this.all.clear();
    this.idle.length = 0;
  }

  private pump(): void {
    while (!this.closed && (this.idle.length > 0 || this.all.size < NORMALIZE_THREADS)) {
      const at = this.queue.findIndex((job) => !this.active.has(job.conversation));
      if (at === -1) return;
      const [job] = this.queue.splice(at, 1) as [Job];
      const thread = this.idle.pop() ?? this.start();
      this.active.add(job.conversation);
      void this.run(thread, job);
    }
  }

  private start(): PrepareThread {
    const thread = new PrepareThread((dead) => this.retire(dead));
    this.all.add(thread);
    return thread;
  }

  private retire(thread: PrepareThread): void {
    this.all.delete(thread);
    const at = this.idle.indexOf(thread);
    if (at !== -1) this.idle.splice(at, 1);
    if (!thread.dead) void thread.end();
    else void thread.worker.terminate();
  }

  private async run(thread: PrepareThread, job: Job): Promise<void> {
    let outcome: PrepareOutcome | undefined;
    try {
      const started = await bounded(thread.ready, NORMALIZE_START_LIMIT_MS);
      if (started !== true) {
        this.retire(thread);
        outcome = { ok: false, message: `the thread that prepares scripts did not start within ${NORMALIZE_START_LIMIT_MS} ms; the script was not run.` };
        return;
      }
      const served = thread.served;
      const reply = await bounded(thread.prepare(job.code, job.language), this.timeLimitMs);
      if (reply === undefined) {
        // Past its time: the thread is stopped wherever it is, and replaced on demand.
        this.retire(thread);
        outcome = { ok: false, message: `preparing the script (fence, parse, TypeScript stripping) took longer than ${this.timeLimitMs} ms, its limit; the script was not run. Simplify it (fewer nested or TypeScript-only constructs), or write it as plain JavaScript.` };
        return;
      }
      if ('ready' in reply) throw new Error('unreachable: a second ready');
      if (reply.ok) {
        this.idle.push(thread);
        outcome = { ok: true, prepared: reply.prepared };
        return;
      }
      // Any failure may have left the thread's amaro broken: it goes, whatever it was.
      this.retire(thread);
      if (served > 0 && !job.retried) {
        // The thread had prepared other scripts first: the failure may be theirs (a broken
        // instance), so this script gets one try on a fresh thread before it is blamed.
        this.queue.unshift({ ...job, retried: true });
        return;
      }
      outcome = { ok: false, message: `the script could not be prepared (${reply.message}); the script was not run. Simplify it (less deeply nested), or write it as plain JavaScript.` };
    } finally {
      this.active.delete(job.conversation);
      if (outcome !== undefined) job.resolve(outcome);
      this.pump();
    }
  }
}

/** `promise`'s value, or undefined once `ms` have passed (a rejection counts as undefined too). */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const settle = (value: T | undefined) => {
      clearTimeout(timer);
      resolve(value);
    };
    promise.then(settle, () => settle(undefined));
  });
}
