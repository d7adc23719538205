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
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

/**
 * A provider that runs the authorization-code flow itself (it opened or printed the
 * authorization URL in `redirectToAuthorization`) and can hand over the code the user's
 * browser brought back. With one, `connectServer` completes the flow instead of failing
 * `unauthorized`.
 */
export interface AuthorizationCodeProvider extends OAuthClientProvider {
  /** Resolves with the authorization code of the redirect that follows the last `redirectToAuthorization`. */
  waitForAuthorizationCode(): Promise<string>;
}

/** Whether a provider can complete an authorization-code redirect (see {@link AuthorizationCodeProvider}). */
export function canCompleteRedirect(provider: OAuthClientProvider | undefined): provider is AuthorizationCodeProvider {
  return typeof (provider as Partial<AuthorizationCodeProvider> | undefined)?.waitForAuthorizationCode === 'function';
}

/** Whether an error (or what it wraps) means the server refused our credentials. */
export function isUnauthorized(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnauthorizedError) return true;
    if (e instanceof StreamableHTTPError && (e.code === 401 || e.code === 403)) return true;
  }
  return false;
}

/** The mistakes in an `authProvider` value; empty when it has the interface's required members. */
export function authProviderErrors(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return ['authProvider: expected an OAuthClientProvider object'];
  const provider = value as Record<string, unknown>;
  const missing = ['tokens', 'saveTokens', 'clientInformation', 'redirectToAuthorization', 'saveCodeVerifier', 'codeVerifier'].filter(
    (name) => typeof provider[name] !== 'function',
  );
  return missing.length > 0 ? [`authProvider: not an OAuthClientProvider (missing ${missing.join(', ')})`] : [];
}
