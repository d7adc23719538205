/**
 * Which authorization server a client's credentials may go to. The SDK's `auth()` takes the
 * authorization server the MCP server's metadata names (RFC 9728) and hands this provider the
 * discovery result (`saveDiscoveryState`) before it registers, authorizes, or sends a secret,
 * a client assertion or a refresh token; the guard refuses there:
 * - when the authorization server's metadata names an `issuer` other than the URL it was
 *   fetched for (RFC 8414 §3.3: they must be identical). In the 2025-03-26 fallback — the MCP
 *   server names no authorization server (no RFC 9728 `authorization_servers`) and the SDK
 *   takes the metadata from the MCP server's own origin — that revision let the issuer carry a
 *   path, so there the issuer must only be on that origin;
 * - when the client has an issuer and this is not it: the one pinned by configuration, or else,
 *   for a client holding credentials of its own (pre-registered, client credentials), the one
 *   it first used (trust on first use: the binding is made at the first discovery, before
 *   anything is sent, and lasts for the provider's life).
 * Issuers compare as the SDK compares them: as parsed URLs, one trailing "/" apart at most.
 * The refusal is an `UnauthorizedError` naming both servers, so the connect or request fails
 * `unauthorized` with the reason.
 */
import { UnauthorizedError, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';

/** Whether two issuer identifiers name the same server: equal as parsed URLs, give or take one trailing "/". */
export function sameIssuer(a: string, b: string): boolean {
  let [x, y] = [a, b];
  try {
    [x, y] = [new URL(a).href, new URL(b).href];
  } catch {
    // Not URLs: compared as written.
  }
  return x === y || (x.endsWith('/') && x.slice(0, -1) === y) || (y.endsWith('/') && y.slice(0, -1) === x);
}

/** Whether two URLs share scheme, host and port (false when either is not a URL). */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** What one discovery established: the issuer an authorization response must name, and whether it must name one. */
export interface CheckedIssuer {
  /** The authorization server's `issuer` (its metadata's, or its URL when it has none). */
  issuer: string;
  /** The metadata advertises `authorization_response_iss_parameter_supported` (RFC 9207): a response without `iss` is refused. */
  issRequired: boolean;
}

/** The check of one provider; see the file header. */
export class IssuerGuard {
  private bound: string | undefined;

  /**
   * `pinned`: the only issuer allowed (configuration's `issuer`). `bindOnFirstUse`: without a
   * pin, the first authorization server used becomes the only one allowed.
   */
  constructor(
    private readonly pinned: string | undefined,
    private readonly bindOnFirstUse: boolean,
  ) {}

  /** The issuer the credentials are held to, if any. */
  get issuer(): string | undefined {
    return this.pinned ?? this.bound;
  }

  /** Checks a discovery result; throws `UnauthorizedError` saying why when nothing may be sent to that server. */
  check(state: OAuthDiscoveryState): CheckedIssuer {
    const url = state.authorizationServerUrl;
    const metadata = state.authorizationServerMetadata;
    const named = (state.resourceMetadata?.authorization_servers?.length ?? 0) > 0;
    if (metadata && (named ? !sameIssuer(metadata.issuer, url) : !sameOrigin(metadata.issuer, url))) {
      const rule = named ? 'RFC 8414 requires the URL it was fetched for' : 'without protected resource metadata the issuer must be on the MCP server\'s origin';
      throw new UnauthorizedError(`the authorization server metadata fetched for ${url} names the issuer ${metadata.issuer}; ${rule}, so nothing is sent to that server`);
    }
    const allowed = this.pinned ?? this.bound;
    if (allowed !== undefined && !sameIssuer(url, allowed)) {
      const why = this.pinned !== undefined ? 'its "issuer" setting' : 'the authorization server it used first';
      throw new UnauthorizedError(`the server names the authorization server ${url}, but this client's credentials belong to ${allowed} (${why}); nothing is sent to ${url}`);
    }
    if (allowed === undefined && this.bindOnFirstUse) this.bound = url;
    return { issuer: metadata?.issuer ?? url, issRequired: (metadata as { authorization_response_iss_parameter_supported?: unknown } | undefined)?.authorization_response_iss_parameter_supported === true };
  }
}
