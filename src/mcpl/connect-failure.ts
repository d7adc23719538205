/**
 * Classifies a failed connect sequence into a {@link ConnectError}: a pure function of the error
 * the sequence met and the first fatal error its transport saw — the SDK reports a lost
 * transport as "Connection closed", which hides a refused port or a 401 behind it. Loaded with
 * the connection (and the SDK), never by the package's entry.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ConnectError, type ConnectErrorCode } from './connect-error.ts';

const REFUSED = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|fetch failed/;

/** Text of an error and of its causes (fetch puts the socket error in `cause`). */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const e = current as { message?: unknown; code?: unknown; cause?: unknown };
    parts.push(`${typeof e.code === 'string' ? `${e.code} ` : ''}${String(e.message ?? current)}`);
    current = e.cause;
  }
  return parts.join(' ← ');
}

/**
 * Classifies one failure. `transportFailure` is the first fatal error the transport saw (it
 * explains a "Connection closed"); `spawnFailed` says the error came from starting the process.
 */
export function classifyConnectFailure(
  error: unknown,
  transportFailure: Error | undefined,
  context: { serverId: string; step: string; target: string; spawnFailed: boolean; stderr: string },
): ConnectError {
  const { serverId, step, target, stderr } = context;
  const head = `server ${serverId} failed to start`;
  const make = (code: ConnectErrorCode, text: string, cause: unknown) => new ConnectError(code, serverId, step, `${head}: ${text}${stderr}`, { cause });
  if (context.spawnFailed) return make('spawn_failed', `could not spawn ${target}: ${describe(error)}`, error);
  for (const candidate of [transportFailure, error]) {
    if (candidate instanceof UnauthorizedError || (candidate instanceof StreamableHTTPError && candidate.code === 401)) {
      return make('unauthorized', `${step} failed: ${target} answered 401 Unauthorized (${describe(candidate)})`, candidate);
    }
  }
  for (const candidate of [transportFailure, error]) {
    if (candidate && !(candidate instanceof McpError) && !(candidate instanceof StreamableHTTPError) && REFUSED.test(describe(candidate))) {
      return make('connection_refused', `could not connect to ${target}: ${describe(candidate)}`, candidate);
    }
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return make('timeout', `${step} failed: no answer in time (${describe(error)})`, error);
  }
  const reason = transportFailure ? `${describe(error)} (the transport had failed: ${describe(transportFailure)})` : describe(error);
  return make('initialize_failed', `${step} failed: ${reason}`, error);
}
