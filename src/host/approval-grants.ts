/**
 * Standing approvals: which tools a person has already approved, so that their calls run
 * without `pending`. Two lifetimes: one `code_execution` run (keyed by its call id, dropped
 * when the run ends) and a conversation (kept until revoked). Only an approval decision
 * grants; nothing here is inferred from an interrupt or a stream's end.
 *
 * Conversation grants may also be kept beyond this process ({@link GrantKeeper}, installed by
 * code_execution when it has a store): a grant and a revoke then write through, and
 * {@link ApprovalGrants.refresh} replaces a conversation's grants by the kept ones, so several
 * hosts sharing a store honour one another's grants and revokes. A keeper that fails fails
 * closed: the grant does not hold, and the failure is logged.
 */
import type { Logger } from 'pino';

/** A conversation-wide approval of one tool, as `list` reports it. */
export interface ConversationGrant {
  tool: string;
  /** `Date.now()` when it was granted. */
  grantedAt: number;
  /** The `code_execution` call whose up-front request granted it. */
  grantedFor: string;
}

/**
 * Where conversation grants are kept beyond this process (code-execution/stored-grants.ts, over
 * the store). Defined here so that the host needs no store: whoever has one installs it with
 * {@link ApprovalGrants.keepIn}.
 */
export interface GrantKeeper {
  /** Keeps `grants` of the conversation, all or none; rejects when they are not kept. */
  save(conversationId: string, grants: readonly ConversationGrant[]): Promise<void>;
  /** Forgets one tool's grant, or all of the conversation's without `tool`; resolves to how many went. */
  remove(conversationId: string, tool?: string): Promise<number>;
  /** The conversation's kept grants (one bounded read). */
  load(conversationId: string): Promise<ConversationGrant[]>;
}

/**
 * The host's standing approvals (`host.approvals`): `list(conversationId)` shows a
 * conversation's grants and `revoke(conversationId, tool?)` ends one or all of them.
 */
export class ApprovalGrants {
  private readonly conversations = new Map<string, Map<string, ConversationGrant>>();
  private readonly executions = new Map<string, ReadonlySet<string>>();
  private keeper: { keeper: GrantKeeper; logger: Logger } | undefined;
  /**
   * Each conversation's writes to the keeper still under way, chained so that they reach it in
   * the order they were made here (a grant then a revoke never lands as the revoke first); a
   * refresh waits for them. An entry goes when its chain settles.
   */
  private readonly writes = new Map<string, Promise<void>>();
  /** Counts this host's grants and revokes (any conversation), so a refresh can tell that one came during its read. */
  private changes = 0;

  /**
   * Keeps conversation grants in `keeper` from now on (one keeper at a time); returns its
   * removal. Failures are logged on `logger`.
   */
  keepIn(keeper: GrantKeeper, logger: Logger): () => void {
    if (this.keeper !== undefined) throw new Error('approval grants are kept in another keeper already');
    const installed = { keeper, logger };
    this.keeper = installed;
    return () => {
      if (this.keeper === installed) this.keeper = undefined;
    };
  }

  /** Whether a call to `tool` in this conversation (made by the script of `parentToolCallId`, if any) is already approved. */
  covers(conversationId: string, parentToolCallId: string | undefined, tool: string): boolean {
    if (parentToolCallId !== undefined && this.executions.get(parentToolCallId)?.has(tool) === true) return true;
    return this.conversations.get(conversationId)?.has(tool) === true;
  }

  /** Approves `tools` for one `code_execution` run; {@link endExecution} drops it. */
  grantExecution(parentToolCallId: string, tools: Iterable<string>): void {
    this.executions.set(parentToolCallId, new Set(tools));
  }

  /**
   * Approves `tools` for the conversation until revoked. Holds here at once; with a keeper,
   * resolves once it is kept (true), or to false when the keeper failed: the grant is then
   * withdrawn here too (logged), since no other host could see it or revoke it.
   */
  async grantConversation(conversationId: string, tools: Iterable<string>, grantedFor: string): Promise<boolean> {
    let grants = this.conversations.get(conversationId);
    if (!grants) this.conversations.set(conversationId, (grants = new Map()));
    const now = Date.now();
    const given: ConversationGrant[] = [];
    for (const tool of tools) {
      const grant = { tool, grantedAt: now, grantedFor };
      grants.set(tool, grant);
      given.push({ ...grant });
    }
    const kept = this.keeper;
    if (kept === undefined || given.length === 0) return true;
    try {
      await this.write(conversationId, () => kept.keeper.save(conversationId, given));
      return true;
    } catch (error) {
      kept.logger.error({ err: error, conversationId, tools: given.map((g) => g.tool) }, 'approval grants: a conversation grant could not be stored; it is withdrawn (asked again next time)');
      const current = this.conversations.get(conversationId);
      for (const grant of given) if (current?.get(grant.tool)?.grantedFor === grantedFor) current.delete(grant.tool);
      if (current?.size === 0) this.conversations.delete(conversationId);
      return false;
    }
  }

