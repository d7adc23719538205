/**
 * One MCP session as serve mode sees it: the conversation its calls belong to and the requests
 * it has in flight. Each request runs in its own host stream (so cancelling one request aborts
 * that call only); the session ending — stdio closing, an HTTP DELETE, the transport closing —
 * ends every one of them, so the session's model calls abort.
 *
 * A session owns its conversations: the one a request names in
 * `_meta["agent-framework/conversationId"]` is looked up *inside* this session
 * ({@link conversationFor}), so no client can reach another session's script state, approval
 * grants, busy lock or cancellations by naming its conversation. The ids are opaque (see
 * http.ts): nothing in them is a credential such as the `Mcp-Session-Id`.
 *
 * A session that ends releases everything it held ({@link endServeSession}): its calls are
 * aborted, its {@link ServeSession.onEnd} releases run (its gateway hub membership), and every
 * conversation it used is ended on the host — inferences forgotten, "for this conversation"
 * grants revoked, VM and interpreter freed — since nothing can reach a session's conversations
 * once it is gone.
 */
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../host/tool-host.ts';

/**
 * Conversations one HTTP session may use by default: its own and 64 it names. Each keeps host
 * state until the session ends (its inferences, grants, a VM or interpreter while in use), so
 * the count is bounded; past it, a request naming a new one is refused with an error saying so.
 */
export const DEFAULT_MAX_CONVERSATIONS_PER_SESSION = 65;

export class ServeSession {
  private readonly inFlight = new Map<RequestId, (reason: string) => void>();
  private endedBecause: string | undefined;
  private readonly endHooks: (() => void)[] = [];
  private readonly used = new Set<string>();

  constructor(
    /** Conversation of requests that name none (`_meta["agent-framework/conversationId"]`). */
    readonly conversationId: string,
    /**
     * Whether named conversations live inside this session (HTTP: many clients share one
     * host). stdio has one client owning every conversation of the process, so there a
     * named conversation is taken as named.
     */
    private readonly namespaced = true,
    /** Conversations it may use, its own included (HTTP); stdio's one client owns the process and is not capped. */
    private readonly maxConversations = DEFAULT_MAX_CONVERSATIONS_PER_SESSION,
  ) {
    this.used.add(conversationId);
  }

  /**
   * The conversation a request belongs to: the session's own when it names none, else the
   * named one within this session (`<own>/<name>`), so the same name in two sessions is two
   * conversations.
   */
  conversationFor(named: unknown): string {
    if (typeof named !== 'string' || named === '') return this.conversationId;
    const id = this.namespaced ? `${this.conversationId}/${named}` : named;
    if (!this.used.has(id)) {
      if (this.namespaced && this.used.size >= this.maxConversations) {
        throw new McpError(ErrorCode.InvalidParams, `this session uses ${this.maxConversations} conversations already, its own included (serve's cap per session); reuse one, or open another session`);
      }
      this.used.add(id);
    }
    return id;
  }

  /** Every conversation the session used: its own and those its requests named. */
  get conversations(): ReadonlySet<string> {
    return this.used;
  }

  /** Why the session ended, once it has. */
  get ended(): string | undefined {
    return this.endedBecause;
  }

  /** Number of requests being answered now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Tracks a request until the returned function is called; `cancel` aborts its call. */
  track(requestId: RequestId, cancel: (reason: string) => void): () => void {
    this.inFlight.set(requestId, cancel);
    return () => {
      if (this.inFlight.get(requestId) === cancel) this.inFlight.delete(requestId);
    };
  }

  /** Aborts the calls of these requests (those still in flight). Returns how many. */
  cancel(requestIds: readonly RequestId[], reason: string): number {
    let count = 0;
    for (const id of requestIds) {
      const cancel = this.inFlight.get(id);
      if (!cancel) continue;
      this.inFlight.delete(id);
      cancel(reason);
      count += 1;
    }
    return count;
  }

  /**
   * Runs `release` when the session ends (at once if it has): what the session joined or holds
   * outside itself, such as its gateway hub membership, goes with it.
   */
  onEnd(release: () => void): void {
    if (this.endedBecause !== undefined) release();
    else this.endHooks.push(release);
  }

  /**
   * Ends the session: every call still in flight is aborted, then every {@link onEnd} release
   * runs. Idempotent. A release that throws does not stop the others; the first error is
   * rethrown once all have run.
   */
  end(reason: string): void {
    if (this.endedBecause !== undefined) return;
    this.endedBecause = reason;
    this.cancel([...this.inFlight.keys()], reason);
    const failures: unknown[] = [];
    for (const release of this.endHooks.splice(0)) {
      try {
        release();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/**
 * Ends `session` for good: {@link ServeSession.end} (calls aborted, releases run), then every
 * conversation it used is ended on `host`. Resolves once the host's conversation-end hooks
 * settled; a failure is rethrown after every conversation was tried.
 */
export async function endServeSession(host: Pick<ToolHost, 'endConversation'>, session: ServeSession, reason: string): Promise<void> {
  let failure: unknown;
  try {
    session.end(reason);
  } catch (error) {
    failure = error;
  }
  const outcomes = await Promise.allSettled([...session.conversations].map((id) => host.endConversation(id, reason)));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failure === undefined && rejected) failure = rejected.reason;
  if (failure !== undefined) throw failure;
}
