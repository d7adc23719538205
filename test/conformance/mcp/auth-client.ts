/**
 * The official MCP conformance suite's client for the `auth/*` scenarios, on toolcell's
 * public API only: `connectServer({ url, authProvider })` with the interactive provider. The
 * suite's authorization server redirects at once, so the "browser" here follows the
 * authorization URL to toolcell's own loopback listener. Scenario name and context come from
 * MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT, the URL as the last argument.
 */
import { ToolHost, type OAuthClientProvider } from '../../../src/index.ts';
import { InteractiveAuthProvider, ClientCredentialsProvider, PrivateKeyJwtProvider } from '../../../src/mcpl/auth/index.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string; private_key_pem?: string; signing_algorithm?: string };

const interactive = await InteractiveAuthProvider.start({
  clientName: 'toolcell-conformance',
  ...(scenario === 'auth/pre-registration'
    ? { clientInformation: { client_id: context.client_id!, client_secret: context.client_secret! } }
    : { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' }),
  async onAuthorizationUrl(authorizationUrl) {
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a redirect`);
    await fetch(location);
  },
});
function providerFor(name: string): OAuthClientProvider {
  if (name === 'auth/client-credentials-basic') return new ClientCredentialsProvider({ clientId: context.client_id!, clientSecret: context.client_secret! });
  if (name === 'auth/client-credentials-jwt') return new PrivateKeyJwtProvider({ clientId: context.client_id!, privateKey: context.private_key_pem!, algorithm: context.signing_algorithm ?? 'ES256' });
  return interactive;
}
const provider = providerFor(scenario);
// Asked for 2026-07-28 (conformance 0.2.0), the client speaks that era, as client.ts does.
const modern = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === '2026-07-28';
const host = new ToolHost();
try {
  await host.connectServer({ id: 'conf', url, authProvider: provider, ...(modern ? { protocolEra: 'auto' as const } : {}) });
  const tools = host.listTools().map((t) => t.name);
  if (!tools.includes('conf--test-tool')) throw new Error(`expected conf--test-tool, got ${tools.join(', ')}`);
  // A call too: some scenarios ask for more (a wider scope) only when a tool is called.
  const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'conformance' }), name: 'conf--test-tool', input: {} });
  if (outcome.status !== 'completed') throw new Error(`conf--test-tool: ${JSON.stringify(outcome.result)}`);
} finally {
  await host.close();
  await interactive.close();
}