  /** The run of `parentToolCallId` ended: its execution grant goes with it. */
  endExecution(parentToolCallId: string): void {
    this.executions.delete(parentToolCallId);
  }

  /**
   * The conversation's standing grants as this host knows them, oldest first. With a keeper,
   * grants made at other hosts show once {@link refresh} read them.
   */
  list(conversationId: string): ConversationGrant[] {
    return [...(this.conversations.get(conversationId)?.values() ?? [])].map((g) => ({ ...g }));
  }

  /**
   * Revokes one tool's conversation grant, or all of them without `tool`; the next call asks
   * again. Returns how many grants ended here. With a keeper the revoke also goes to it (a
   * failure is logged); {@link revokeEverywhere} waits for that.
   */
  revoke(conversationId: string, tool?: string): number {
    const removed = this.revokeHere(conversationId, tool);
    const kept = this.keeper;
    if (kept !== undefined) {
      this.write(conversationId, () => kept.keeper.remove(conversationId, tool)).catch((error: unknown) => {
        kept.logger.error({ err: error, conversationId, tool }, 'approval grants: a revoke could not reach the store; other hosts may still honour the grant');
      });
    }
    return removed;
  }

  /**
   * {@link revoke}, resolved once the keeper (if any) forgot the grants: how many it removed
   * (grants made at other hosts included), or how many ended here without a keeper. Rejects
   * when the keeper failed (the grants have ended here all the same).
   */
  async revokeEverywhere(conversationId: string, tool?: string): Promise<number> {
    const removed = this.revokeHere(conversationId, tool);
    const kept = this.keeper;
    if (kept === undefined) return removed;
    return this.write(conversationId, () => kept.keeper.remove(conversationId, tool));
  }

  /**
   * With a keeper: replaces the conversation's grants here by the kept ones (after this host's
   * own writes reached it), so that a grant or a revoke made at another host holds here from
   * now on. A keeper that cannot be read leaves the conversation with no grant here (asked
   * again), logged. Without a keeper, nothing to do.
   */
  async refresh(conversationId: string): Promise<void> {
    const kept = this.keeper;
    if (kept === undefined) return;
    let loaded: ConversationGrant[] | undefined;
    // A grant or revoke made here while the read was under way would be undone by its answer:
    // read again after it (twice at most; then what this host holds now stays).
    for (let attempt = 0; attempt < 2 && loaded === undefined; attempt += 1) {
      const changes = this.changes;
      let read: ConversationGrant[];
      try {
        await this.writes.get(conversationId);
        read = await kept.keeper.load(conversationId);
      } catch (error) {
        kept.logger.warn({ err: error, conversationId }, 'approval grants: the stored grants could not be read; the conversation has none here until the next read');
        this.conversations.delete(conversationId);
        return;
      }
      if (this.changes === changes) loaded = read;
    }
    if (loaded === undefined) return;
    if (loaded.length === 0) this.conversations.delete(conversationId);
    else this.conversations.set(conversationId, new Map(loaded.map((g) => [g.tool, { tool: g.tool, grantedAt: g.grantedAt, grantedFor: g.grantedFor }])));
  }

  private revokeHere(conversationId: string, tool: string | undefined): number {
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

  /**
   * Runs `work` after the conversation's earlier writes settled, whatever their outcome: each
   * write's failure is reported by its own caller (the returned promise), the chain only orders.
   */
  private write<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    this.changes += 1;
    const before = this.writes.get(conversationId) ?? Promise.resolve();
    const next = before.then(work);
    // The chain's link never rejects: `next`'s failure is the caller's to report.
    const settled = next.then(() => undefined, () => undefined);
    this.writes.set(conversationId, settled);
    void settled.then(() => {
      if (this.writes.get(conversationId) === settled) this.writes.delete(conversationId);
    });
    return next;
  }
}
