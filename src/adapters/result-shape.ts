/**
 * What every adapter decides about a tool result before writing it in its framework's terms,
 * in one place: an error (its text), media (text and image/audio parts in order; resource links
 * and embedded resources as their JSON text, no framework has a part for them), structured
 * content (its value), or plain text. Pure; each adapter only spells the chosen shape.
 */
import type { ContentBlock, ToolResult } from '../host/types.ts';

/** One part of a result that carries media. */
export type ResultPart = { type: 'text'; text: string } | { type: 'image' | 'audio'; data: string; mimeType: string };

export type ResultShape =
  | { kind: 'error'; /** The error's text blocks joined; empty when it has none. */ text: string }
  | { kind: 'media'; parts: ResultPart[] }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string };

/** The shape an adapter hands on: errors first, then media, then structured content, then text. */
export function resultShape(result: ToolResult): ResultShape {
  const text = () => result.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n');
  if (result.isError === true) return { kind: 'error', text: text() };
  if (result.content.some((b) => b.type !== 'text')) return { kind: 'media', parts: result.content.map(resultPart) };
  if (result.structuredContent !== undefined) return { kind: 'json', value: result.structuredContent };
  return { kind: 'text', text: text() };
}

function resultPart(block: ContentBlock): ResultPart {
  if (block.type === 'text') return { type: 'text', text: String(block.text) };
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string' && typeof block.mimeType === 'string') {
    return { type: block.type, data: block.data, mimeType: block.mimeType };
  }
  return { type: 'text', text: JSON.stringify(block) };
}
