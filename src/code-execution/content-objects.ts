/**
 * Content objects: how a script sees the blocks of a tool result that is not plain text or
 * JSON — images, audio, resource links, embedded resources, several text blocks — one small,
 * JSON-safe object per block, the same in JavaScript (QuickJS and V8) and Python (as dicts).
 *
 * The shape is MCP's content block with its envelope removed: `annotations` and `_meta` are
 * dropped, and an embedded resource's fields are lifted to the top (`{ type: "resource", uri,
 * text }` rather than `{ type: "resource", resource: { uri, text } }`), so that every object
 * answers `type` first and carries its payload at the top. Binary payloads stay base64 text
 * (`data`, `blob`): the only binary form every engine and the JSON bridge carry unchanged.
 *
 * A script returns the same objects to pass content on to the model (returned-content.ts).
 */
import type { ContentBlock } from '../host/types.ts';
import { JsonText } from '../runtime/json-text.ts';

/** A text block. */
export interface TextObject {
  type: 'text';
  text: string;
}

/** An image or audio block; `data` is base64. */
export interface MediaObject {
  type: 'image' | 'audio';
  mimeType: string;
  data: string;
}

/** A link to a resource the server offers (read it with the server's resources, not here). */
export interface ResourceLinkObject {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** An embedded resource: its text, or its bytes as base64 `blob`. */
export interface ResourceObject {
  type: 'resource';
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** One content block as a script sees it (and may return it). */
export type ContentObject = TextObject | MediaObject | ResourceLinkObject | ResourceObject;

/** The fields of a resource link a content object keeps, in order. */
export const LINK_FIELDS = ['uri', 'name', 'title', 'description', 'mimeType', 'size'] as const;

/**
 * One tool-result block as its content object. A block of a type this version does not know
 * (a later MCP revision's) is handed over as it came, minus `annotations` and `_meta`.
 */
export function toContentObject(block: ContentBlock): ContentObject | Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType as string, data: block.data as string };
    case 'resource_link': {
      const out: Record<string, unknown> = { type: 'resource_link' };
      for (const key of LINK_FIELDS) if (block[key] !== undefined) out[key] = block[key];
      return out as unknown as ResourceLinkObject;
    }
    case 'resource': {
      const inner = (block.resource ?? {}) as Record<string, unknown>;
      const out: ResourceObject = { type: 'resource', uri: inner.uri as string };
      if (inner.mimeType !== undefined) out.mimeType = inner.mimeType as string;
      if (inner.text !== undefined) out.text = inner.text as string;
      if (inner.blob !== undefined) out.blob = inner.blob as string;
      return out;
    }
    default: {
      const { annotations: _a, _meta: _m, ...rest } = block;
      return rest;
    }
  }
}

/**
 * What a script receives for a successful result with these blocks and no structured content:
 * `null` for none; the text of a lone text block, parsed when it is JSON; otherwise one
 * content object per block, in order.
 */
export function contentValue(blocks: readonly ContentBlock[]): unknown {
  if (blocks.length === 0) return null;
  const json = jsonLikeText(blocks);
  if (json !== undefined) return json.value();
  if (blocks.length === 1 && blocks[0]!.type === 'text' && typeof blocks[0]!.text === 'string') return blocks[0]!.text as string;
  return blocks.map(toContentObject);
}

/**
 * A lone text block that begins (after white space) with `{` or `[`, as a {@link JsonText}: the
 * value is its JSON parse, or the text itself when it merely looks like JSON. Else undefined.
 */
export function jsonLikeText(blocks: readonly ContentBlock[]): JsonText | undefined {
  if (blocks.length !== 1 || blocks[0]!.type !== 'text' || typeof blocks[0]!.text !== 'string') return undefined;
  const text = blocks[0]!.text as string;
  const trimmed = text.trimStart();
  return trimmed.startsWith('{') || trimmed.startsWith('[') ? new JsonText(text) : undefined;
}
