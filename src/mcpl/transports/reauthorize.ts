/**
 * Authorization in the middle of a session, for a provider that runs the authorization-code
 * flow (an {@link AuthorizationCodeProvider}). The SDK's transport handles a 401 (refresh,
 * else a new authorization) and a 403 `insufficient_scope` (a new authorization with the
 * scope the server names) inside `send`, but when that needs the person's browser it only
 * starts the redirect and fails the request. This module supplies the two pieces the SDK
 * leaves to its caller:
 * - knowing that a redirect was started during a request (the provider is wrapped so its
 *   `redirectToAuthorization` is counted), so the transport can wait for the code, finish
 *   the authorization (`finishAuth`) and send the request again;
 * - a scope step-up never ends in a refresh: the SDK's `auth()` tries the stored refresh token
 *   before a new authorization, and a refresh cannot widen the scope, so the request would be
 *   refused again. On a 403 `insufficient_scope` the provider's tokens are invalidated first
 *   (`invalidateCredentials("tokens")`), so `auth()` goes to the authorization with the wider
 *   scope. The new grant brings its own refresh token. It asks for the union of the scope the
 *   last authorization asked for, the scope the tokens held and the scope challenged (SEP-2350).
 * All OAuth (discovery, PKCE, the token requests) stays the SDK's.
 */
import { extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { canCompleteRedirect, type AuthorizationCodeProvider } from '../auth.ts';

export class Reauthorization {
  /** Redirects started so far; a request compares the count before and after. */
  redirects = 0;
  /** The provider to give the SDK: `provider` with its redirects counted. */
  readonly provider: OAuthClientProvider;

  private constructor(private readonly codes: AuthorizationCodeProvider) {
    this.provider = new Proxy(codes, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === 'redirectToAuthorization') {
          return async (url: URL) => {
            this.redirects += 1;
            this.asked = url.searchParams.get('scope') ?? undefined;
            await target.redirectToAuthorization(url);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Undefined for a provider that cannot complete a redirect (client credentials, a token file): the SDK's handling is all there is. */
  static for(provider: OAuthClientProvider | undefined): Reauthorization | undefined {
    return canCompleteRedirect(provider) ? new Reauthorization(provider) : undefined;
  }

  /** The challenge of the step-up under way: the SDK gives up when the same one comes back, and so do we (the tokens stay). */
  private stepUp: string | undefined;

  /** The scope the last authorization asked for (its URL's `scope`), kept for the union of a step-up. */
  private asked: string | undefined;

  /**
   * Sees each answer of the MCP endpoint before the SDK does: a scope step-up drops the tokens a
   * refresh would reuse, and its challenge is handed on asking for the union of the scope held
   * and the scope challenged (SEP-2350: the wider grant must not lose what the first one gave;
   * the SDK asks for the challenged scope alone). Returns the answer the SDK is to see.
   */
  async noteAnswer(response: Response): Promise<Response> {
    if (response.ok) this.stepUp = undefined;
    if (response.status !== 403) return response;
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (error !== 'insufficient_scope') return response;
    const challenge = response.headers.get('www-authenticate') ?? '';
    if (challenge === this.stepUp) return response;
    this.stepUp = challenge;
    const held = (await this.codes.tokens())?.scope;
    await this.codes.invalidateCredentials?.('tokens');
    const union = scopeUnion(this.asked, held, scope);
    if (scope === undefined || union === scope) return response;
    const headers = new Headers(response.headers);
    headers.set('www-authenticate', challenge.replace(/scope="[^"]*"/, `scope="${union}"`));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  /** Waits for the code of the redirect just started; the caller then finishes the authorization and retries. */
  waitForCode(): Promise<string> {
    return this.codes.waitForAuthorizationCode();
  }
}

/** The space-separated union of scope strings, in first-seen order. */
export function scopeUnion(...scopes: (string | undefined)[]): string {
  const all = new Set<string>();
  for (const scope of scopes) for (const item of scope?.split(' ') ?? []) if (item !== '') all.add(item);
  return [...all].join(' ');
}
