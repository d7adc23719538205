/**
 * Fans each call's phases out to observer connections. Per connection it asks the pure
 * decision logic whether and with what input the opening is sent, queues it, and remembers
 * the transport epoch it went to, so that exactly one terminal is attempted per delivered
 * opening — and only on that same transport, and only while the grant still covers the call
 * (RFC-007 §4.5, §7.3). All of it is synchronous: nothing here awaits an observer.
 *
 * Serialization is per view, not per observer: a call's identity is serialized once, each
 * distinct grant+filter's opening once (its arguments once), each terminal once, and every
 * connection's queue receives the same string, written to its transport as it is.
 */
import { decideOpeningWire, mayDeliverTerminal, reportsCall } from './decide.ts';
import type { CallFacts } from './decide.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { lifecycleHead, phaseLine, type LifecycleIdentity, type TerminalPhase } from './events.ts';

type Grant = Parameters<typeof mayDeliverTerminal>[1];
type Filter = Parameters<typeof decideOpeningWire>[2];

/** What the emitter needs of an observer connection. */
export interface ObserverEndpoint {
  /** Server id: a connection never hears about its own tools. */
  readonly id: string;
  /** Transport epoch; bumps on reconnect. */
  readonly epoch: number;
  readonly queue: DeliveryQueue;
  /**
   * The grant and filter in force now, or null when this connection cannot observe at all.
   * `key` is equal for two connections exactly when their grant and filter are, so the
   * decision and its serialization are computed once per call for all of them.
   */
  lifecycleState(): { readonly grant: Grant; readonly filter: Filter; readonly key: string } | null;
}

interface Delivery {
  endpoint: ObserverEndpoint;
  epoch: number;
  /** For a call opened `pending`: its `started`, decided at the opening and sent on approval. */
  started?: string;
}

/** One call as the emitter tracks it between opening and terminal. */
export interface EmittedCall {
  readonly identity: LifecycleIdentity;
  readonly facts: CallFacts;
  deliveries: Delivery[];
  /** The identity serialized once for all of the call's lines (see lifecycleHead), on first use. */
  head?: string;
}

export class LifecycleEmitter {
  private readonly endpoints = new Set<ObserverEndpoint>();

  constructor(private readonly inputBoundBytes: number) {}

  add(endpoint: ObserverEndpoint): void {
    this.endpoints.add(endpoint);
  }

  remove(endpoint: ObserverEndpoint): void {
    this.endpoints.delete(endpoint);
  }

  /**
   * Emits the call's opening to every connection whose grant and filter admit it: `started`,
   * or with `pending` true a metadata-only `pending`, its `started` kept for {@link start}.
   * The decision is taken once, at the opening (a filter applies to calls opened after it).
   */
  open(identity: LifecycleIdentity, facts: CallFacts, pending = false): EmittedCall {
    const call: EmittedCall = { identity, facts, deliveries: [] };
    if (this.endpoints.size === 0) return call;
    // Decisions per distinct grant+filter; most hosts have one or two distinct policies.
    let lastKey: string | undefined;
    let lastLine: string | null = null;
    let others: Map<string, string | null> | undefined;
    let pendingLine: string | undefined;
    // Whether the last grant+filter seen on a full queue reports the call: past an observer's
    // rate (1,000 calls/s by default) every call takes this path for every observer.
    let droppedKey: string | undefined;
    let droppedReports = false;
    for (const endpoint of this.endpoints) {
      if (identity.serverId !== undefined && endpoint.id === identity.serverId) continue;
      const state = endpoint.lifecycleState();
      if (!state) continue;
      // A full queue drops the whole call for this observer before its opening is built; the
      // drop is counted only when its grant and filter would have let the call through.
      if (!endpoint.queue.hasRoom()) {
        if (state.key !== droppedKey) {
          const known = state.key === lastKey ? lastLine : others?.get(state.key);
          droppedReports = known === undefined ? reportsCall(facts, state.grant, state.filter) : known !== null;
          droppedKey = state.key;
        }
        if (droppedReports) endpoint.queue.countDroppedCall();
        continue;
      }
      let line: string | null;
      if (state.key === lastKey) line = lastLine;
      else if (others?.has(state.key)) line = others.get(state.key)!;
      else {
        line = this.openingLine(call, state.grant, state.filter);
        if (lastKey !== undefined) (others ??= new Map()).set(lastKey, lastLine);
        lastKey = state.key;
        lastLine = line;
      }
      if (line === null) continue;
      if (!pending) {
        if (endpoint.queue.offerOpening(line)) call.deliveries.push({ endpoint, epoch: endpoint.epoch });
        continue;
      }
      pendingLine ??= phaseLine((call.head ??= lifecycleHead(identity)), 'pending');
      if (endpoint.queue.offerOpening(pendingLine)) call.deliveries.push({ endpoint, epoch: endpoint.epoch, started: line });
    }
    return call;
  }

  /** The gate cleared: sends the kept `started` where the opening went and the grant still covers it. */
  start(call: EmittedCall): void {
    for (const delivery of call.deliveries) {
      const line = delivery.started;
      if (line === undefined) continue;
      delivery.started = undefined;
      const { endpoint, epoch } = delivery;
      if (endpoint.epoch !== epoch || !this.endpoints.has(endpoint)) continue;
      const state = endpoint.lifecycleState();
      if (!state || !mayDeliverTerminal(call.facts, state.grant)) continue;
      endpoint.queue.push(line);
    }
  }

  private openingLine(call: EmittedCall, grant: Grant, filter: Filter): string | null {
    const wire = decideOpeningWire(call.facts, grant, filter, { inputBoundBytes: this.inputBoundBytes });
    if (!wire) return null;
    const { decision, inputJson } = wire;
    let members = '';
    if (inputJson !== undefined) members += `,"input":${inputJson}`;
    if (decision.inputAltered) members += ',"inputAltered":true';
    if (decision.inputWithheld) members += ',"inputWithheld":true';
    return phaseLine((call.head ??= lifecycleHead(call.identity)), 'started', members);
  }

  /**
   * Attempts the call's one terminal on every transport its opening went to; `isError` is sent
   * on `completed` (false when absent), `durationMs` when given.
   */
  terminal(call: EmittedCall, phase: TerminalPhase, isError?: boolean, durationMs?: number): void {
    const deliveries = call.deliveries;
    if (deliveries.length === 0) return;
    call.deliveries = [];
    let line: string | undefined;
    for (const { endpoint, epoch } of deliveries) {
      if (endpoint.epoch !== epoch || !this.endpoints.has(endpoint)) continue;
      const state = endpoint.lifecycleState();
      if (!state || !mayDeliverTerminal(call.facts, state.grant)) continue;
      if (line === undefined) {
        let members = '';
        if (phase === 'completed') members += `,"isError":${isError === true}`;
        if (durationMs !== undefined) members += `,"durationMs":${JSON.stringify(durationMs)}`;
        line = phaseLine((call.head ??= lifecycleHead(call.identity)), phase, members);
      }
      endpoint.queue.push(line);
    }
  }
}
