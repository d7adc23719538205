/**
 * OAuth 2.1 for remote servers, as the MCP SDK implements it. toolcell writes no OAuth: the
 * embedding application's `OAuthClientProvider` goes to the SDK's Streamable HTTP transport,
 * whose `auth()` does discovery (RFC 9728 protected-resource metadata, RFC 8414 / OIDC
 * metadata), dynamic registration, client ID metadata documents, PKCE, refresh and scope
 * step-up on `WWW-Authenticate`. What this file adds is the part the SDK leaves to its
 * caller: after an authorization-code redirect the connect is finished (`finishAuth`) and
 * retried once, when the provider can hand over the code; and telling an authorization
 * failure from any other.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

export { authProviderErrors, canCompleteRedirect, type AuthorizationCodeProvider } from './auth-provider.ts';

/** Whether an error (or what it wraps) means the server refused our credentials. */
export function isUnauthorized(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnauthorizedError) return true;
    if (e instanceof StreamableHTTPError && (e.code === 401 || e.code === 403)) return true;
  }
  return false;
}
