/**
 * Records everything the host does in a fault run, in one sequence: every dispatch (the
 * model's and, through the same method, every script's), how many in-process lifecycle events
 * that synchronous dispatch produced, how and when it settled, and every lifecycle event and
 * refusal. The invariants are checked on this record afterwards.
 */
import type { ToolHost } from '../../src/host/tool-host.ts';
import type { DispatchOutcome, DispatchRequest } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';

export interface DispatchRecord {
  request: DispatchRequest;
  /** Safety timeout that applies to it (request's, or the host's). */
  timeoutMs: number;
  startedAt: number;
  /** Openings emitted during the synchronous part of dispatch (a terminal may follow in it too). */
  openedEvents: number;
  /** Open code_execution calls of the same conversation at the moment of dispatch. */
  openExecutions: number;
  outcome?: DispatchOutcome;
  settledAt?: number;
}

export interface Recorder {
  dispatches: DispatchRecord[];
  events: (HostLifecycleEvent & { seq: number })[];
  lateResults: number;
  /** Conversation of each inference the workload began (for the busy-refusal check). */
  conversations: Map<string, string>;
  /** Dispatches not settled yet. */
  pending(): number;
  /** Resolves once every dispatch so far has settled. */
  allSettled(): Promise<void>;
  detach(): void;
}

export function record(host: ToolHost, hostCallTimeoutMs: number): Recorder {
  const dispatches: DispatchRecord[] = [];
  const events: (HostLifecycleEvent & { seq: number })[] = [];
  const openCe = new Map<string, Set<string>>();
  const inFlight = new Set<Promise<unknown>>();
  let seq = 0;
  const rec: Recorder = {
    dispatches,
    events,
    lateResults: 0,
    conversations: new Map(),
    pending: () => inFlight.size,
    async allSettled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    detach: () => {
      host.dispatch = original;
      host.off('lifecycle', onLifecycle);
      host.off('late-result', onLate);
    },
  };
  const onLifecycle = (e: HostLifecycleEvent) => {
    events.push({ ...e, seq: ++seq });
    if (e.tool !== 'code_execution') return;
    const set = openCe.get(e.conversationId) ?? new Set<string>();
    openCe.set(e.conversationId, set);
    if (e.phase === 'started') set.add(e.toolCallId);
    else if (e.phase !== 'pending') set.delete(e.toolCallId);
  };
  const onLate = () => {
    rec.lateResults += 1;
  };
  host.on('lifecycle', onLifecycle);
  host.on('late-result', onLate);
  const original = host.dispatch;
  host.dispatch = function dispatch(this: ToolHost, request: DispatchRequest): Promise<DispatchOutcome> {
    const before = events.length;
    const conversation = rec.conversations.get(request.inferenceId);
    const entry: DispatchRecord = {
      request,
      timeoutMs: request.timeoutMs ?? hostCallTimeoutMs,
      startedAt: performance.now(),
      openedEvents: 0,
      openExecutions: conversation ? (openCe.get(conversation)?.size ?? 0) : 0,
    };
    dispatches.push(entry);
    const promise = original.call(host, request);
    for (let i = before; i < events.length; i++) if (events[i]!.phase === 'started' || events[i]!.phase === 'pending') entry.openedEvents += 1;
    const tracked = promise.then((outcome) => {
      entry.outcome = outcome;
      entry.settledAt = performance.now();
      inFlight.delete(tracked);
    });
    inFlight.add(tracked);
    return promise;
  };
  return rec;
}
