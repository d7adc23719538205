/**
 * Durable pauses of 2026-era requests (docs/durable.md). With a store, a `code_execution` call
 * that waits for its client's approval is not kept in this process: its journal (the inner calls
 * and the outcomes its script received) and the approvals asked go to the store under the
 * `requestState` handed out, the run here is ended, and the client's retry — at this instance or
 * any other on the same store — takes it from the store once (compare-and-set), runs the same
 * script again against its journal, and answers the approvals the run asks again with the
 * client's answers, each only for the exact digest it was given for.
 *
 * Only pauses made of toolcell's own approval requests are stored; a provider's elicitation,
 * sampling or roots request waits in memory as without a store.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DurableRuns } from '../../code-execution/durable-runs.ts';
import { DURABLE_RUN_TTL_MS } from '../../store/bounds.ts';
import { openRecord, ReplayRefusedError, sealRecord, type PendingApproval, type RunRecord } from '../../store/journal.ts';
import type { DurableStore } from '../../store/types.ts';
import { APPROVAL_META_KEY } from '../../approvals/elicitation-gate.ts';
import type { Exchange, InputRequest } from './exchange.ts';

/** The approval an input request asks for, read from toolcell's own `_meta`; undefined for anything else. */
function approvalOf(request: InputRequest): { kind: 'call' | 'script'; tool?: string; digest: string; parent: string } | undefined {
  if (request.method !== 'elicitation/create') return undefined;
  const meta = (request.params?._meta as Record<string, unknown> | undefined)?.[APPROVAL_META_KEY] as Record<string, unknown> | undefined;
  if (!meta) return undefined;
  if (meta.kind === 'call' && typeof meta.argumentsDigest === 'string' && typeof meta.parentToolCallId === 'string') {
    const tool = (meta.tools as { tool?: unknown }[] | undefined)?.[0]?.tool;
    return { kind: 'call', ...(typeof tool === 'string' ? { tool } : {}), digest: meta.argumentsDigest, parent: meta.parentToolCallId };
  }
  if (meta.kind === 'script' && typeof meta.codeDigest === 'string' && typeof meta.parentToolCallId === 'string') {
    return { kind: 'script', digest: meta.codeDigest, parent: meta.parentToolCallId };
  }
  return undefined;
}

/** A run taken from the store, with the client's answers to its approvals. */
export interface TakenRun {
  record: RunRecord;
  /** The client's answer for each stored approval not used yet. */
  answers: Map<PendingApproval, unknown>;
}

export class DurablePauses {
  /** This instance's name in the store's `owner` column (for whoever reads the store). */
  readonly owner = `toolcell-${randomUUID()}`;

  constructor(
    /** The store (also where the tasks extension's tasks are kept: stored-tasks.ts). */
    readonly store: DurableStore,
    readonly runs: DurableRuns,
    private readonly logger: Logger,
    private readonly ttlMs = DURABLE_RUN_TTL_MS,
  ) {}

  /**
   * Stores the run waiting on `requests` and returns the `requestState` to hand out, or
   * undefined when this pause cannot be stored (not only toolcell's approvals, the journal over
   * its bounds, the store full or failing: the exchange then waits in memory as without a store).
   */
  async park(binding: string, requests: ReadonlyMap<string, InputRequest>): Promise<string | undefined> {
    const approvals: PendingApproval[] = [];
    let parent: string | undefined;
    for (const [key, request] of requests) {
      const approval = approvalOf(request);
      if (!approval || (parent !== undefined && approval.parent !== parent)) return undefined;
      parent = approval.parent;
      approvals.push({ key, kind: approval.kind, ...(approval.tool !== undefined ? { tool: approval.tool } : {}), digest: approval.digest });
    }
    const recorder = parent !== undefined ? this.runs.recorder(parent) : undefined;
    if (!recorder) return undefined;
    const snapshot = await recorder.snapshot();
    if ('refused' in snapshot) {
      this.logger.warn({ toolCallId: parent, reason: snapshot.refused }, 'a paused run stays in memory: it cannot be stored');
      return undefined;
    }
    const id = randomBytes(24).toString('base64url');
    const record = sealRecord(id, { version: 1, toolCallId: recorder.toolCallId, language: recorder.language, codeDigest: recorder.codeDigest, journal: snapshot.journal, seed: snapshot.seed, clock: snapshot.clock, approvals });
    try {
      await this.store.putRun({ id, binding, data: JSON.stringify(record), expiresAt: Date.now() + this.ttlMs });
    } catch (error) {
      this.logger.warn({ err: error, toolCallId: parent }, 'a paused run stays in memory: the store refused it');
      return undefined;
    }
    recorder.freeze();
    return id;
  }

  /**
   * Takes the stored run `id` for a retry whose params bind to `binding`, once over every
   * instance on the store. A string is the error to answer with.
   */
  async take(id: string, binding: string, responses: unknown): Promise<TakenRun | string> {
    let outcome;
    try {
      outcome = await this.store.claimRun(id, this.owner);
    } catch (error) {
      return `the store could not be read: ${(error as Error).message}`;
    }
    if (!outcome.claimed) {
      return outcome.reason === 'taken'
        ? 'requestState was already used (its run was resumed); send the request again without it'
        : 'requestState is unknown, expired or already used; send the request again without it';
    }
    let record: RunRecord;
    try {
      if (outcome.run.binding !== binding) throw new ReplayRefusedError('requestState was issued for a different request; the call it belonged to is cancelled');
      record = openRecord(id, outcome.run.data);
    } catch (error) {
      await this.forget(id);
      return (error as Error).message;
    }
    const given = responses && typeof responses === 'object' ? responses as Record<string, unknown> : {};
    const answers = new Map<PendingApproval, unknown>();
    for (const approval of record.approvals) if (Object.hasOwn(given, approval.key)) answers.set(approval, given[approval.key]);
    return { record, answers };
  }

  /**
   * Answers the approvals the resumed run asks with the client's stored answers. An approval
   * asked for the same tool as an answered one but for other arguments is refused (what was
   * approved is what runs): the string says why. Returns how many were answered.
   */
  answer(exchange: Exchange, requests: ReadonlyMap<string, InputRequest>, taken: TakenRun): number | string {
    let answered = 0;
    for (const [key, request] of requests) {
      const asked = approvalOf(request);
      if (!asked) continue;
      const match = [...taken.answers.keys()].find((a) => a.kind === asked.kind && a.tool === asked.tool && a.digest === asked.digest);
      if (match) {
        exchange.answer(key, taken.answers.get(match));
        taken.answers.delete(match);
        answered += 1;
        continue;
      }
      const other = [...taken.answers.keys()].find((a) => a.kind === asked.kind && a.tool === asked.tool);
      if (other) {
        return `approval refused: the resumed run would run ${asked.tool ?? 'the script'} with ${asked.digest}, but the approval was given for ${other.digest}; nothing ran`;
      }
    }
    return answered;
  }

  /** Deletes a stored run (taken and over, or refused). */
  async forget(id: string): Promise<void> {
    try {
      await this.store.deleteRun(id);
    } catch (error) {
      this.logger.warn({ err: error }, 'a finished run could not be deleted from the store (it expires)');
    }
  }
}
