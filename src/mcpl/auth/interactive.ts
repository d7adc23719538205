/**
 * The interactive authorization-code flow with PKCE for a person at a terminal: the
 * authorization URL is printed (or handed to a callback), and the browser's redirect is
 * caught by a listener on loopback (RFC 8252 §7.3). Everything OAuth — discovery,
 * registration, PKCE, the token exchange, refresh — is the SDK's `auth()`; this class is
 * only the SDK's `OAuthClientProvider` with in-memory storage and the loopback listener.
 * Tokens live in this object only, never on disk, and are never logged.
 *
 * The listener listens only while a flow is under way: from just before the authorization URL
 * is shown until the redirect carrying this flow's `state` came back (or the wait failed, or
 * `close()`), so a replayed redirect afterwards finds nobody. A request whose `state` is not
 * the flow's is somebody else's (a forged or stale redirect): it is answered with an error
 * page, logged, and the flow goes on waiting for the real one.
 *
 * Which authorization server is used is checked in the SDK's `saveDiscoveryState` hook, before
 * anything is sent to it (issuer-guard.ts): its metadata must name the issuer it was fetched
 * for, and it must be the pinned `issuer`, or else — for a pre-registered client — the one
 * first used. The redirect that carries the flow's `state` must name that issuer in `iss`
 * when it carries one, and must carry one when the server advertises it (RFC 9207); otherwise
 * the flow fails (a mix-up: the code is not used).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationCodeProvider } from '../auth.ts';
import { IssuerGuard, type CheckedIssuer } from './issuer-guard.ts';

/**
 * How many ignored redirects one flow logs; later ones are still answered and ignored, and one
 * line says that the rest go unlogged. Bounds what a local process hammering the listener can
 * write to the log.
 */
export const MAX_LOGGED_IGNORED_REDIRECTS = 10;

/** Options of {@link InteractiveAuthProvider.start}. */
export interface InteractiveAuthOptions {
  /** Loopback port of the redirect listener; 0 (default) picks a free one (kept for later flows). */
  redirectPort?: number;
  /** Scopes asked for when the server names none (its `WWW-Authenticate` scope wins, as the SDK does). */
  scopes?: readonly string[];
  /** `client_name` for dynamic registration (default "toolcell"). */
  clientName?: string;
  /** An HTTPS URL of this client's metadata document, used as client_id where the server supports CIMD. */
  clientMetadataUrl?: string;
  /**
   * A pre-registered client: no dynamic registration. Its redirect URI must be this listener's.
   * Without `issuer`, it is held to the authorization server it is first used with.
   */
  clientInformation?: OAuthClientInformationMixed;
  /**
   * The authorization server (its issuer URL) this client may use; any other the MCP server
   * names is refused before anything is sent to it. Absent: any, except that a pre-registered
   * client is held to the first one used.
   */
  issuer?: string;
  /** Shows the authorization URL to the person (default: one line on stderr). */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  /** How long {@link InteractiveAuthProvider.waitForAuthorizationCode} waits for the redirect before it fails; absent, without end. */
  authorizationTimeoutMs?: number;
  /** Where the provider reports what it refused or ignored, one line each (default: stderr, prefixed "toolcell: "). */
  log?: (line: string) => void;
}

/** An {@link AuthorizationCodeProvider} whose redirect lands on a loopback listener. */
export class InteractiveAuthProvider implements AuthorizationCodeProvider {
  readonly redirectUrl: string;
  private storedTokens: OAuthTokens | undefined;
  private client: OAuthClientInformationMixed | undefined;
  private verifier: string | undefined;
  /** The state of the flow under way; undefined when none is. */
  private expectedState: string | undefined;
  private pending: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  /** How the last flow ended (a code, or why not), for a wait that starts after it did. */
  private outcome: { code: string } | { error: Error } | undefined;
  /** The redirect listener, while a flow is under way. */
  private listener: Server | undefined;
  private ignoredThisFlow = 0;
  private closed = false;
  private readonly guard: IssuerGuard;
  /** The authorization server of the last discovery that passed the guard. */
  private checked: CheckedIssuer | undefined;
  /** The authorization server the flow under way went to (the discovery before its `state`), whose issuer its redirect must name. */
  private flowIssuer: CheckedIssuer | undefined;

  private constructor(
    private readonly port: number,
    private readonly options: InteractiveAuthOptions,
  ) {
    this.redirectUrl = `http://127.0.0.1:${port}/callback`;
    this.client = options.clientInformation;
    this.guard = new IssuerGuard(options.issuer, options.clientInformation !== undefined);
  }

  /**
   * Checks that the redirect port can be listened on (a free one is picked for port 0) and
   * returns the provider; the listener itself opens when an authorization starts. Call
   * {@link close} when done.
   */
  static async start(options: InteractiveAuthOptions = {}): Promise<InteractiveAuthProvider> {
    const probe = await listen(options.redirectPort ?? 0);
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return new InteractiveAuthProvider(port, options);
  }

