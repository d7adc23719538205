/**
 * Durable runs, the code_execution side (docs/durable.md): with a store configured, each run
 * keeps a journal of its inner calls in memory — the tool, the arguments, the outcome the script
 * received — so that when it pauses for a person, serve can store it and any instance can later
 * continue it by running the same script again against the journal: a journaled call is not
 * dispatched again, its recorded outcome is handed back; the script must make the same calls
 * with the same arguments in the same order, or the replay is refused. Nothing is written per
 * call: the journal is read once, at the pause ({@link RunRecorder.snapshot}). With it go the
 * run's random seed and the clock reads the guest reported ({@link RunRecorder.reads}), which a
 * replay serves again so that a script whose calls use them makes the same calls.
 *
 * A resume reaches the `code_execution` call through the async context of the request that
 * carries it ({@link DurableRuns.resuming}), taken by the first such call in it, once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { argumentsDigest } from '../host/arguments-digest.ts';
import type { DispatchOutcome } from '../host/types.ts';
import { randomBytes } from 'node:crypto';
import type { DurableReads } from '../runtime/durable-reads.ts';
import { DURABLE_SETTLE_MS, MAX_CLOCK_READS, MAX_JOURNAL_ENTRIES } from '../store/bounds.ts';
import type { DurableStore } from '../store/types.ts';
import { journalOverBounds, outcomeDigest, type JournalEntry, type JournalOutcome, type RunRecord } from '../store/journal.ts';

/** A call the script made, as the recorder holds it until the pause. */
interface Recorded {
  tool: string;
  args: unknown;
  /** Known at once in a replay (it was checked); otherwise digested at the pause. */
  argumentsDigest?: string;
  outcome?: JournalOutcome;
  outcomeDigest?: string;
  /** Waiting for a person's approval now. */
  pending: boolean;
  running: boolean;
  /** Replayed from an entry that had no outcome: the script got an error, and a later replay gives it again. */
  unknown?: boolean;
}

/** What the binding does with a call: hand back its recorded outcome, fail it (outcome unknown), or dispatch it. */
export type JournalStep =
  | { kind: 'replayed'; outcome: JournalOutcome }
  | { kind: 'unknown' }
  | { kind: 'live'; seq: number };

/** A replay that left its journal: every later call is refused and the run's result says why. */
export class ReplayDivergedError extends Error {
  override readonly name = 'ReplayDivergedError';
}

/** One run's journal, and its replay when the run is a resumed one. */
export class RunRecorder {
  private readonly calls: Recorded[] = [];
  private readonly waiters = new Set<() => void>();
  private running = 0;
  /** Why the replay was refused, once it was. */
  diverged: string | undefined;
  /** Past the entry bound: the run is not made durable. */
  private overflow: string | undefined;

  /** The run's random seed: the journal's on a replay, fresh otherwise. */
  readonly seed: number[];
  /** Every clock read the guest reported in this run, in order (a replay reports the journal's again first). */
  private readonly clockReads: number[] = [];

  constructor(
    readonly toolCallId: string,
    readonly language: string,
    readonly codeDigest: string,
    private readonly replay?: RunRecord,
  ) {
    this.seed = replay?.seed ?? [...new Int32Array(randomBytes(16).buffer)];
  }

  /**
   * What the runtime needs to make the run's clock and random reads replayable: the seed, the
   * journal's clock reads, and where the guest reports its reads. A report that is not a list of
   * finite numbers ends the replay (the guest's prelude sends only those).
   */
  reads(): DurableReads {
    return {
      seed: this.seed,
      clock: this.replay?.clock ?? [],
      onClock: (reads) => {
        // The JS guest keeps no more than the bound and says so (guest/guest-core.js).
        if (reads === 'over') {
          this.overflow ??= `the run read the clock more than ${MAX_CLOCK_READS} times`;
          return;
        }
        if (!Array.isArray(reads) || !reads.every((r) => typeof r === 'number' && Number.isFinite(r))) {
          this.overflow ??= 'the run reported clock reads that are not numbers';
          return;
        }
        if (this.clockReads.length + reads.length > MAX_CLOCK_READS) {
          this.overflow ??= `the run read the clock more than ${MAX_CLOCK_READS} times`;
          return;
        }
        for (const read of reads) this.clockReads.push(read);
      },
    };
  }

  /** The next call of the script: from the journal while the replay lasts, live after it. */
  next(tool: string, args: unknown): JournalStep {
    if (this.diverged !== undefined) throw new ReplayDivergedError(this.diverged);
    const seq = this.calls.length;
    const want = this.replay?.journal[seq];
    if (want !== undefined) {
      let digest: string;
      try {
        digest = argumentsDigest(args);
      } catch (error) {
        digest = `none (${(error as Error).message})`;
      }
      // A call that waited for approval at the pause is compared by tool only: its arguments
      // are checked where it matters, against the digest the person approved (serve's resume).
      if (want.tool !== tool || (want.pending !== true && want.argumentsDigest !== digest)) {
        this.diverged = `replay refused: call ${seq + 1} of the resumed script is ${tool} with arguments ${digest}, but the journal holds ${want.tool} with ${want.argumentsDigest}; nothing more runs`;
        throw new ReplayDivergedError(this.diverged);
      }
      if (want.pending === true) {
        this.calls.push({ tool, args, argumentsDigest: digest, pending: false, running: true });
        this.running += 1;
        return { kind: 'live', seq };
      }
      if (want.outcome === undefined) {
        this.calls.push({ tool, args, argumentsDigest: digest, pending: false, running: false, unknown: true });
        return { kind: 'unknown' };
      }
      this.calls.push({ tool, args, argumentsDigest: digest, outcome: want.outcome, outcomeDigest: want.outcomeDigest!, pending: false, running: false });
      return { kind: 'replayed', outcome: want.outcome };
    }
    if (seq >= MAX_JOURNAL_ENTRIES) this.overflow ??= `the run made more than ${MAX_JOURNAL_ENTRIES} calls`;
    this.calls.push({ tool, args, pending: false, running: true });
    this.running += 1;
    return { kind: 'live', seq };
  }

