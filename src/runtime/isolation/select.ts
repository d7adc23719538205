/**
 * Turns the operator's {@link IsolationMode} into the isolation a process gets: `bwrap` fails
 * closed, `auto` falls back to none with a diagnostic, and the choice is announced once per
 * listener so a host serving many conversations does not repeat itself.
 */
import { probeBwrap, type BwrapProbe } from './probe.ts';
import { IsolationError, type IsolationMode, type IsolationPlan } from './types.ts';

/** Receives one sentence saying which isolation was chosen and why. */
export type DiagnosticSink = (message: string) => void;

const announced = new WeakMap<DiagnosticSink, Set<string>>();

export interface SelectOptions {
  /** Told once (per distinct message) which isolation `auto` chose. */
  onDiagnostic?: DiagnosticSink;
  /** A specific bwrap executable; default: found on PATH. */
  bwrapPath?: string;
  /** For tests: the probe's answer instead of running bwrap. */
  probe?: () => BwrapProbe;
}

/**
 * The plan for `mode`. Throws an {@link IsolationError} when `mode` is `bwrap` and bubblewrap
 * is missing or cannot sandbox here.
 */
export function selectIsolation(mode: IsolationMode, options: SelectOptions = {}): IsolationPlan {
  if (mode === 'none') return { kind: 'none' };
  const probe = options.probe ? options.probe() : probeBwrap(options.bwrapPath);
  if (probe.ok) {
    if (mode === 'auto') announce(options.onDiagnostic, `isolation 'auto' chose bubblewrap (${probe.bwrap}): script processes run in their own namespaces`);
    return { kind: 'bwrap', bwrap: probe.bwrap };
  }
  if (mode === 'bwrap') throw new IsolationError(`isolation 'bwrap' was required but is unavailable: ${probe.reason}`);
  announce(options.onDiagnostic, `isolation 'auto' chose none: ${probe.reason}; script processes run with the host user's rights`);
  return { kind: 'none' };
}

/** Tells `sink` a message once (per distinct message and sink). */
export function announce(sink: DiagnosticSink | undefined, message: string): void {
  if (!sink) return;
  let said = announced.get(sink);
  if (!said) announced.set(sink, (said = new Set()));
  if (said.has(message)) return;
  said.add(message);
  sink(message);
}
