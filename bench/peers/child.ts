/**
 * The processes bench:peers starts: a subject process (subject-main.ts) driven over IPC, and the
 * two busy loops of the loaded run.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import type { SubjectName } from './subjects.ts';

/** The longest a subject may stay silent: far above any workload's time at load 20. */
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 180_000);
/** CPUs the subject processes are held to (`taskset -c`), or undefined: any. */
export const CPUS = process.env.BENCH_CPUS;

/** A subject process and a way to wait for its next message of a type. */
export class Child {
  readonly process: ChildProcess;
  /** performance.now() of this process when the child was spawned. */
  readonly spawnedAt: number;
  private readonly inbox: Array<Record<string, unknown>> = [];
  private waiting: (() => void) | null = null;
  private exited = false;

  constructor(main: string, mode: 'serve' | 'cold' | 'rss', readonly subject: SubjectName) {
    // stdout ignored: utcp's client logs a line per tool call, which is its own cost to pay
    // but not ours to print. stderr stays visible.
    const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
    this.spawnedAt = performance.now();
    // taskset execs node in place: the pid, the IPC channel and the tree stay the subject's.
    this.process =
      CPUS === undefined ? fork(main, [mode, subject], { execArgv: [], stdio }) : spawn('taskset', ['-c', CPUS, process.execPath, main, mode, subject], { stdio });
    this.process.on('message', (m: Record<string, unknown>) => {
      this.inbox.push(m);
      this.waiting?.();
    });
    this.process.on('exit', () => {
      this.exited = true;
      this.waiting?.();
    });
  }

  /**
   * The next message; `absent` and `failed` come back as they are for the caller to judge. A
   * subject silent for `STALL_MS` is killed and named: a hung peer must not hang the bench.
   */
  async next(): Promise<Record<string, unknown>> {
    while (this.inbox.length === 0) {
      if (this.exited) throw new Error(`${this.subject} exited without answering`);
      let stalled = false;
      const timer = setTimeout(() => {
        stalled = true;
        this.process.kill('SIGKILL');
      }, STALL_MS);
      await new Promise<void>((resolve) => (this.waiting = resolve));
      clearTimeout(timer);
      this.waiting = null;
      if (stalled && this.inbox.length === 0) throw new Error(`${this.subject} gave no answer in ${STALL_MS / 1000} s and was killed`);
    }
    return this.inbox.shift()!;
  }

  async expect(type: string): Promise<Record<string, unknown>> {
    const m = await this.next();
    if (m.type === 'failed') throw new Error(`${this.subject}: ${String(m.message)}`);
    if (m.type !== type) throw new Error(`${this.subject}: expected ${type}, got ${JSON.stringify(m)}`);
    return m;
  }

  send(message: Record<string, unknown>): void {
    this.process.send(message);
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    // A child that has finished (cold mode) disconnects on its own: the race with this message
    // is expected, so its send error is taken by the callback rather than thrown as an event.
    if (this.process.connected) this.process.send({ type: 'close' }, () => {});
    // The child bounds its own close (subject-main.ts); this only catches one that cannot exit.
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 30_000);
    await gone;
    clearTimeout(timer);
  }
}

/** Two busy loops in processes of their own, as the loaded machine. */
export function startBusyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

export async function stopBusyLoops(loops: ChildProcess[]): Promise<void> {
  await Promise.all(
    loops.map(
      (loop) =>
        new Promise<void>((resolve) => {
          if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
          loop.once('exit', () => resolve());
          loop.kill('SIGKILL');
        }),
    ),
  );
}
