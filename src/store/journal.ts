/**
 * What a paused run keeps in the store, and the checks a resume makes before trusting it:
 * - the journal: each inner call the script made, in the order it made them, with the tool, the
 *   digest of its arguments and — when it had ended — the outcome the script received (and that
 *   outcome's digest); a call still running at the pause has no outcome;
 * - the approvals the client was asked for, each with the digest of exactly what it approves;
 * - a digest over all of it, bound to the run's id, checked on resume (a row cut short, changed
 *   by hand, or copied from another run is refused; the store itself is trusted by whoever can
 *   write it — see docs/durable.md).
 * Bounded: {@link MAX_JOURNAL_ENTRIES} calls and {@link MAX_JOURNAL_BYTES} bytes per run.
 */
import { argumentsDigest, canonicalJson, textDigest } from '../host/arguments-digest.ts';
import type { DispatchStatus, ToolResult } from '../host/types.ts';
import { MAX_CLOCK_READS, MAX_JOURNAL_BYTES, MAX_JOURNAL_ENTRIES } from './bounds.ts';

/** The outcome of one inner call as the script received it. */
export interface JournalOutcome {
  status: DispatchStatus;
  result: ToolResult;
}

/** One inner call of the script. */
export interface JournalEntry {
  tool: string;
  argumentsDigest: string;
  /** Absent: the call was still running (or waiting for approval) when the run paused. */
  outcome?: JournalOutcome;
  /** Digest of `outcome`, written when it was recorded. */
  outcomeDigest?: string;
  /** Set on a call that was waiting for a person's approval at the pause: it runs (again asked) on resume. */
  pending?: true;
}

/** An approval the client was asked for at the pause, under the key its answer comes back with. */
export interface PendingApproval {
  key: string;
  kind: 'call' | 'script';
  /** The gated tool (`call`). */
  tool?: string;
  /** `call`: the arguments' digest; `script`: the script's. The answer applies only to this digest. */
  digest: string;
}

/** A paused run, as stored. */
export interface RunRecord {
  version: 1;
  /** The `code_execution` call's id: the resumed call keeps it. */
  toolCallId: string;
  language: string;
  /** Digest of the normalized script that ran: a resume runs the same script or nothing. */
  codeDigest: string;
  journal: JournalEntry[];
  /** The run's random seed (four 32-bit words): the replay draws the same numbers. Absent in records written before it was kept. */
  seed?: number[];
  /** The clock reads the run made, in order: the replay reads them again, then the live clock. */
  clock?: number[];
  approvals: PendingApproval[];
  /** Digest of everything above with the run's id (see {@link sealRecord}). */
  seal: string;
}

/** A stored run that cannot be trusted, or a replay that does not follow its journal. */
export class ReplayRefusedError extends Error {
  override readonly name = 'ReplayRefusedError';
}

/** The digest of one outcome, as recorded. */
export function outcomeDigest(outcome: JournalOutcome): string {
  return argumentsDigest(outcome);
}

/** A journal over its bounds cannot be made durable: the reason, or undefined when within them. */
export function journalOverBounds(entries: number, bytes: number): string | undefined {
  if (entries > MAX_JOURNAL_ENTRIES) return `the run made ${entries} calls, over the journal's ${MAX_JOURNAL_ENTRIES}`;
  if (bytes > MAX_JOURNAL_BYTES) return `the run's results take ${bytes} bytes, over the journal's ${MAX_JOURNAL_BYTES}`;
  return undefined;
}

function sealOf(id: string, record: Omit<RunRecord, 'seal'>): string {
  return textDigest(`${id}\n${canonicalJson({ ...record })}`);
}

/** The record to store for run `id`, sealed. */
export function sealRecord(id: string, record: Omit<RunRecord, 'seal'>): RunRecord {
  return { ...record, seal: sealOf(id, record) };
}

/**
 * Reads a stored record for run `id` and checks it: its shape, each outcome against the digest
 * written with it, and the seal. Throws {@link ReplayRefusedError} saying what does not hold.
 */
export function openRecord(id: string, data: string): RunRecord {
  let record: RunRecord;
  try {
    record = JSON.parse(data) as RunRecord;
  } catch (error) {
    throw new ReplayRefusedError(`the stored run is not JSON: ${(error as Error).message}`);
  }
  if (record?.version !== 1 || !Array.isArray(record.journal) || !Array.isArray(record.approvals) || typeof record.toolCallId !== 'string') {
    throw new ReplayRefusedError('the stored run is not a run record toolcell wrote');
  }
  const words = (v: unknown, n?: number) => Array.isArray(v) && (n === undefined || v.length === n) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  if ((record.seed !== undefined && !words(record.seed, 4)) || (record.clock !== undefined && !words(record.clock))) {
    throw new ReplayRefusedError('the stored run\'s seed or clock reads are not numbers');
  }
  if (record.clock !== undefined && record.clock.length > MAX_CLOCK_READS) throw new ReplayRefusedError(`the stored run holds more than ${MAX_CLOCK_READS} clock reads`);
  const bounds = journalOverBounds(record.journal.length, Buffer.byteLength(data, 'utf8'));
  if (bounds !== undefined) throw new ReplayRefusedError(`the stored run is over its bounds: ${bounds}`);
  record.journal.forEach((entry, index) => {
    if (entry.outcome !== undefined && outcomeDigest(entry.outcome) !== entry.outcomeDigest) {
      throw new ReplayRefusedError(`journal entry ${index + 1} (${entry.tool}) holds a result other than the one recorded (${entry.outcomeDigest}); the run is not resumed`);
    }
  });
  const { seal, ...rest } = record;
  if (sealOf(id, rest) !== seal) throw new ReplayRefusedError('the stored run does not match its seal (changed, cut short, or another run\'s); the run is not resumed');
  return record;
}
