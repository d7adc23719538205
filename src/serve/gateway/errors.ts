/**
 * A peer's JSON-RPC error passed on as the peer sent it. The SDK reads an error response into
 * an `McpError` whose message is `MCP error <code>: <message>`, and answers a handler's thrown
 * error with that message as it is — so each hop would stack another prefix. The error passed
 * on carries the peer's code, data and its own message, once.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';

/** An error the SDK answers with exactly `code`, `message` and `data` (no prefix added). */
export class PassedError extends Error {
  override name = 'PassedError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** `error` as its sender sent it, when it is a peer's JSON-RPC error; anything else unchanged. */
export function asSent(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  const prefix = `MCP error ${error.code}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return new PassedError(error.code, message, error.data);
}

/** Runs `work`, passing a peer's error on as its sender sent it. */
export async function passingErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asSent(error);
  }
}
