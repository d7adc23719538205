/**
 * Content a script returns: deciding whether a script's return value is content for the model
 * (an image it fetched, a list mixing captions and images) rather than JSON, checking it, and
 * turning it into the MCP content blocks of the `code_execution` result.
 *
 * The rule, in the description and docs/script-results.md: the value is content when it is one
 * content object of a media type (content-objects.ts) or an array holding at least one, whose
 * other items are content objects or strings (text). A content object is recognised by its
 * `type` together with its payload field (`data` for image and audio, `uri` for links, `uri`
 * with `text` or `blob` — or MCP's nested `resource` — for resources), so plain data that
 * merely has a `type` field stays JSON. Once recognised, it is
 * checked in full (base64, mimeType, size) and a bad one fails the run with a `ContentError`
 * saying what is wrong, rather than reaching the model as JSON it cannot see.
 *
 * Pure: no I/O; the caller (tool.ts) puts the blocks after the envelope's JSON text.
 */
import type { ContentBlock } from '../host/types.ts';
import { LINK_FIELDS } from './content-objects.ts';

/** Bounds of what one run may return as content. */
export interface ContentLimits {
  /**
   * Total bytes: decoded media and blobs plus the UTF-8 text of text items and resources, plus
   * the UTF-8 bytes of every other string field a block carries to the model (uri, name, title,
   * description, mimeType): see {@link fieldBytes}.
   */
  maxBytes: number;
  /** Most blocks one run may return. */
  maxBlocks: number;
}

/** Default bound: 4 MiB, within the JavaScript engines' 8 MiB return cap once base64 is counted. */
export const DEFAULT_MAX_CONTENT_BYTES = 4 * 1024 * 1024;
export const MAX_CONTENT_BLOCKS = 100;

/** What the envelope says about one returned block (its payload is in the result's content). */
export interface ContentSummary {
  type: string;
  mimeType?: string;
  /** Decoded bytes of media and blobs; UTF-8 bytes of text. */
  bytes: number;
  uri?: string;
}

export type ReturnedContent =
  | { kind: 'none' }
  | { kind: 'content'; blocks: ContentBlock[]; summary: ContentSummary[] }
  | { kind: 'error'; message: string };

const MEDIA_TYPES = new Set(['image', 'audio']);
/** A MIME type's grammar (RFC 6838 restricted names), with parameters (`; charset=utf-8`). */
const MIME = /^([A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126})\/([A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126})(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[A-Za-z0-9!#$%&'*^_.+`|~-]+))*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A URI needs a scheme; anything after it is the server's business. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

const ALLOWED_KEYS: Record<string, ReadonlySet<string>> = {
  image: new Set(['type', 'mimeType', 'data']),
  audio: new Set(['type', 'mimeType', 'data']),
  resource_link: new Set(['type', ...LINK_FIELDS]),
  resource: new Set(['type', 'uri', 'mimeType', 'text', 'blob', 'resource']),
  text: new Set(['type', 'text']),
};
/** MCP's own envelope fields: accepted on a returned block (raw MCP blocks work) and dropped. */
const IGNORED_KEYS = new Set(['annotations', '_meta']);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether `v` is a content object of a non-text type: its `type` together with its payload field. */
export function isMediaObject(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v) || typeof v.type !== 'string') return false;
  if (MEDIA_TYPES.has(v.type)) return 'data' in v;
  if (v.type === 'resource_link') return 'uri' in v;
  if (v.type === 'resource') return ('uri' in v && ('text' in v || 'blob' in v)) || isRecord(v.resource);
  return false;
}

class ContentError extends Error {}

/** Decoded length of strict, padded base64; throws a ContentError naming the field otherwise. */
function base64Bytes(value: unknown, field: string): number {
  if (typeof value !== 'string') throw new ContentError(`${field} must be a base64 string, got ${value === null ? 'null' : typeof value}`);
  if (value.length === 0) throw new ContentError(`${field} is empty`);
  if (value.length % 4 !== 0 || !BASE64.test(value)) {
    const bad = value.search(/[^A-Za-z0-9+/=]/);
    const where =
      bad >= 0
        ? `character ${bad + 1} is ${JSON.stringify(value[bad])}`
        : value.length % 4 !== 0
          ? `its length ${value.length} is not a multiple of 4 (padding with "=" is required)`
          : '"=" may only pad its end (at most two)';
    throw new ContentError(`${field} is not valid base64: ${where}`);
  }
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return (value.length / 4) * 3 - padding;
}

