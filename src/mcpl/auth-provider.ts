/**
 * The shape of an embedder's OAuth provider, checked without the MCP SDK: a host validates a
 * server's config (config.ts) before it loads the SDK's client, which comes with the first
 * connection (tool-host.ts). The flows themselves live in auth.ts.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

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

/** The mistakes in an `authProvider` value; empty when it has the interface's required members. */
export function authProviderErrors(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return ['authProvider: expected an OAuthClientProvider object'];
  const provider = value as Record<string, unknown>;
  const missing = ['tokens', 'saveTokens', 'clientInformation', 'redirectToAuthorization', 'saveCodeVerifier', 'codeVerifier'].filter(
    (name) => typeof provider[name] !== 'function',
  );
  return missing.length > 0 ? [`authProvider: not an OAuthClientProvider (missing ${missing.join(', ')})`] : [];
}
