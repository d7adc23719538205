/**
 * Why `connectServer` failed, as a typed value: a `code` a program can branch on (retry a
 * refused port, prompt for credentials on `unauthorized`, fix a command on `spawn_failed`)
 * and a message that says what happened. Free of the MCP SDK, so that the package's entry can
 * export it without loading the SDK (connect-failure.ts classifies the SDK's errors into it).
 */

/**
 * - `spawn_failed`: the server's command could not be started (ENOENT, EACCES...).
 * - `connection_refused`: nothing answered at the URL (refused, reset, unknown host).
 * - `unauthorized`: the server answered HTTP 401 (or the OAuth flow could not authorize).
 * - `timeout`: a request of the connect sequence got no answer in `requestTimeoutMs`.
 * - `initialize_failed`: the server was reached but the handshake, the policy exchange or
 *   the first tool listing failed (see {@link ConnectError.step}).
 */
export type ConnectErrorCode = 'spawn_failed' | 'connection_refused' | 'initialize_failed' | 'unauthorized' | 'timeout';

/** A failed `connectServer` / reconnect. `cause` is the underlying error. */
export class ConnectError extends Error {
  override readonly name = 'ConnectError';
  constructor(
    readonly code: ConnectErrorCode,
    /** The server's configured id. */
    readonly serverId: string,
    /** The request of the connect sequence that failed: `initialize`, `featureSets/update` or `tools/list`. */
    readonly step: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