  /** The call `seq` waits for a person now; the returned function ends the wait. */
  pending(seq: number): () => void {
    const call = this.calls[seq]!;
    call.pending = true;
    this.wake();
    return () => {
      call.pending = false;
    };
  }

  /** The call `seq` ended with `outcome` (what the script receives). */
  finish(seq: number, outcome: DispatchOutcome): void {
    const call = this.calls[seq]!;
    call.outcome = { status: outcome.status, result: outcome.result };
    call.running = false;
    this.running -= 1;
    this.wake();
  }

  /**
   * The journal was stored: the run is over here (serve ends it), and a call it would still
   * make is refused, so nothing runs in this process that the resumed run would run again.
   */
  freeze(): void {
    this.diverged ??= 'the run was paused and stored; it continues where it is resumed';
  }

  /** Whether the replay reached the end of its journal (a resume that stops short of it was not the same run). */
  get replayComplete(): boolean {
    return this.replay === undefined || this.calls.length >= this.replay.journal.length;
  }

  /** Journaled calls of the replay. */
  get replayLength(): number {
    return this.replay?.journal.length ?? 0;
  }

  /**
   * The journal as it stands at a pause: first waits (at most `settleMs`) for calls that are
   * running — not waiting for approval — to end, so their outcomes are kept; one still running
   * then is journaled without an outcome. Undefined with the reason when over the bounds.
   */
  async snapshot(settleMs = DURABLE_SETTLE_MS): Promise<{ journal: JournalEntry[]; seed: number[]; clock: number[] } | { refused: string }> {
    const deadline = Date.now() + settleMs;
    while (this.calls.some((c) => c.running && !c.pending) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
    if (this.overflow !== undefined) return { refused: this.overflow };
    const journal: JournalEntry[] = [];
    let bytes = 0;
    for (const call of this.calls) {
      const entry: JournalEntry = { tool: call.tool, argumentsDigest: call.argumentsDigest ?? digestOrNone(call.args) };
      if (call.outcome !== undefined) {
        entry.outcome = call.outcome;
        entry.outcomeDigest = call.outcomeDigest ?? outcomeDigest(call.outcome);
        bytes += Buffer.byteLength(JSON.stringify(call.outcome.result), 'utf8');
      } else if (call.pending) entry.pending = true;
      journal.push(entry);
    }
    const over = journalOverBounds(journal.length, bytes);
    return over !== undefined ? { refused: over } : { journal, seed: this.seed, clock: [...this.clockReads] };
  }

  private wake(): void {
    for (const done of [...this.waiters]) done();
    this.waiters.clear();
  }
}

function digestOrNone(args: unknown): string {
  try {
    return argumentsDigest(args);
  } catch (error) {
    return `none (${(error as Error).message})`;
  }
}

interface ResumeContext {
  record: RunRecord;
  taken: boolean;
}

const resumes = new AsyncLocalStorage<ResumeContext>();

/**
 * The durable runs of one host (`registerCodeExecution({ durable })`, serve with a `store`): the
 * journal of each run in flight, by its `code_execution` call id, and the resume a request
 * carries.
 */
export class DurableRuns {
  private readonly recorders = new Map<string, RunRecorder>();

  /**
   * `store`: where `code_execution` also keeps the result types it learns (learned-persist.ts),
   * loaded at start and saved when they change. Without one they stay in this process.
   */
  constructor(readonly store?: DurableStore) {}

  /** Runs `fn` (the request that continues a paused run) with `record` as the run its `code_execution` call resumes. */
  resuming<T>(record: RunRecord, fn: () => T): T {
    return resumes.run({ record, taken: false }, fn);
  }

  /** The run the current request resumes, while its `code_execution` call has not started yet. */
  peekResume(): RunRecord | undefined {
    const context = resumes.getStore();
    return context && !context.taken ? context.record : undefined;
  }

  /** Takes the current request's resume (once: a second `code_execution` call in it is a new run). */
  takeResume(): RunRecord | undefined {
    const context = resumes.getStore();
    if (!context || context.taken) return undefined;
    context.taken = true;
    return context.record;
  }

  /** Starts the journal of the run `toolCallId` (a replay of `replay` when it resumes one). */
  begin(toolCallId: string, language: string, codeDigest: string, replay?: RunRecord): RunRecorder {
    const recorder = new RunRecorder(toolCallId, language, codeDigest, replay);
    this.recorders.set(toolCallId, recorder);
    return recorder;
  }

  /** The run ended: its journal goes. */
  end(toolCallId: string): void {
    this.recorders.delete(toolCallId);
  }

  /** The journal of the run in flight under `toolCallId`. */
  recorder(toolCallId: string): RunRecorder | undefined {
    return this.recorders.get(toolCallId);
  }
}

/** The `code_execution` call id the current request resumes, before its call has started (serve keeps the id). */
export function resumedCallId(): string | undefined {
  const context = resumes.getStore();
  return context && !context.taken ? context.record.toolCallId : undefined;
}
