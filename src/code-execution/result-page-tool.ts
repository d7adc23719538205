/**
 * The `result_page` tool: the model reads a value that `code_execution` cut to fit its result
 * cap, page by page, from the handle the cut result named (result-pages.ts keeps the values).
 * Model-only (`callers: 'model'`): a script already receives whole values and has no use for it.
 *
 * A page's result is two text blocks: a line of JSON (`handle`, `offset`, `chars`, and `next`
 * unless it is the last page), then the page's text itself, unescaped, so a page costs the
 * model what it contains. The pages' texts in order are the value's JSON text exactly.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { HostToolContext, ToolResult } from '../host/types.ts';
import { refusalResult } from './result.ts';
import { PAGES_TTL_MS, type ResultPages } from './result-pages.ts';

export const RESULT_PAGE = 'result_page';

/** Characters held back from the result cap for a page's header line. */
const HEADER_RESERVE = 256;

/** The one line a cut result carries: the call that reads the rest. */
export function readMoreLine(handle: string, pageChars: number, ttlMs: number = PAGES_TTL_MS): string {
  return `The whole value's JSON text: call result_page({ "handle": "${handle}" }), then with "offset": next for each further page (${pageChars} characters a page; kept ${Math.round(ttlMs / 60_000)} min).`;
}

/** Characters of value text per page under a result cap of `maxResultChars`. */
export function pageCharsFor(maxResultChars: number): number {
  return Math.max(1024, maxResultChars - HEADER_RESERVE);
}

/** Registers `result_page` on the host, reading from `pages`. */
export function registerResultPage(host: ToolHost, pages: ResultPages, pageChars: number): void {
  host.registerTool({
    name: RESULT_PAGE,
    description: "Read a value that code_execution cut to fit: a page of its whole JSON text, from the handle in the cut result's truncated.value.",
    // The agent's own earlier output, read back: what RFC-008 calls memory.
    classes: ['memory'],
    callers: 'model',
    inputSchema: {
      type: 'object',
      properties: {
        handle: { type: 'string', description: 'truncated.value.handle of the cut result.' },
        offset: { type: 'integer', minimum: 0, description: 'Where the page starts: 0 (default), then the previous page\'s next.' },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    handler: async (args: Record<string, unknown>, ctx: HostToolContext): Promise<ToolResult> => {
      const handle = args.handle;
      const offset = args.offset ?? 0;
      if (typeof handle !== 'string' || !(Number.isSafeInteger(offset) && (offset as number) >= 0)) {
        return refusalResult('result_page needs `handle` (a string) and optionally `offset` (a whole number ≥ 0).');
      }
      const page = pages.read(ctx.conversationId, handle, offset as number, pageChars);
      if (page === undefined) {
        return refusalResult('No value is kept under this handle for this conversation: a handle is read only in the conversation whose run made it, until it expires. Run the script again to get a new one.');
      }
      const header = { handle, offset: page.offset, chars: page.chars, ...(page.next !== undefined ? { next: page.next } : {}) };
      return { content: [{ type: 'text', text: JSON.stringify(header) }, { type: 'text', text: page.text }] };
    },
  });
}
