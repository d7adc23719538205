/**
 * MCP 2026-07-28 `Mcp-Param-*` headers (SEP-2243): a tool's input schema may mark a primitive
 * argument with `"x-mcp-header": "<Name>"`, and a `tools/call` over Streamable HTTP then carries
 * the argument's value in the header `Mcp-Param-<Name>` as well as in the body, so that a proxy
 * can route on it. This file owns the value's encoding both ways: a string of printable ASCII
 * without leading or trailing whitespace goes as it is, any other string as
 * `=?base64?<Base64 of its UTF-8>?=`; numbers and booleans as their JSON text; a null or absent
 * argument sends no header. The client side (era.ts) builds the headers; serve's endpoint
 * (serve/modern/http.ts) checks them against the body.
 */

type Json = Record<string, unknown>;

/** The `x-mcp-header` marks of a tool's input schema: argument name → header name (without `Mcp-Param-`). */
export function paramHeaders(inputSchema: Json | undefined): Map<string, string> {
  const marks = new Map<string, string>();
  const properties = inputSchema?.properties;
  if (typeof properties !== 'object' || properties === null) return marks;
  for (const [property, schema] of Object.entries(properties as Json)) {
    const header = (schema as Json | null)?.['x-mcp-header'];
    if (typeof header === 'string' && TOKEN.test(header)) marks.set(property, header);
  }
  return marks;
}

/** RFC 9110 §5.6.2 token: what a header name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** The types SEP-2243 lets a marked argument have: its value must fit a header as it is. */
const MARKABLE_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);

/**
 * Why a tool's `x-mcp-header` marks are invalid (SEP-2243: a client MUST NOT use such a tool);
 * undefined when they are valid or absent. A mark must be a non-empty token (RFC 9110), unique
 * among the tool's marks whatever their case, on a property of type string, integer or boolean.
 */
export function paramHeaderProblem(inputSchema: Json | undefined): string | undefined {
  const properties = inputSchema?.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const seen = new Map<string, string>();
  for (const [property, schema] of Object.entries(properties as Json)) {
    if (typeof schema !== 'object' || schema === null || !('x-mcp-header' in schema)) continue;
    const header = (schema as Json)['x-mcp-header'];
    if (typeof header !== 'string' || !TOKEN.test(header)) return `the x-mcp-header of ${property} is not a header name (RFC 9110 token): ${JSON.stringify(header)}`;
    if (!MARKABLE_TYPES.has((schema as Json).type)) return `${property} carries an x-mcp-header but its type is ${JSON.stringify((schema as Json).type)}, not string, integer or boolean`;
    const other = seen.get(header.toLowerCase());
    if (other !== undefined) return `${other} and ${property} both name the header Mcp-Param-${header} (names compare without case)`;
    seen.set(header.toLowerCase(), property);
  }
  return undefined;
}

/** The header value for an argument; undefined when no header is sent (null, absent, or not a primitive). */
export function encodeParamValue(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value !== 'string') return undefined;
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) || value === '') return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A header value as the text it stands for; throws on a malformed Base64 form. */
export function decodeParamValue(sent: string): string {
  if (!(sent.startsWith('=?base64?') && sent.endsWith('?=') && sent.length >= 11)) return sent;
  const inner = sent.slice('=?base64?'.length, -2);
  if (inner.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(inner)) throw new Error('its Base64 value is malformed');
  return Buffer.from(inner, 'base64').toString('utf8');
}

/** The `Mcp-Param-*` headers of a `tools/call` with `args` to a tool with `inputSchema`. */
export function paramHeadersFor(inputSchema: Json | undefined, args: Json | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [property, name] of paramHeaders(inputSchema)) {
    const value = encodeParamValue(args?.[property]);
    if (value !== undefined) headers[`mcp-param-${name.toLowerCase()}`] = value;
  }
  return headers;
}

/**
 * Why the `Mcp-Param-*` headers of a `tools/call` disagree with its arguments; undefined when
 * they agree. Every marked argument with a value needs its header, decoding to the value's text.
 */
export function paramHeaderMismatch(inputSchema: Json | undefined, args: Json | undefined, header: (name: string) => string | undefined): string | undefined {
  for (const [property, name] of paramHeaders(inputSchema)) {
    const expected = encodeParamValue(args?.[property]);
    const sent = header(`mcp-param-${name.toLowerCase()}`);
    if (expected === undefined) continue;
    if (sent === undefined) return `Mcp-Param-${name} header is required: the body gives ${property}`;
    let text: string;
    try {
      text = decodeParamValue(sent);
    } catch (error) {
      return `Mcp-Param-${name}: ${(error as Error).message}`;
    }
    const value = args![property];
    const same = typeof value === 'string' ? text === value : typeof value === 'number' ? Number(text) === value && text.trim() !== '' : text === String(value);
    if (!same) return `Mcp-Param-${name} does not match the body's ${property}`;
  }
  return undefined;
}
