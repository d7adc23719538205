/**
 * The invariants of a fault run, checked on what was recorded. Each returns violations as
 * sentences naming the call, so that a failing seed says what broke, not only that it did.
 */
import { isDeepStrictEqual } from 'node:util';
import { BUSY_MESSAGE } from '../../src/code-execution/conversation-lock.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import type { Recorder } from './recorder.ts';
import type { ObserverSpec } from './world.ts';

type Seq = HostLifecycleEvent & { seq: number };
const TERMINAL = new Set(['completed', 'failed', 'aborted']);
const PARENT = 'agent-framework/parentToolCallId';

export interface HostView {
  /** Every call's events in order, by toolCallId. */
  calls: Map<string, Seq[]>;
  /** The opening event of every call. */
  openings: Seq[];
}

export function hostView(rec: Recorder): HostView {
  const calls = new Map<string, Seq[]>();
  const openings: Seq[] = [];
  for (const e of rec.events) {
    let list = calls.get(e.toolCallId);
    if (!list) {
      calls.set(e.toolCallId, (list = []));
      openings.push(e);
    }
    list.push(e);
  }
  return { calls, openings };
}

export interface DispatchFigures {
  maxOvershootMs: number;
}

/**
 * Dispatch and the host's own lifecycle: every dispatch settled within its safety timeout
 * (plus `slackMs` for a loaded machine); refusals opened nothing; every opened call has exactly
 * one terminal, after its opening, nothing after; no inner call opened after its parent's
 * terminal; no execution was refused as busy while no other execution was open.
 */
export function checkHost(rec: Recorder, view: HostView, slackMs: number, out: string[]): DispatchFigures {
  let maxOvershootMs = 0;
  for (const d of rec.dispatches) {
    const what = `dispatch of ${d.request.name}${d.request.parentToolCallId ? ` (script of ${d.request.parentToolCallId})` : ''}`;
    if (!d.outcome) {
      out.push(`${what} never settled`);
      continue;
    }
    const took = d.settledAt! - d.startedAt;
    maxOvershootMs = Math.max(maxOvershootMs, took - d.timeoutMs);
    if (took > d.timeoutMs + slackMs) out.push(`${what} settled after ${Math.round(took)} ms, past its ${d.timeoutMs} ms safety timeout`);
    if (d.outcome.status === 'refused') {
      if (d.openedEvents !== 0) out.push(`${what} was refused (${d.outcome.refusal?.code}) yet opened ${d.openedEvents} calls`);
      if (d.outcome.toolCallId !== undefined) out.push(`${what} was refused yet carries a toolCallId`);
    } else {
      const events = view.calls.get(d.outcome.toolCallId ?? '');
      if (d.openedEvents !== 1) out.push(`${what} opened ${d.openedEvents} calls in its dispatch`);
      if (!events) out.push(`${what} ended ${d.outcome.status} but no lifecycle event names ${d.outcome.toolCallId}`);
      else {
        const terminal = events.find((e) => TERMINAL.has(e.phase));
        if (terminal && terminal.phase !== d.outcome.status) out.push(`${d.outcome.toolCallId}: outcome ${d.outcome.status} but terminal ${terminal.phase}`);
      }
    }
    if (
      d.request.name === 'code_execution' &&
      d.outcome.status === 'completed' &&
      d.openExecutions === 0 &&
      d.outcome.result.content[0]?.text === BUSY_MESSAGE
    ) {
      out.push(`${d.outcome.toolCallId}: refused as busy while no other code_execution was open in its conversation`);
    }
  }
  for (const [id, events] of view.calls) {
    const phases = events.map((e) => e.phase);
    const opening = phases[0];
    const terminals = phases.filter((p) => TERMINAL.has(p)).length;
    if (opening !== 'started' && opening !== 'pending') out.push(`${id}: first event is ${opening}, not an opening`);
    if (terminals !== 1) out.push(`${id}: ${terminals} terminals (${phases.join(' → ')})`);
    else if (!TERMINAL.has(phases[phases.length - 1]!)) out.push(`${id}: events after its terminal (${phases.join(' → ')})`);
    const parent = events[0]!.parentToolCallId;
    if (parent !== undefined) {
      const parentEnd = view.calls.get(parent)?.find((e) => TERMINAL.has(e.phase));
      if (parentEnd && parentEnd.seq < events[0]!.seq) out.push(`${id} (${events[0]!.tool}) opened after its parent ${parent} had ended ${parentEnd.phase}`);
    }
  }
  return { maxOvershootMs: Math.round(maxOvershootMs) };
}

export interface ObserverFigures {
  id: string;
  role: string;
  expectedCalls: number;
  receivedCalls: number;
  droppedCounted: number;
}

/**
 * One observer's log against its own rule. A healthy (or slowed) observer must have received
 * exactly the calls its rule admits, each as opening then the host's terminal, with the input
 * its rule grants; a stalled one may lack whole calls only, as many as its drop counter says;
 * a killed one may lack anything after its death but nothing it received may be malformed.
 */
export function checkObserver(
  spec: ObserverSpec,
  received: any[],
  view: HostView,
  dropped: number,
  exact: boolean,
  out: string[],
): ObserverFigures {
  const byCall = new Map<string, any[]>();
  for (const p of received) {
    const list = byCall.get(p.toolCallId) ?? [];
    list.push(p);
    byCall.set(p.toolCallId, list);
  }
  let expectedCalls = 0;
  let missing = 0;
  for (const opening of view.openings) {
    const want = spec.expect(opening);
    const got = byCall.get(opening.toolCallId);
    byCall.delete(opening.toolCallId);
    const who = `${spec.id}: ${opening.toolCallId} (${opening.tool})`;
    if (want === null) {
      if (got) out.push(`${who} was received though its rule excludes it`);
      continue;
    }
    expectedCalls += 1;
    const hostEvents = view.calls.get(opening.toolCallId)!;
    const hostTerminal = hostEvents.find((e) => TERMINAL.has(e.phase))?.phase;
    if (!got) {
      missing += 1;
      if (spec.role === 'healthy' || spec.role === 'slowed') {
        if (exact) out.push(`${who} was never received`);
      }
      continue;
    }
    const phases = got.map((p) => p.phase);
    const whole = phases.length === 2 && phases[0] === 'started' && phases[1] === hostTerminal;
    const prefix = phases.length === 1 && phases[0] === 'started';
    if (!whole && !(prefix && (spec.role === 'doomed' || !exact))) out.push(`${who}: received ${phases.join(' → ')}, host ended it ${hostTerminal}`);
    const started = got[0];
    if (started.phase === 'started') {
      if (want === 'input' && !isDeepStrictEqual(started.input, opening.input)) out.push(`${who}: input ${JSON.stringify(started.input)} is not the call's ${JSON.stringify(opening.input)}`);
      if (want === 'metadata' && (started.input !== undefined || started.inputWithheld !== undefined)) out.push(`${who}: metadata only expected, got input members`);
      if ((started._meta?.[PARENT] ?? undefined) !== opening.parentToolCallId) out.push(`${who}: parent key ${started._meta?.[PARENT]} is not ${opening.parentToolCallId}`);
    }
  }
  for (const id of byCall.keys()) out.push(`${spec.id}: received ${id}, which the host never opened`);
  const receivedCalls = expectedCalls - missing;
  if (exact && spec.role === 'stalled' && missing !== dropped) {
    out.push(`${spec.id}: lost ${missing} calls but its drop counter says ${dropped}`);
  }
  return { id: spec.id, role: spec.role, expectedCalls, receivedCalls, droppedCounted: dropped };
}
