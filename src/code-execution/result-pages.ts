/**
 * The rest of a value that was cut to fit the model's result cap (issue 44, item 3): the whole
 * value's JSON text, kept host-side under a random handle for the conversation that produced it,
 * so that the model can read it page by page with the `result_page` tool (result-page-tool.ts).
 *
 * Bounded in bytes and in time, each bound a named constant below (docs/security.md):
 * a conversation keeps at most {@link PAGES_PER_CONVERSATION_BYTES}, all conversations together
 * at most {@link PAGES_TOTAL_BYTES}; to make room a conversation gives up its own oldest values,
 * never another's (past that a new value is not kept, and its result says so: one conversation
 * can fill the store for a while but cannot evict another's values), and each value is kept for
 * {@link PAGES_TTL_MS}. A cut value is over the result cap (64 KiB of JSON by default), so the
 * store holds at most a few hundred values and its sweep stays small. A value is counted at
 * two bytes per UTF-16 unit of its JSON text, what a JavaScript string can take in memory.
 *
 * Tenants: a handle is read only by the conversation that made it; to any other it is unknown,
 * with the same answer as a handle that never existed (no oracle), whatever its randomness.
 */
import { randomBytes } from 'node:crypto';

/** Bytes of kept values per conversation: a full 8 MiB return (maxReturnBytes) and some more. */
export const PAGES_PER_CONVERSATION_BYTES = 24 * 1024 * 1024;
/** Bytes of kept values over all conversations of one `code_execution` tool. */
export const PAGES_TOTAL_BYTES = 96 * 1024 * 1024;
/** How long a kept value can be read after its run ended. */
export const PAGES_TTL_MS = 10 * 60 * 1000;

/** The bounds of one store; the constants above unless a test or an embedding narrows them. */
export interface ResultPagesLimits {
  perConversationBytes: number;
  totalBytes: number;
  ttlMs: number;
}

export const DEFAULT_RESULT_PAGES_LIMITS: ResultPagesLimits = {
  perConversationBytes: PAGES_PER_CONVERSATION_BYTES,
  totalBytes: PAGES_TOTAL_BYTES,
  ttlMs: PAGES_TTL_MS,
};

interface Kept {
  readonly text: string;
  readonly bytes: number;
  readonly expires: number;
}

/** One page of a kept value's JSON text. */
export interface ResultPage {
  /** The text from `offset`, at most the page size. */
  text: string;
  offset: number;
  /** Length of the whole JSON text, in UTF-16 units (JavaScript string length). */
  chars: number;
  /** Where the next page starts; absent on the last page. */
  next?: number;
}

const bytesOf = (text: string): number => text.length * 2;

/** Kept values by conversation, then by handle; insertion order is age. */
export class ResultPages {
  private readonly byConversation = new Map<string, Map<string, Kept>>();
  private total = 0;

  constructor(
    private readonly limits: ResultPagesLimits = DEFAULT_RESULT_PAGES_LIMITS,
    /** The clock (tests move it). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held now, over all conversations (after dropping expired values). */
  heldBytes(): number {
    this.sweep();
    return this.total;
  }

  /**
   * Keeps `text` (a value's whole JSON text) for `conversationId`; its handle, or undefined when
   * it cannot be kept (larger than a conversation's share, or the store is full with other
   * conversations' values), with the reason.
   */
  keep(conversationId: string, text: string): { handle: string } | { refused: string } {
    this.sweep();
    const bytes = bytesOf(text);
    if (bytes > this.limits.perConversationBytes) return { refused: `the value is larger than what a conversation may keep (${this.limits.perConversationBytes} bytes)` };
    let own = this.byConversation.get(conversationId);
    // Make room among this conversation's own values, oldest first, for both caps: a
    // conversation may give up its own older values, never another's.
    if (own !== undefined) {
      let used = 0;
      for (const kept of own.values()) used += kept.bytes;
      for (const [handle, kept] of own) {
        if (used + bytes <= this.limits.perConversationBytes && this.total + bytes <= this.limits.totalBytes) break;
        own.delete(handle);
        used -= kept.bytes;
        this.total -= kept.bytes;
      }
    }
    if (this.total + bytes > this.limits.totalBytes) return { refused: 'the host keeps too many cut values right now' };
    if (own === undefined) this.byConversation.set(conversationId, (own = new Map()));
    const handle = `rv_${randomBytes(12).toString('base64url')}`;
    own.set(handle, { text, bytes, expires: this.now() + this.limits.ttlMs });
    this.total += bytes;
    return { handle };
  }

  /**
   * A page of at most `pageChars` units of the value under `handle`, from `offset`; undefined
   * when `conversationId` has no such handle (never made, made by another conversation, expired).
   */
  read(conversationId: string, handle: string, offset: number, pageChars: number): ResultPage | undefined {
    this.sweep();
    const kept = this.byConversation.get(conversationId)?.get(handle);
    if (kept === undefined) return undefined;
    const start = Math.min(offset, kept.text.length);
    let end = Math.min(start + pageChars, kept.text.length);
    // Never split a surrogate pair across pages: each page is well-formed text on its own.
    if (end < kept.text.length && end > start && isHighSurrogate(kept.text.charCodeAt(end - 1))) end--;
    return { text: kept.text.slice(start, end), offset: start, chars: kept.text.length, ...(end < kept.text.length ? { next: end } : {}) };
  }

  /** Drops every value of a conversation (it ended). */
  endConversation(conversationId: string): void {
    const own = this.byConversation.get(conversationId);
    if (own === undefined) return;
    for (const kept of own.values()) this.total -= kept.bytes;
    this.byConversation.delete(conversationId);
  }

  clear(): void {
    this.byConversation.clear();
    this.total = 0;
  }

  /** Drops expired values; cost in proportion to the values held (bounded by the byte caps). */
  private sweep(): void {
    const now = this.now();
    for (const [conversationId, own] of this.byConversation) {
      for (const [handle, kept] of own) {
        if (kept.expires > now) continue;
        own.delete(handle);
        this.total -= kept.bytes;
      }
      if (own.size === 0) this.byConversation.delete(conversationId);
    }
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