function mimeType(value: unknown, field: string, topLevel?: string): string {
  if (typeof value !== 'string' || !MIME.test(value)) {
    throw new ContentError(`${field} must be a MIME type like ${topLevel ?? 'text'}/${topLevel === 'image' ? 'png' : topLevel === 'audio' ? 'wav' : 'plain'}, got ${JSON.stringify(value) ?? 'nothing'}`);
  }
  const top = MIME.exec(value)![1]!.toLowerCase();
  if (topLevel !== undefined && top !== topLevel) throw new ContentError(`${field} must be an ${topLevel}/* type for an ${topLevel}, got ${JSON.stringify(value)}`);
  return value;
}

function uri(value: unknown, field: string): string {
  if (typeof value !== 'string' || !URI.test(value)) throw new ContentError(`${field} must be a URI with a scheme (e.g. "file:///a.txt"), got ${JSON.stringify(value) ?? 'nothing'}`);
  return value;
}

function checkKeys(item: Record<string, unknown>, type: string): void {
  const allowed = ALLOWED_KEYS[type]!;
  const unknown = Object.keys(item).filter((k) => !allowed.has(k) && !IGNORED_KEYS.has(k));
  if (unknown.length > 0) throw new ContentError(`a ${type} object has no field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; its fields are ${[...allowed].join(', ')}`);
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** The payload fields, counted as {@link ContentSummary.bytes} (decoded, or UTF-8). */
const PAYLOAD = new Set(['data', 'blob', 'text']);

/**
 * UTF-8 bytes of a block's fields other than its payload — every string it carries to the
 * model (a link's uri, name, title, description; a resource's uri; MIME types), nested
 * `resource` included — plus the digits of numbers. Counted against `maxBytes` with the
 * payload: left out, a link's fields carried 14 MB past a 64 KiB limit.
 */
function fieldBytes(block: Record<string, unknown>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(block)) {
    if (key === 'type' || PAYLOAD.has(key)) continue;
    if (typeof value === 'string') bytes += utf8(value);
    else if (typeof value === 'number') bytes += String(value).length;
    else if (isRecord(value)) bytes += fieldBytes(value);
  }
  return bytes;
}

/** One item as a block and its summary; throws a ContentError saying what is wrong. */
function toBlock(item: unknown): { block: ContentBlock; summary: ContentSummary } {
  if (typeof item === 'string') return { block: { type: 'text', text: item }, summary: { type: 'text', bytes: utf8(item) } };
  if (!isRecord(item) || typeof item.type !== 'string') {
    throw new ContentError(`it is ${Array.isArray(item) ? 'an array' : item === null ? 'null' : typeof item}, not a string or a content object ({ type: "text" | "image" | "audio" | "resource_link" | "resource", … })`);
  }
  const type = item.type;
  if (!(type in ALLOWED_KEYS)) throw new ContentError(`type ${JSON.stringify(type)} is not a content type (text, image, audio, resource_link, resource)`);
  checkKeys(item, type);
  switch (type) {
    case 'text': {
      if (typeof item.text !== 'string') throw new ContentError('a text object needs `text`: a string');
      return { block: { type: 'text', text: item.text }, summary: { type: 'text', bytes: utf8(item.text) } };
    }
    case 'image':
    case 'audio': {
      const mime = mimeType(item.mimeType, `${type} mimeType`, type);
      const bytes = base64Bytes(item.data, `${type} data`);
      return { block: { type, data: item.data as string, mimeType: mime }, summary: { type, mimeType: mime, bytes } };
    }
    case 'resource_link': {
      const link: ContentBlock = { type: 'resource_link', uri: uri(item.uri, 'resource_link uri'), name: item.uri as string };
      if (item.name !== undefined) {
        if (typeof item.name !== 'string') throw new ContentError('resource_link name must be a string');
        link.name = item.name;
      }
      for (const key of ['title', 'description'] as const) {
        if (item[key] === undefined) continue;
        if (typeof item[key] !== 'string') throw new ContentError(`resource_link ${key} must be a string`);
        link[key] = item[key];
      }
      if (item.mimeType !== undefined) link.mimeType = mimeType(item.mimeType, 'resource_link mimeType');
      if (item.size !== undefined) {
        if (!Number.isSafeInteger(item.size) || (item.size as number) < 0) throw new ContentError('resource_link size must be a whole number of bytes');
        link.size = item.size;
      }
      return { block: link, summary: { type, bytes: 0, uri: link.uri as string } };
    }
    default: {
      // Lifted (as scripts receive it) or MCP's nested form, not both.
      const nested = isRecord(item.resource);
      if (nested && ['uri', 'mimeType', 'text', 'blob'].some((k) => k in item)) throw new ContentError('a resource object has its fields at the top or under `resource`, not both');
      const fields = nested ? (item.resource as Record<string, unknown>) : item;
      const resource: Record<string, unknown> = { uri: uri(fields.uri, 'resource uri') };
      if (fields.mimeType !== undefined) resource.mimeType = mimeType(fields.mimeType, 'resource mimeType');
      const hasText = fields.text !== undefined;
      if (hasText === (fields.blob !== undefined)) throw new ContentError('a resource object needs exactly one of `text` (a string) and `blob` (base64)');
      let bytes: number;
      if (hasText) {
        if (typeof fields.text !== 'string') throw new ContentError('resource text must be a string');
        resource.text = fields.text;
        bytes = utf8(fields.text);
      } else {
        bytes = base64Bytes(fields.blob, 'resource blob');
        resource.blob = fields.blob;
      }
      const summary: ContentSummary = { type, bytes, uri: resource.uri as string };
      if (resource.mimeType !== undefined) summary.mimeType = resource.mimeType as string;
      return { block: { type: 'resource', resource }, summary };
    }
  }
}

