/**
 * The official MCP conformance suite's client for the `auth/*` scenarios, on toolcell's
 * public API only: `connectServer({ url, authProvider })` with the interactive provider. The
 * suite's authorization server redirects at once, so the "browser" here follows the
 * authorization URL to toolcell's own loopback listener. Scenario name and context come from
 * MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT, the URL as the last argument.
 */
import { ToolHost, InteractiveAuthProvider, ClientCredentialsProvider, type OAuthClientProvider } from '../../../src/index.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };

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
const provider: OAuthClientProvider =
  scenario === 'auth/client-credentials-basic' ? new ClientCredentialsProvider({ clientId: context.client_id!, clientSecret: context.client_secret! }) : interactive;
const host = new ToolHost();
try {
  await host.connectServer({ id: 'conf', url, authProvider: provider });
  const tools = host.listTools().map((t) => t.name);
  if (!tools.includes('conf--test-tool')) throw new Error(`expected conf--test-tool, got ${tools.join(', ')}`);
} finally {
  await host.close();
  await interactive.close();
}
