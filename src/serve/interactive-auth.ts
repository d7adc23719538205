/**
 * The servers of serve's config whose `auth` is `"interactive"`: each gets an
 * `InteractiveAuthProvider` (src/mcpl/auth/interactive.ts) with its loopback redirect listener
 * started before the server is connected. When the server asks for authorization the URL is
 * printed on stderr, one line naming the server, and the connect waits for the person's
 * browser to come back to the listener (up to the configured `authorizationTimeoutMs`; then
 * the server counts as refused and its `reconnect` policy applies). A listener is open only
 * while its authorization is under way; what it ignores (a redirect with a wrong `state`) is
 * logged on stderr, naming the server. The providers close with serve.
 */
import { InteractiveAuthProvider } from '../mcpl/auth/index.ts';
import type { ServeServerConfig } from './config.ts';
import type { GatewayServerConfig } from './gateway/connect-servers.ts';

export interface InteractiveServers {
  /** The servers as the host takes them: an interactive one carries its started provider. */
  servers: GatewayServerConfig[];
  /** Closes every provider (and a redirect listener still open). */
  close(): Promise<void>;
}

/** Starts a redirect listener for each interactive server; `write` shows a URL to the person (default: stderr). */
export async function startInteractiveAuth(servers: readonly ServeServerConfig[], write: (line: string) => void = (line) => void process.stderr.write(line)): Promise<InteractiveServers> {
  const providers: InteractiveAuthProvider[] = [];
  const close = async () => void (await Promise.all(providers.map((p) => p.close())));
  try {
    const resolved = await Promise.all(
      servers.map(async ({ interactiveAuth, ...server }) => {
        if (!interactiveAuth) return server;
        const provider = await InteractiveAuthProvider.start({
          ...interactiveAuth,
          onAuthorizationUrl: (url) => write(`toolcell: server "${server.id}" needs authorization; open this URL in a browser: ${url.href}\n`),
          log: (line) => write(`toolcell: server "${server.id}": ${line}\n`),
        });
        providers.push(provider);
        return { ...server, authProvider: provider } as GatewayServerConfig;
      }),
    );
    return { servers: resolved, close };
  } catch (error) {
    await close();
    const port = servers.find((s) => s.interactiveAuth?.redirectPort)?.interactiveAuth?.redirectPort;
    throw new Error(`auth: cannot start the loopback redirect listener${port ? ` on 127.0.0.1:${port}` : ''}: ${(error as Error).message}`, { cause: error });
  }
}
