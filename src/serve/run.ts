/**
 * `toolcell serve`: the tool host as an MCP server, on stdio or Streamable HTTP. An MCP client
 * (an agent framework, a desktop app) sees every tool of the configured servers plus
 * `code_execution`; each of its `tools/call` requests is one model call through the host's
 * dispatch path, so observers see it — and every call a script makes — as usual. Everything
 * that can be refused (the config, the token, the bind) is refused before a server is spawned.
 */
import pino from 'pino';
import { ToolHost } from '../host/tool-host.ts';
import { REDACTING_LOG_OPTIONS } from '../lifecycle/log-redaction.ts';
import { ElicitationGate } from '../approvals/elicitation-gate.ts';
import { ServeClients } from './approval-clients.ts';
import { registerCodeExecution, type CodeExecution } from '../code-execution/index.ts';
import { isLoopbackHost, readTokenFile } from './auth.ts';
import { loadServeConfig } from './config.ts';
import { serveHttp } from './http.ts';
import { serveStdio } from './stdio.ts';
import { GatewayHub } from './gateway/hub.ts';
import { forwardServerRequests } from './gateway/server-requests.ts';
import { connectServers, type ConnectedServers } from './gateway/connect-servers.ts';
import { startInteractiveAuth, type InteractiveServers } from './interactive-auth.ts';
import { describeServerStartup, serverStartup } from './startup-report.ts';
import { DurableRuns } from '../code-execution/durable-runs.ts';
import { DurablePauses } from './modern/durable.ts';
import type { DurableStore } from '../store/types.ts';

export interface ServeOptions {
  configPath?: string;
  /** Serve Streamable HTTP here instead of stdio. */
  http?: { host: string; port: number };
  /** File holding the bearer token HTTP clients must send. */
  tokenFile?: string;
}

/** Resolves on SIGTERM or SIGINT. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

export async function runServe(options: ServeOptions): Promise<number> {
  const config = loadServeConfig(options.configPath);
  const token = options.tokenFile !== undefined ? readTokenFile(options.tokenFile) : undefined;
  if (options.http && !isLoopbackHost(options.http.host) && token === undefined) {
    throw new Error(
      `serve --http ${options.http.host}:${options.http.port}: ${options.http.host} is not a loopback address, so clients must authenticate: give --token-file FILE (a bearer token)`,
    );
  }
  // Every line through value redaction: a provider URL's credentials never reach stderr.
  const logger = pino({ name: 'toolcell', level: process.env.TOOLCELL_LOG_LEVEL ?? 'info', ...REDACTING_LOG_OPTIONS }, pino.destination(2));
  // With `approvals`, the gate is the MCP client: the calls it names ask the client's user.
  const clients = config.approvals ? new ServeClients(config.approvals.answerTimeoutMs ?? 600_000) : undefined;
  const approvalGate = config.approvals && clients ? new ElicitationGate(config.approvals, (id) => clients.clientFor(id)) : undefined;
  // A provider's elicitation, sampling and roots requests on serve's own connection go to the
  // client whose call they name (gateway/hub.ts); the hub is made below, before any server connects.
  const serverRequests = forwardServerRequests((ctx, what) => gateway.sharedTarget(ctx, what));
  const host = new ToolHost({ logger, serverRequests, ...(approvalGate ? { approvalGate } : {}) });
  let codeExecution: CodeExecution | undefined;
  // Loaded only when configured: without telemetry, serve never loads OpenTelemetry (its
  // packages are optional peers; a missing one is refused here, naming what to install).
  let telemetry: import('../telemetry/serve-telemetry.ts').ServeTelemetry | undefined;
  if (config.telemetry) {
    (await import('../telemetry/peers.ts')).requirePeers('serve: telemetry.otlp');
    telemetry = await (await import('../telemetry/serve-telemetry.ts')).startServeTelemetry(host, config.telemetry);
  }
  const around = telemetry ? telemetry.withRequestContext.bind(telemetry) : undefined;
  let interactive: InteractiveServers | undefined;
  // With a store, runs waiting for approval survive this process (docs/durable.md); its driver loads only now.
  let store: DurableStore | undefined;
  let durable: DurablePauses | undefined;
  if (config.store !== undefined) {
    store = await (await import('../store/open.ts')).openStore(config.store);
    durable = new DurablePauses(store, new DurableRuns(store), logger);
  }
  const shutdown = async () => {
    servers?.stop();
    await interactive?.close();
    gateway.close();
    await codeExecution?.close();
    await host.close();
    await telemetry?.shutdown();
    await store?.close();
  };
  const prefixed = new Map(config.servers.map((s) => [s.id, s.prefixTools !== false]));
  const gateway = new GatewayHub(host, logger, {
    prefixed: (id) => prefixed.get(id) ?? true,
    awaited: () => servers?.awaited() ?? [],
    servers: config.servers,
    // Over HTTP several clients share serve: each gets its own upstream sessions (gateway/upstream-pool.ts).
    multiClient: options.http !== undefined,
  });
  let servers: ConnectedServers | undefined;
  try {
    interactive = await startInteractiveAuth(config.servers);
    servers = await connectServers(host, interactive.servers, logger);
    const startup = serverStartup(host, config.servers.map((s) => s.id), servers.awaited());
    logger.info(startup, describeServerStartup(startup));
    if (config.codeExecution !== false) codeExecution = registerCodeExecution(host, { whenBusy: 'wait', jsInline: false, ...config.runtime, ...config.codeExecution, ...(durable ? { durable: durable.runs } : {}) });
    // Result types learned by earlier instances, in the first listing (bounded by the store's own timeouts; never rejects).
    await codeExecution?.learnedLoaded;
  } catch (error) {
    await shutdown();
    throw error;
  }

  const stop = stopSignal();
  if (options.http) {
    let serving;
    try {
      serving = await serveHttp(host, {
        host: options.http.host,
        port: options.http.port,
        ...(token !== undefined ? { token } : {}),
        conversationPrefix: config.conversationId,
        ...config.http,
        logger,
        ...(around ? { aroundDispatch: around } : {}),
        ...(clients ? { clients } : {}),
        ...(durable ? { durable } : {}),
        gateway,
      });
    } catch (error) {
      await shutdown();
      throw error;
    }
    logger.info({ url: serving.url, tools: host.listTools().length, auth: token !== undefined ? 'bearer' : 'none (loopback)' }, 'toolcell serving MCP over Streamable HTTP');
    await stop;
    await serving.close();
  } else {
    await serveStdio(host, {
      conversationId: config.conversationId,
      logger,
      stop,
      ...(around ? { around } : {}),
      ...(clients ? { clients } : {}),
      ...(durable ? { durable } : {}),
      gateway,
    });
  }
  await shutdown();
  return 0;
}
