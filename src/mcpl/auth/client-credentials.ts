/**
 * The SDK's client-credentials providers (`ClientCredentialsProvider` with a client secret,
 * `PrivateKeyJwtProvider` with a signed assertion), with the issuer guard (issuer-guard.ts)
 * added through the SDK's own hook, `saveDiscoveryState`: the credentials go only to the
 * authorization server pinned by `expectedIssuer`, or else to the one used first, and never to
 * one whose metadata names another issuer. Everything else is the SDK's class, unchanged.
 */
import {
  ClientCredentialsProvider as SdkClientCredentialsProvider,
  PrivateKeyJwtProvider as SdkPrivateKeyJwtProvider,
  type ClientCredentialsProviderOptions,
  type PrivateKeyJwtProviderOptions,
} from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { IssuerGuard } from './issuer-guard.ts';

export type { ClientCredentialsProviderOptions, PrivateKeyJwtProviderOptions };

/** The SDK's `ClientCredentialsProvider`; the secret goes only to `expectedIssuer`, or else to the authorization server first used. */
export class ClientCredentialsProvider extends SdkClientCredentialsProvider {
  private readonly guard: IssuerGuard;

  constructor(options: ClientCredentialsProviderOptions) {
    super(options);
    this.guard = new IssuerGuard(options.expectedIssuer, true);
  }

  /** The SDK's hook after discovery, before anything is sent to the authorization server: refuses one the secret may not go to. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.guard.check(state);
  }
}

/** The SDK's `PrivateKeyJwtProvider`; assertions go only to `expectedIssuer`, or else to the authorization server first used. */
export class PrivateKeyJwtProvider extends SdkPrivateKeyJwtProvider {
  private readonly guard: IssuerGuard;

  constructor(options: PrivateKeyJwtProviderOptions) {
    super(options);
    this.guard = new IssuerGuard(options.expectedIssuer, true);
  }

  /** The SDK's hook after discovery, before anything is sent to the authorization server: refuses one the assertion may not go to. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.guard.check(state);
  }
}
