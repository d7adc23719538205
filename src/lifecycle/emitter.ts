/**
 * Fans each call's phases out to observer connections. Per connection it asks the pure
 * decision logic whether and with what input the opening is sent, queues it, and remembers
 * the transport epoch it went to, so that exactly one terminal is attempted per delivered
 * opening — and only on that same transport, and only while the grant still covers the call
 * (RFC-007 §4.5, §7.3). All of it is synchronous: nothing here awaits an observer.
 */
import { decideOpening, mayDeliverTerminal } from './decide.ts';
import type { CallFacts } from './decide.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { lifecycleLine, type LifecycleIdentity, type LifecycleParams, type TerminalPhase } from './events.ts';

type Grant = Parameters<typeof mayDeliverTerminal>[1];
type Filter = Parameters<typeof decideOpening>[2];

/** What the emitter needs of an observer connection. */
export interface ObserverEndpoint {
  /** Server id: a connection never hears about its own tools. */
  readonly id: string;
  /** Transport epoch; bumps on reconnect. */
  readonly epoch: number;
  readonly queue: DeliveryQueue;
  /** The grant and filter in force now, or null when this connection cannot observe at all. */
  lifecycleState(): { grant: Grant; filter: Filter } | null;
}

interface Delivery {
  endpoint: ObserverEndpoint;
  epoch: number;
}

/** One call as the emitter tracks it between opening and terminal. */
export interface EmittedCall {
  readonly identity: LifecycleIdentity;
  readonly facts: CallFacts;
  deliveries: Delivery[];
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

  /** Emits `started` to every connection whose grant and filter admit the call. */
  open(identity: LifecycleIdentity, facts: CallFacts): EmittedCall {
    const call: EmittedCall = { identity, facts, deliveries: [] };
    if (this.endpoints.size === 0) return call;
    let metadataOnly: string | undefined;
    for (const endpoint of this.endpoints) {
      if (identity.serverId !== undefined && endpoint.id === identity.serverId) continue;
      const state = endpoint.lifecycleState();
      if (!state) continue;
      const decision = decideOpening(facts, state.grant, state.filter, { inputBoundBytes: this.inputBoundBytes });
      if (!decision) continue;
      let line: string;
      if (decision.input === undefined && !decision.inputWithheld && !decision.inputAltered) {
        metadataOnly ??= lifecycleLine({ ...identity, phase: 'started' });
        line = metadataOnly;
      } else {
        const params: LifecycleParams = { ...identity, phase: 'started' };
        if (decision.input !== undefined) params.input = decision.input as Record<string, unknown>;
        if (decision.inputAltered) params.inputAltered = true;
        if (decision.inputWithheld) params.inputWithheld = true;
        line = lifecycleLine(params);
      }
      if (endpoint.queue.offerOpening(line)) call.deliveries.push({ endpoint, epoch: endpoint.epoch });
    }
    return call;
  }

  /** Attempts the call's one terminal on every transport its opening went to. */
  terminal(call: EmittedCall, phase: TerminalPhase, extra: { isError?: boolean; durationMs?: number }): void {
    const deliveries = call.deliveries;
    if (deliveries.length === 0) return;
    call.deliveries = [];
    const params: LifecycleParams = { ...call.identity, phase };
    if (phase === 'completed') params.isError = extra.isError === true;
    if (extra.durationMs !== undefined) params.durationMs = extra.durationMs;
    let line: string | undefined;
    for (const { endpoint, epoch } of deliveries) {
      if (endpoint.epoch !== epoch || !this.endpoints.has(endpoint)) continue;
      const state = endpoint.lifecycleState();
      if (!state || !mayDeliverTerminal(call.facts, state.grant)) continue;
      line ??= lifecycleLine(params);
      endpoint.queue.push(line);
    }
  }
}
