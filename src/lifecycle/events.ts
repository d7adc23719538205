/**
 * The `tools/lifecycle` wire shape (RFC-007 §3) and the host's in-process event, which is the
 * same call seen unfiltered: full input, origin and parent, for the embedding framework.
 */
import type { ToolClass } from '../vocabulary/classes.ts';
import { mayHoldSecretValue, redactSecretsInText } from './secret-values.ts';

/** A call's lifecycle phase (RFC-007): `pending` while an approval is awaited, `started`, then one terminal. */
export type ToolPhase = 'pending' | 'started' | 'completed' | 'failed' | 'aborted';
export type TerminalPhase = 'completed' | 'failed' | 'aborted';

/** `_meta` key carrying the parent `code_execution` call's id on every phase of a script's call. */
export const PARENT_META_KEY = 'agent-framework/parentToolCallId';

/**
 * `_meta` key set (`true`) on every phase of a call announced again after a durable pause: the
 * same `toolCallId` as the call that paused, whose opening was ended then (docs/rfc/durable-runs.md).
 */
export const RESUMED_META_KEY = 'toolcell/resumed';

/** Fields every phase of one call carries; built once per call. */
export interface LifecycleIdentity {
  toolCallId: string;
  inferenceId: string;
  conversationId: string;
  tool: string;
  class: readonly ToolClass[];
  serverId?: string;
  serverTool?: string;
  _meta?: { [PARENT_META_KEY]?: string; [RESUMED_META_KEY]?: true };
}

/** Params of one `tools/lifecycle` notification as sent to an observer. */
export interface LifecycleParams extends LifecycleIdentity {
  phase: ToolPhase;
  input?: Record<string, unknown>;
  inputAltered?: true;
  inputWithheld?: true;
  isError?: boolean;
  durationMs?: number;
}

/** The in-process event: every call, every phase, nothing filtered. */
export interface HostLifecycleEvent extends Omit<LifecycleIdentity, '_meta'> {
  phase: ToolPhase;
  origin: 'model' | 'script';
  modelCallId?: string;
  parentToolCallId?: string;
  /** Full arguments, on `started` only. */
  input?: unknown;
  isError?: boolean;
  durationMs?: number;
  /** Why the call failed or was aborted, when known. */
  reason?: string;
  /** `performance.now()` when the host emitted the phase. */
  at: number;
}

/** Serializes a notification as one newline-terminated JSON-RPC line. */
export function lifecycleLine(params: LifecycleParams): string {
  return `{"jsonrpc":"2.0","method":"tools/lifecycle","params":${JSON.stringify(params)}}\n`;
}

/**
 * The start of every line about one call: the JSON-RPC envelope and the call's identity,
 * serialized once per call and left open for each phase's own members ({@link phaseLine}).
 */
export function lifecycleHead(identity: LifecycleIdentity): string {
  let json = JSON.stringify(identity);
  // The conversation id (a serve client's choice) and names go to observers too: through the
  // same value redaction as inputs, paid only when the pre-check finds a keyword.
  if (mayHoldSecretValue(json)) json = JSON.stringify(redactIdentity(identity));
  return `{"jsonrpc":"2.0","method":"tools/lifecycle","params":${json.slice(0, -1)}`;
}

/**
 * One newline-terminated notification from a call's {@link lifecycleHead}: the same bytes as
 * {@link lifecycleLine} of the identity plus `phase` plus `members` (already serialized, each
 * starting with a comma).
 */
export function phaseLine(head: string, phase: ToolPhase, members = ''): string {
  return `${head},"phase":"${phase}"${members}}}\n`;
}

/** The identity with each of its strings through value redaction, member order kept. */
function redactIdentity(identity: LifecycleIdentity): LifecycleIdentity {
  const out = { ...identity, class: identity.class.map((c) => redactSecretsInText(c)) } as LifecycleIdentity;
  for (const key of ['toolCallId', 'inferenceId', 'conversationId', 'tool', 'serverId', 'serverTool'] as const) {
    const value = identity[key];
    if (value !== undefined) out[key] = redactSecretsInText(value);
  }
  if (identity._meta) {
    const parent = identity._meta[PARENT_META_KEY];
    out._meta = {
      ...(parent !== undefined ? { [PARENT_META_KEY]: redactSecretsInText(parent) } : {}),
      ...(identity._meta[RESUMED_META_KEY] === true ? { [RESUMED_META_KEY]: true as const } : {}),
    };
  }
  return out;
}
