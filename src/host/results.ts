/** Small constructors for tool results, so every error the host produces reads the same way. */
import type { ToolResult } from './types.ts';

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

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
