/** Small constructors for tool results, so every error the host produces reads the same way. */
import type { ToolResult } from './types.ts';

/** A successful result holding one text block. */
export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

/** An error result (`isError: true`) holding the message as its one text block: the model sees it, nothing throws. */
export function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The text of a result's text blocks, joined by newlines. */
export function resultText(result: ToolResult): string {
  return result.content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}
