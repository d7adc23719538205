/**
 * The 2026-07-28 ("modern") MCP wire as serve reads it: which requests belong to that era, the
 * `_meta` keys each request carries instead of an `initialize` handshake, the typed errors the
 * spec defines for a request that is malformed for the era (each with the HTTP status it goes
 * out with), and the checks of the HTTP routing headers against the body. Pure functions.
 */
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** The protocol version of the stateless era. */
export const MODERN_VERSION = '2026-07-28';
/** Every version serve speaks: the stateless era, and the handshake era through the SDK. */
export const SUPPORTED_VERSIONS = [MODERN_VERSION, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** JSON-RPC error codes of the era (spec schema 2026-07-28). */
export const ErrorCodes = {
  invalidParams: -32602,
  methodNotFound: -32601,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
} as const;

/** A request the era refuses: its JSON-RPC error and the HTTP status it is sent with. */
export class ModernError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Methods the 2026 era removed; a client of the era calling one gets "method not found" (HTTP 404). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** What a request of the era says of its client, read from `_meta`. */
export interface RequestMeta {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
  logLevel: string | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The protocol version a request's `_meta` names, if any. */
export function metaVersion(message: unknown): string | undefined {
  if (!isObject(message) || !isObject(message.params) || !isObject(message.params._meta)) return undefined;
  const version = message.params._meta[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/** A JSON-RPC request (not a notification or response). */
export function isRequest(message: unknown): message is JSONRPCRequest {
  return isObject(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number');
}

/**
 * Whether `message` is a request of the stateless era: it names a protocol version in `_meta`
 * (the handshake era never does), or it is `server/discover`, or — over HTTP — the
 * `MCP-Protocol-Version` header names a version that has no handshake.
 */
export function isModernRequest(message: unknown, protocolHeader?: string): boolean {
  if (!isRequest(message)) return false;
  if (metaVersion(message) !== undefined || message.method === 'server/discover' || message.method === 'subscriptions/listen') return true;
  return protocolHeader !== undefined && !SUPPORTED_VERSIONS.slice(1).includes(protocolHeader as never);
}

/** Reads and checks a request's `_meta`: -32602 when a required key is missing, -32022 for a version serve does not speak. */
export function readRequestMeta(request: JSONRPCRequest): RequestMeta {
  const meta = isObject(request.params) ? request.params._meta : undefined;
  if (!isObject(meta)) throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: _meta is required (protocol version and client capabilities)', 400);
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') throw new ModernError(ErrorCodes.invalidParams, `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required`, 400);
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(capabilities)) throw new ModernError(ErrorCodes.invalidParams, `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required`, 400);
  if (version !== MODERN_VERSION) {
    throw new ModernError(ErrorCodes.unsupportedVersion, `Unsupported protocol version ${version}`, 400, { requested: version, supported: [MODERN_VERSION] });
  }
  const info = meta[META_CLIENT_INFO];
  const clientInfo = isObject(info) && typeof info.name === 'string' ? { name: info.name, version: typeof info.version === 'string' ? info.version : '0' } : { name: 'unnamed-client', version: '0' };
  const level = meta[META_LOG_LEVEL];
  return { protocolVersion: version, capabilities, clientInfo, logLevel: typeof level === 'string' ? level : undefined };
}

/** The `Mcp-Name` a request must carry: the tool, prompt or resource it names, or the task it acts on. */
export function nameOf(request: JSONRPCRequest): string | undefined {
  const params = isObject(request.params) ? request.params : {};
  if (request.method === 'tools/call' || request.method === 'prompts/get') return typeof params.name === 'string' ? params.name : undefined;
  if (request.method === 'resources/read') return typeof params.uri === 'string' ? params.uri : undefined;
  // The tasks extension: a load balancer routes a task's requests to the instance holding it.
  if (request.method === 'tasks/get' || request.method === 'tasks/update' || request.method === 'tasks/cancel') return typeof params.taskId === 'string' ? params.taskId : undefined;
  return undefined;
}

/**
 * Checks the HTTP routing headers against the body (-32020, HTTP 400): `MCP-Protocol-Version`
 * must be present and equal the `_meta` version, `Mcp-Method` the method, and `Mcp-Name` the
 * name the request acts on. A proxy routing on the headers then sees what the server runs.
 */
export function checkHeaders(request: JSONRPCRequest, header: (name: string) => string | undefined): void {
  const version = metaVersion(request);
  const sent = header('mcp-protocol-version');
  if (sent === undefined) throw new ModernError(ErrorCodes.headerMismatch, 'Header mismatch: MCP-Protocol-Version header is required', 400);
  if (version !== undefined && sent !== version) {
    throw new ModernError(ErrorCodes.headerMismatch, `Header mismatch: MCP-Protocol-Version ${sent} but _meta names ${version}`, 400);
  }
  const method = header('mcp-method');
  if (method === undefined) throw new ModernError(ErrorCodes.headerMismatch, 'Header mismatch: Mcp-Method header is required', 400);
  if (method !== request.method) {
    throw new ModernError(ErrorCodes.headerMismatch, `Header mismatch: Mcp-Method ${method} but the body calls ${request.method}`, 400);
  }
  const name = nameOf(request);
  const sentName = header('mcp-name');
  if (name !== undefined && sentName === undefined) throw new ModernError(ErrorCodes.headerMismatch, `Header mismatch: Mcp-Name header is required for ${request.method}`, 400);
  if (name !== undefined && sentName !== name) {
    throw new ModernError(ErrorCodes.headerMismatch, `Header mismatch: Mcp-Name ${sentName} but the body names ${name}`, 400);
  }
}
