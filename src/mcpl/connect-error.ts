/**
 * The typed error `connectServer` rejects with, so a caller can tell a server that refused
 * it (`unauthorized`) from one that is not there or broke during the handshake. Minimal
 * form added with OAuth (only `unauthorized` is produced here); the general client work
 * fills in the other codes.
 */

/** Why a server could not be connected. */
export type ConnectErrorCode = 'spawn_failed' | 'connection_refused' | 'initialize_failed' | 'unauthorized' | 'timeout';

export class ConnectError extends Error {
  override readonly name = 'ConnectError';
  constructor(
    readonly code: ConnectErrorCode,
    /** The server's configured id. */
    readonly serverId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
