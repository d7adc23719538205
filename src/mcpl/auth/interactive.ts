/**
 * The interactive authorization-code flow with PKCE for a person at a terminal: the
 * authorization URL is printed (or handed to a callback), and the browser's redirect is
 * caught by a listener on loopback (RFC 8252 §7.3). Everything OAuth — discovery,
 * registration, PKCE, the token exchange, refresh — is the SDK's `auth()`; this class is
 * only the SDK's `OAuthClientProvider` with in-memory storage and the loopback listener.
 * Tokens live in this object only, never on disk, and are never logged.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthorizationCodeProvider } from '../auth.ts';

/** Options of {@link InteractiveAuthProvider.start}. */
export interface InteractiveAuthOptions {
  /** Loopback port of the redirect listener; 0 (default) picks a free one. */
  redirectPort?: number;
  /** Scopes asked for when the server names none (its `WWW-Authenticate` scope wins, as the SDK does). */
  scopes?: readonly string[];
  /** `client_name` for dynamic registration (default "toolcell"). */
  clientName?: string;
  /** An HTTPS URL of this client's metadata document, used as client_id where the server supports CIMD. */
  clientMetadataUrl?: string;
  /** A pre-registered client: no dynamic registration. Its redirect URI must be this listener's. */
  clientInformation?: OAuthClientInformationMixed;
  /** Shows the authorization URL to the person (default: one line on stderr). */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  /** How long {@link InteractiveAuthProvider.waitForAuthorizationCode} waits for the redirect before it fails; absent, without end. */
  authorizationTimeoutMs?: number;
}

/** An {@link AuthorizationCodeProvider} whose redirect lands on a loopback listener. */
export class InteractiveAuthProvider implements AuthorizationCodeProvider {
  private storedTokens: OAuthTokens | undefined;
  private client: OAuthClientInformationMixed | undefined;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private pending: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  private arrived: string | undefined;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
    private readonly options: InteractiveAuthOptions,
  ) {
    this.client = options.clientInformation;
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', redirectUrl);
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const code = url.searchParams.get('code');
      const error = url.searchParams.get('error');
      const stateOk = this.expectedState === undefined || url.searchParams.get('state') === this.expectedState;
      res.writeHead(code && stateOk ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(code && stateOk ? 'Authorized. You can close this window.' : 'Authorization failed.');
      if (!stateOk) this.settle(undefined, new Error('the redirect carried a state that does not match the request (ignored)'));
      else if (code) this.settle(code);
      else this.settle(undefined, new Error(`the authorization server answered ${error ?? 'without a code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`));
    });
  }

  /** Starts the redirect listener on 127.0.0.1 and returns the provider. Call {@link close} when done. */
  static async start(options: InteractiveAuthOptions = {}): Promise<InteractiveAuthProvider> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.redirectPort ?? 0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const port = (server.address() as { port: number }).port;
    return new InteractiveAuthProvider(server, `http://127.0.0.1:${port}/callback`, options);
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'toolcell',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scopes?.length ? { scope: this.options.scopes.join(' ') } : {}),
    };
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  state(): string {
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
    this.arrived = undefined;
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
    if (this.arrived !== undefined) return Promise.resolve(this.arrived);
    // While someone waits for the redirect, the listener keeps the process alive (it is unref'd otherwise).
    this.server.ref();
    const waited = new Promise<string>((resolve, reject) => (this.pending = { resolve, reject })).finally(() => {
      if (!this.pending) this.server.unref();
    });
    const limit = this.options.authorizationTimeoutMs;
    if (limit === undefined) return waited;
    // The wait itself fails at the limit (not a race beside it), so no promise is left pending.
    const timer = setTimeout(() => this.settle(undefined, new Error(`nobody authorized within ${limit} ms (the authorization URL was not followed to its end)`)), limit);
    timer.unref();
    return waited.finally(() => clearTimeout(timer));
  }

  private settle(code: string | undefined, error?: Error): void {
    if (code !== undefined) this.arrived = code;
    const pending = this.pending;
    this.pending = undefined;
    if (code !== undefined) pending?.resolve(code);
    else if (error) pending?.reject(error);
  }

  /** Stops the redirect listener; a pending wait fails. */
  async close(): Promise<void> {
    this.settle(undefined, new Error('the authorization listener was closed'));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
