/**
 * A bearer token kept in a file by something else (a secret manager's sidecar, a cron job,
 * a person). The file is read for every request, so a token replaced after a 401 is used at
 * once; nothing is written. A 401 the current token cannot pass fails the connect
 * `unauthorized` — this provider never starts a browser flow. The token is never logged.
 * A file other users can read or change is refused at every read, saying why (secret-file.ts).
 */
import { readSecretFile } from './secret-file.ts';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** An `OAuthClientProvider` whose access token is the trimmed contents of `path`. */
export class TokenFileProvider implements OAuthClientProvider {
  constructor(readonly path: string) {}

  readonly redirectUrl = undefined;
  readonly clientMetadata: OAuthClientMetadata = { redirect_uris: [], client_name: 'toolcell' };

  tokens(): OAuthTokens | undefined {
    const token = readSecretFile('token file', this.path).trim();
    return token ? { access_token: token, token_type: 'Bearer' } : undefined;
  }

  saveTokens(): void {}

  clientInformation(): undefined {
    return undefined;
  }

  redirectToAuthorization(): never {
    throw new Error(`the token in ${this.path} was refused (replace it; this provider does not authorize interactively)`);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new Error('a token file provider runs no authorization-code flow');
  }
}
