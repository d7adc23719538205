/**
 * The one up-front approval of a script: before it runs, the gated tools its text references
 * are put to the gate's `decideBatch` in a single request. Declined, failed, thrown or
 * aborted → the script does not run (fail closed). Approved → a grant for this execution, or
 * for the conversation when the answer says so (kept in the store, when the host keeps its
 * grants there, before the script runs; for this execution only when the store failed), and
 * those calls run without `pending`. The
 * request carries the exact script and its digest; an answer naming another digest runs nothing.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { BatchApprovalRequest, BatchApprovalTool, RegisteredTool } from '../host/types.ts';
import { scanToolReferences, type ScanLanguage } from './scan.ts';
import { textDigest } from '../host/arguments-digest.ts';

/** The `code_execution` call a script belongs to. */
export interface OwningCall {
  toolCallId: string;
  inferenceId: string;
  conversationId: string;
  modelCallId?: string;
}

export type UpFrontOutcome =
  | { run: true; asked: false }
  | { run: true; asked: true; granted: string[]; scope: 'execution' | 'conversation' }
  | { run: false; reason: string };

/**
 * Asks the host's gate once for a script, when it can answer for several tools at once. A gate
 * without `decideBatch` is asked nothing here: its calls are decided one by one, as before.
 */
export async function approveUpFront(
  host: ToolHost,
  script: { code: string; language: ScanLanguage },
  tools: readonly RegisteredTool[],
  owner: OwningCall,
  signal: AbortSignal,
): Promise<UpFrontOutcome> {
  const gate = host.approvalGate;
  if (!gate?.decideBatch) return { run: true, asked: false };
  const byName = new Map(tools.map((t) => [t.name, t]));
  const references = scanToolReferences(script.code, script.language, [...byName.keys()]);
  const wanted: BatchApprovalTool[] = [];
  for (const [name, lines] of references) {
    const tool = byName.get(name)!;
    // Already granted for the conversation: not asked again.
    if (host.approvals.covers(owner.conversationId, undefined, name)) continue;
    let required: boolean;
    try {
      required = gate.required({
        tool: name,
        classes: tool.classes,
        ...(tool.serverId !== undefined ? { serverId: tool.serverId } : {}),
        // Asked about the tool, not one call: the arguments are not known before the script runs.
        input: {},
        inferenceId: owner.inferenceId,
        conversationId: owner.conversationId,
        origin: 'script',
        parentToolCallId: owner.toolCallId,
      });
    } catch (error) {
      return { run: false, reason: `the approval gate failed: ${(error as Error)?.message ?? String(error)}` };
    }
    if (required) wanted.push({ tool: name, classes: tool.classes, ...(tool.serverId !== undefined ? { serverId: tool.serverId } : {}), lines });
  }
  if (wanted.length === 0) return { run: true, asked: false };
  const request: BatchApprovalRequest = {
    conversationId: owner.conversationId,
    inferenceId: owner.inferenceId,
    parentToolCallId: owner.toolCallId,
    ...(owner.modelCallId !== undefined ? { modelCallId: owner.modelCallId } : {}),
    language: script.language,
    tools: wanted,
    // The exact script the engine will be given, and the digest an approval of it is bound to.
    code: script.code,
    codeDigest: textDigest(script.code),
  };
  let approved = false;
  let scope: 'execution' | 'conversation' = 'execution';
  let reason = 'declined';
  try {
    const decision = await gate.decideBatch(request, signal);
    approved = typeof decision === 'boolean' ? decision : decision.approved === true;
    if (typeof decision === 'object' && decision.scope === 'conversation') scope = 'conversation';
    if (typeof decision === 'object' && decision.reason) reason = decision.reason;
    if (approved && typeof decision === 'object' && decision.codeDigest !== undefined && decision.codeDigest !== request.codeDigest) {
      approved = false;
      reason = `the approval was given for another script (${decision.codeDigest}, not ${request.codeDigest})`;
    }
  } catch (error) {
    return { run: false, reason: `the approval gate failed: ${(error as Error)?.message ?? String(error)}` };
  }
  // An interrupt or a stream's end while the person was deciding grants nothing.
  if (signal.aborted) return { run: false, reason: 'the call was aborted while waiting for approval' };
  if (!approved) return { run: false, reason };
  const granted = wanted.map((w) => w.tool);
  // A conversation grant the store could not keep holds for this run only (the person approved
  // this script; no other host could see the grant, nor revoke it).
  if (scope === 'conversation' && !(await host.approvals.grantConversation(owner.conversationId, granted, owner.toolCallId))) scope = 'execution';
  if (scope === 'execution') host.approvals.grantExecution(owner.toolCallId, granted);
  return { run: true, asked: true, granted, scope };
}

/** The text a declined script's `code_execution` result starts with. */
export const DECLINED_TEXT = 'approval declined; nothing ran';