/**
 * Whether a script's return value is content, and if so its blocks (or why it cannot be sent).
 * `none`: the value is ordinary JSON and goes in the envelope's `value` as before.
 */
export function returnedContent(value: unknown, limits: ContentLimits): ReturnedContent {
  const single = isMediaObject(value);
  if (!single && !(Array.isArray(value) && value.some(isMediaObject))) return { kind: 'none' };
  const items: unknown[] = single ? [value] : (value as unknown[]);
  if (items.length > limits.maxBlocks) return { kind: 'error', message: `the returned content has ${items.length} items, over the limit of ${limits.maxBlocks}` };
  const blocks: ContentBlock[] = [];
  const summary: ContentSummary[] = [];
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    try {
      const { block, summary: s } = toBlock(items[i]);
      blocks.push(block);
      summary.push(s);
      total += s.bytes + fieldBytes(block as Record<string, unknown>);
    } catch (error) {
      if (!(error instanceof ContentError)) throw error;
      const where = single ? 'the returned content object' : `item ${i} of the returned content array`;
      return { kind: 'error', message: `${where}: ${error.message}` };
    }
    if (total > limits.maxBytes) {
      return { kind: 'error', message: `the returned content is over its limit of ${limits.maxBytes} bytes (reached at item ${i}); return less, or a smaller image` };
    }
  }
  return { kind: 'content', blocks, summary };
}

/** The error a run fails with when what it returned looks like content but is not valid. */
export const CONTENT_ERROR_NAME = 'ContentError';

/**
 * A run's report with its returned content taken out: on content, the value leaves the report
 * (the blocks carry it) and `content` holds the blocks and their summary; on bad content, the
 * run fails with a {@link CONTENT_ERROR_NAME} and keeps its value, so nothing is lost.
 */
export function takeReturnedContent<R extends { ok: boolean; value?: unknown; error?: unknown }>(
  report: R,
  limits: ContentLimits,
): { report: R; content?: { blocks: ContentBlock[]; summary: ContentSummary[] } } {
  if (!report.ok || report.value === undefined) return { report };
  const found = returnedContent(report.value, limits);
  if (found.kind === 'none') return { report };
  if (found.kind === 'error') return { report: { ...report, ok: false, error: { kind: 'script', name: CONTENT_ERROR_NAME, message: found.message } } };
  const { value: _value, ...rest } = report;
  return { report: rest as R, content: { blocks: found.blocks, summary: found.summary } };
}
