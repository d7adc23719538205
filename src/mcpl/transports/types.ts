/**
 * What a connection needs from its transport beyond the SDK's `Transport`: batched writes
 * with back-pressure (lifecycle delivery), liveness, a wire log, and a way to end it at
 * once. Implemented by the stdio transport (a spawned server) and the Streamable HTTP one
 * (a remote server), so the connection's handshake, timeouts, reconnect and failure rules
 * are the same for both.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC error code of the synthetic answer a transport gives a request whose response it
 * dropped for exceeding its size limit.
 */
export const RESPONSE_TOO_LARGE = -32001;

/** One JSON-RPC message crossing the transport, for an operator's (or a test's) wire log. */
export interface WireFrame {
  direction: 'out' | 'in';
  message: JSONRPCMessage;
}

/** Something the server sent that was not a JSON-RPC message (skipped, never fatal). */
export interface GarbageLine {
  line: string;
  reason: string;
}

export interface HostTransport extends Transport {
  /** Called for each skipped inbound message. */
  ongarbage?: (garbage: GarbageLine) => void;
  /** Called with what the server writes to stderr (stdio only). */
  onstderr?: (chunk: string) => void;
  /** Called with every message sent and received; unset costs nothing. */
  onwire?: (frame: WireFrame) => void;
  /** The MCP protocol version agreed at `initialize`. */
  readonly protocolVersion: string | undefined;
  readonly isOpen: boolean;
  /** The first fatal error that closed the transport, if one did (a refused port, a 401). */
  readonly failure?: Error | undefined;
  /** The server process's pid (stdio only). */
  readonly pid: number | undefined;
  /** How the server process ended, once it has (stdio only). */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /**
   * Writes already-serialized, newline-terminated messages (a batch of lifecycle
   * notifications). Resolves when the transport can take more: callers respect back-pressure.
   */
  writeRaw(data: string): Promise<void>;
  /**
   * Ends the open stream of request `requestId` (a 2026 `subscriptions/listen` over HTTP: its
   * POST is aborted). False when this transport has no such stream (stdio: the request is
   * cancelled with `notifications/cancelled` instead).
   */
  endStream?(requestId: string): boolean;
  /** The response stream of a long-lived request ended without its answer (HTTP only; see http.ts). */
  onstreamend?: (requestId: string, reason: string) => void;
  /** Ends the transport politely, then forcibly after `graceMs`. */
  close(graceMs?: number): Promise<void>;
  /** Ends the transport at once (crash simulation, shutdown past the grace). */
  kill(): void;
}
