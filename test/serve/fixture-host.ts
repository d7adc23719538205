/**
 * A host for serve-mode tests, served over Streamable HTTP on loopback: built-ins that block
 * until aborted (`gate`), meet one another (`rendezvous`), or report progress (`progressive`),
 * plus JavaScript `code_execution`; and SDK clients connecting to it.
 */
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, Progress } from '@modelcontextprotocol/sdk/types.js';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { serveHttp, type HttpServeOptions, type HttpServing } from '../../src/serve/http.ts';
import type { ServeSession } from '../../src/serve/session.ts';
import { GatewayHub } from '../../src/serve/gateway/hub.ts';

export interface ServedHost {
  host: ToolHost;
  serving: HttpServing;
  codeExecution: CodeExecution;
  /** Every lifecycle event the host emitted, in order. */
  events: HostLifecycleEvent[];
  endedSessions: ServeSession[];
  /** The gateway hub sessions join, when asked for (`hub: true`). */
  hub?: GatewayHub;
  /** How many callers wait in `rendezvous` now. */
  waiting(): number;
  close(): Promise<void>;
}

export async function serveFixtureHost(
  options: {
    token?: string;
    rendezvousOf?: number;
    idleSessionMs?: number;
    languages?: ('javascript' | 'python')[];
    /** Further options of `serveHttp` (bounds, origins). */
    serve?: Partial<HttpServeOptions>;
    /** Sessions join a gateway hub on this host (no providers: what is counted is membership). */
    hub?: boolean;
  } = {},
): Promise<ServedHost> {
  const logger = pino({ level: process.env.TOOLCELL_LOG_LEVEL ?? 'silent' });
  const host = new ToolHost({ logger });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  host.registerTool({
    name: 'gate',
    description: 'Blocks until the call is aborted.',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: (_args, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(textResult('gate saw the abort')), { once: true })),
  });
  // Each caller waits until `rendezvousOf` callers are in; only concurrent calls can ever all return.
  const party = options.rendezvousOf ?? 2;
  let arrivals: (() => void)[] = [];
  host.registerTool({
    name: 'rendezvous',
    description: 'Returns once enough callers are waiting at the same time.',
    inputSchema: { type: 'object' },
    handler: (_args, ctx) =>
      new Promise((resolve) => {
        const release = () => resolve(textResult(ctx.conversationId));
        arrivals.push(release);
        if (arrivals.length >= party) {
          const all = arrivals;
          arrivals = [];
          for (const r of all) r();
        }
      }),
  });
  host.registerTool({
    name: 'progressive',
    description: 'Reports `steps` progress notifications, then returns.',
    inputSchema: { type: 'object', properties: { steps: { type: 'integer' } } },
    handler: async (args, ctx) => {
      const steps = typeof args.steps === 'number' ? args.steps : 3;
      for (let i = 1; i <= steps; i++) {
        ctx.onProgress?.({ progress: i, total: steps, message: `step ${i} of ${steps}` });
        await new Promise((r) => setImmediate(r));
      }
      return textResult(ctx.onProgress ? 'reported' : 'nobody asked');
    },
  });
  const codeExecution = registerCodeExecution(host, { languages: options.languages ?? ['javascript'] });
  const endedSessions: ServeSession[] = [];
  const hub = options.hub ? new GatewayHub(host, logger, { prefixed: () => true, multiClient: true }) : undefined;
  const serving = await serveHttp(host, {
    host: '127.0.0.1',
    port: 0,
    ...(options.token !== undefined ? { token: options.token } : {}),
    conversationPrefix: 'http',
    ...(options.idleSessionMs !== undefined ? { idleSessionMs: options.idleSessionMs } : {}),
    logger,
    onSessionEnd: (session) => void endedSessions.push(session),
    ...(hub ? { gateway: hub } : {}),
    ...options.serve,
  });
  return {
    host,
    serving,
    codeExecution,
    events,
    endedSessions,
    ...(hub ? { hub } : {}),
    waiting: () => arrivals.length,
    close: async () => {
      await serving.close();
      hub?.close();
      await codeExecution.close();
      await host.close();
    },
  };
}

/**
 * Records every `notifications/progress` the transport receives, in arrival order. Read at the
 * transport because the SDK client (1.32) drops a progress notification it processes after the
 * response that shares its read (typescript-sdk#2580): what the server sent is what we test.
 */
export function recordProgress(transport: Transport): Progress[] {
  const seen: Progress[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ('method' in message && message.method === 'notifications/progress') {
      const { progressToken: _token, ...progress } = message.params as Progress & { progressToken: unknown };
      seen.push(progress);
    }
    deliver?.(message, extra);
  };
  return seen;
}

/** An SDK client connected over Streamable HTTP (with a bearer token when given). */
export async function connectClient(url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport; progress: Progress[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token !== undefined ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {});
  const client = new Client({ name: 'serve-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, progress: recordProgress(transport) };
}
