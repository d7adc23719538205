/**
 * Conversation-wide approval grants kept in the store (docs/durable.md, "Several instances"): the
 * {@link GrantKeeper} code_execution installs on its host when it has a store, so that a grant
 * ("for this conversation") made at one instance holds at every instance sharing the store, and
 * a revoke at any of them ends it for all from their next run in the conversation. Only the
 * conversation, the tool, when and by which call: never a script or an argument.
 */
import type { ConversationGrant, GrantKeeper } from '../host/approval-grants.ts';
import { MAX_GRANT_KEY_CHARS, STORED_GRANT_TTL_MS } from '../store/bounds.ts';
import type { DurableStore } from '../store/types.ts';

/** Whether a key is short enough to be stored or loaded ({@link MAX_GRANT_KEY_CHARS}). */
const fits = (text: unknown): text is string => typeof text === 'string' && text.length <= MAX_GRANT_KEY_CHARS;

export class StoredGrants implements GrantKeeper {
  constructor(private readonly store: DurableStore, private readonly ttlMs = STORED_GRANT_TTL_MS) {}

  async save(conversationId: string, grants: readonly ConversationGrant[]): Promise<void> {
    const over = [conversationId, ...grants.flatMap((g) => [g.tool, g.grantedFor])].find((key) => key.length > MAX_GRANT_KEY_CHARS);
    if (over !== undefined) throw new RangeError(`a grant key of ${over.length} characters is over ${MAX_GRANT_KEY_CHARS} (MAX_GRANT_KEY_CHARS); not stored`);
    await this.store.putGrants(conversationId, grants.map((g) => ({ tool: g.tool, grantedAt: g.grantedAt, grantedFor: g.grantedFor, expiresAt: g.grantedAt + this.ttlMs })));
  }

  remove(conversationId: string, tool?: string): Promise<number> {
    return this.store.deleteGrants(conversationId, tool);
  }

  /** The conversation's rows, checked: a row of another conversation, or with a key over the bound, is not taken. */
  async load(conversationId: string): Promise<ConversationGrant[]> {
    if (!fits(conversationId)) return [];
    const rows = await this.store.loadGrants(conversationId);
    return rows
      .filter((row) => row.conversation === conversationId && fits(row.tool) && fits(row.grantedFor) && Number.isFinite(row.grantedAt))
      .map((row) => ({ tool: row.tool, grantedAt: row.grantedAt, grantedFor: row.grantedFor }));
  }
}
