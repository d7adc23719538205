/**
 * The OAuth client providers toolcell ships, all on the SDK's `OAuthClientProvider`
 * interface: client credentials with a secret or a signed JWT (private_key_jwt; the SDK's own
 * classes, held to their issuer), a token file, and the interactive authorization-code flow
 * with a loopback redirect.
 */
export {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  type ClientCredentialsProviderOptions,
  type PrivateKeyJwtProviderOptions,
} from './client-credentials.ts';
export { TokenFileProvider } from './token-file.ts';
export { InteractiveAuthProvider, type InteractiveAuthOptions } from './interactive.ts';
export { readSecretFile, SecretFileError, type SecretFileKind } from './secret-file.ts';