  get clientMetadata(): OAuthClientMetadata {
    const metadata: OAuthClientMetadata & { application_type: 'native' } = {
      // SEP-837 (MCP 2026-07-28): registration names the kind of client. A loopback redirect
      // makes this a native application (OpenID Connect Dynamic Client Registration §2).
      application_type: 'native',
      client_name: this.options.clientName ?? 'toolcell',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scopes?.length ? { scope: this.options.scopes.join(' ') } : {}),
    };
    return metadata;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  /** The SDK's hook after discovery, before anything is sent to the authorization server: refuses one this client may not use. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.checked = this.guard.check(state);
  }

  state(): string {
    // The SDK asks for the state right after the discovery of the server it will send the person to.
    this.flowIssuer = this.checked;
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.storedTokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.storedTokens = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.closed) throw new Error('the interactive authorization provider was closed');
    this.outcome = undefined;
    this.ignoredThisFlow = 0;
    await this.openListener();
    if (this.options.onAuthorizationUrl) await this.options.onAuthorizationUrl(authorizationUrl);
    else process.stderr.write(`toolcell: open this URL to authorize: ${authorizationUrl.href}\n`);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: no authorization was started');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.storedTokens = undefined;
    if (scope === 'all' || scope === 'client') this.client = this.options.clientInformation;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  waitForAuthorizationCode(): Promise<string> {
    if (this.outcome) return 'code' in this.outcome ? Promise.resolve(this.outcome.code) : Promise.reject(this.outcome.error);
    if (!this.listener) return Promise.reject(new Error('no authorization is under way (its redirect listener is closed)'));
    // While someone waits for the redirect, the listener keeps the process alive (it is unref'd otherwise).
    this.listener.ref();
    const waited = new Promise<string>((resolve, reject) => (this.pending = { resolve, reject })).finally(() => {
      if (!this.pending) this.listener?.unref();
    });
    const limit = this.options.authorizationTimeoutMs;
    if (limit === undefined) return waited;
    // The wait itself fails at the limit (not a race beside it), so no promise is left pending.
    const timer = setTimeout(() => void this.endFlow({ error: new Error(`nobody authorized within ${limit} ms (the authorization URL was not followed to its end)`) }), limit);
    timer.unref();
    return waited.finally(() => clearTimeout(timer));
  }

  /** Stops the redirect listener if one is open; a pending wait fails, and no flow starts after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.endFlow({ error: new Error('the authorization listener was closed') });
  }

  private async openListener(): Promise<void> {
    if (this.listener) return;
    let server: Server;
    try {
      server = await listen(this.port);
    } catch (error) {
      throw new Error(`cannot open the redirect listener on 127.0.0.1:${this.port}: ${(error as Error).message}`, { cause: error });
    }
    server.on('request', (req, res) => this.answer(req, res));
    server.unref();
    this.listener = server;
  }

  /** One request to the listener: the flow's own redirect ends the flow; anything else is answered and ignored. */
  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.redirectUrl);
    // Each answer closes its connection: once the flow ends, nothing is kept open by a browser's keep-alive.
    const page = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(text);
    if (url.pathname !== '/callback') {
      page(404, 'Not found.');
      return;
    }
    const state = url.searchParams.get('state');
    if (this.expectedState === undefined || state !== this.expectedState) {
      page(400, 'Authorization failed: this redirect does not carry the state of the authorization under way; it was ignored.');
      this.noteIgnored(state === null ? 'carries no state' : 'carries a state that is not the one of the authorization under way');
      return;
    }
    const mixUp = this.issuerProblem(url.searchParams.get('iss'));
    if (mixUp) {
      page(400, 'Authorization failed: the response does not come from the expected authorization server.');
      void this.endFlow({ error: new Error(mixUp) });
      return;
    }
    const code = url.searchParams.get('code');
    if (code) {
      page(200, 'Authorized. You can close this window.');
      void this.endFlow({ code });
      return;
    }
    page(400, 'Authorization failed.');
    const error = url.searchParams.get('error');
    const description = url.searchParams.get('error_description');
    void this.endFlow({ error: new Error(`the authorization server answered ${error ?? 'without a code'}${description ? `: ${description}` : ''}`) });
  }

  /** RFC 9207: the response's `iss` must be the issuer of the server this flow went to, and present when that server says it sends one. */
  private issuerProblem(iss: string | null): string | undefined {
    const expected = this.flowIssuer;
    if (!expected) return undefined;
    if (iss === null) return expected.issRequired ? `the authorization response carries no "iss", though ${expected.issuer} advertises it (RFC 9207); refused as a possible mix-up, its code is not used` : undefined;
    // RFC 9207 §2.4 and SEP-2468: simple string comparison, no URL normalization (a trailing "/" differs).
    if (iss !== expected.issuer) return `the authorization response names the issuer ${iss}, not ${expected.issuer} where this authorization was sent (RFC 9207); refused as a mix-up, its code is not used`;
    return undefined;
  }

  private noteIgnored(why: string): void {
    this.ignoredThisFlow += 1;
    if (this.ignoredThisFlow > MAX_LOGGED_IGNORED_REDIRECTS + 1) return;
    const line =
      this.ignoredThisFlow > MAX_LOGGED_IGNORED_REDIRECTS
        ? `ignored more redirects to ${this.redirectUrl}; no more are logged for this authorization`
        : `ignored a redirect to ${this.redirectUrl} that ${why} (answered with an error page; still waiting for the real one)`;
    if (this.options.log) this.options.log(line);
    else process.stderr.write(`toolcell: ${line}\n`);
  }

  /**
   * The flow is over: its state is spent, the listener closes (resolved once it has), and the
   * wait settles (or, when nobody waits yet, the outcome is kept for the wait to come).
   */
  private endFlow(outcome: { code: string } | { error: Error }): Promise<void> {
    this.expectedState = undefined;
    const listener = this.listener;
    this.listener = undefined;
    const closed = listener ? new Promise<void>((resolve) => listener.close(() => resolve())) : Promise.resolve();
    listener?.closeIdleConnections();
    if (listener) this.outcome = outcome;
    const pending = this.pending;
    this.pending = undefined;
    if ('code' in outcome) pending?.resolve(outcome.code);
    else pending?.reject(outcome.error);
    return closed;
  }
}

/** A server listening on 127.0.0.1:`port`, once it listens. */
async function listen(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
