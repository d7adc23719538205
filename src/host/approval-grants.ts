/**
 * Standing approvals: which tools a person has already approved, so that their calls run
 * without `pending`. Two lifetimes: one `code_execution` run (keyed by its call id, dropped
 * when the run ends) and a conversation (kept until revoked). Only an approval decision
 * grants; nothing here is inferred from an interrupt or a stream's end.
 */

/** A conversation-wide approval of one tool, as `list` reports it. */
export interface ConversationGrant {
  tool: string;
  /** `Date.now()` when it was granted. */
  grantedAt: number;
  /** The `code_execution` call whose up-front request granted it. */
  grantedFor: string;
}

/**
 * The host's standing approvals (`host.approvals`): `list(conversationId)` shows a
 * conversation's grants and `revoke(conversationId, tool?)` ends one or all of them.
 */
export class ApprovalGrants {
  private readonly conversations = new Map<string, Map<string, ConversationGrant>>();
  private readonly executions = new Map<string, ReadonlySet<string>>();

  /** Whether a call to `tool` in this conversation (made by the script of `parentToolCallId`, if any) is already approved. */
  covers(conversationId: string, parentToolCallId: string | undefined, tool: string): boolean {
    if (parentToolCallId !== undefined && this.executions.get(parentToolCallId)?.has(tool) === true) return true;
    return this.conversations.get(conversationId)?.has(tool) === true;
  }

  /** Approves `tools` for one `code_execution` run; {@link endExecution} drops it. */
  grantExecution(parentToolCallId: string, tools: Iterable<string>): void {
    this.executions.set(parentToolCallId, new Set(tools));
  }

  /** Approves `tools` for the conversation until revoked. */
  grantConversation(conversationId: string, tools: Iterable<string>, grantedFor: string): void {
    let grants = this.conversations.get(conversationId);
    if (!grants) this.conversations.set(conversationId, (grants = new Map()));
    const now = Date.now();
    for (const tool of tools) grants.set(tool, { tool, grantedAt: now, grantedFor });
  }

  /** The run of `parentToolCallId` ended: its execution grant goes with it. */
  endExecution(parentToolCallId: string): void {
    this.executions.delete(parentToolCallId);
  }

  /** The conversation's standing grants, oldest first. */
  list(conversationId: string): ConversationGrant[] {
    return [...(this.conversations.get(conversationId)?.values() ?? [])].map((g) => ({ ...g }));
  }

  /**
   * Revokes one tool's conversation grant, or all of them without `tool`; the next call asks
   * again. Returns how many grants ended.
   */
  revoke(conversationId: string, tool?: string): number {
    const grants = this.conversations.get(conversationId);
    if (!grants) return 0;
    if (tool === undefined) {
      this.conversations.delete(conversationId);
      return grants.size;
    }
    const removed = grants.delete(tool) ? 1 : 0;
    if (grants.size === 0) this.conversations.delete(conversationId);
    return removed;
  }
}
