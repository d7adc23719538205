/**
 * Checks what a tool handed back before it becomes the result the model sees. A handler that
 * returns something that is not a result is a host dispatch failure (`failed`), not a
 * success with garbage in it.
 */
import type { ToolResult } from './types.ts';

export type Normalized = { ok: true; result: ToolResult } | { ok: false; message: string };

export function normalizeToolResult(raw: unknown): Normalized {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: `expected a result object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}` };
  }
  const candidate = raw as Partial<ToolResult>;
  if (!Array.isArray(candidate.content)) return { ok: false, message: 'the result has no content array' };
  for (const block of candidate.content) {
    if (block === null || typeof block !== 'object' || typeof (block as { type?: unknown }).type !== 'string') {
      return { ok: false, message: 'a content block has no type' };
    }
  }
  if (candidate.isError !== undefined && typeof candidate.isError !== 'boolean') {
    return { ok: false, message: 'isError must be a boolean' };
  }
  return { ok: true, result: candidate as ToolResult };
}
