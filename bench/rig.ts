/**
 * What the benchmarks share: a host with a no-op built-in, and observer processes granted
 * observe + inputs (for `shell` tools) with a filter asking for every call's input.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost, type ToolHostOptions } from '../src/host/tool-host.ts';
import { textResult } from '../src/host/results.ts';
import type { McplConnection } from '../src/mcpl/connection.ts';
import type { ServerConfigBase } from '../src/mcpl/config.ts';

const PEER = join(resolve(fileURLToPath(new URL('..', import.meta.url))), 'fixtures', 'peer.mjs');

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A silent host with a no-op `noop` built-in of class `shell`. */
export function noopHost(options: Pick<ToolHostOptions, 'approvalGate'> = {}): ToolHost {
  const host = new ToolHost({ logger: pino({ level: 'silent' }), ...options });
  host.registerTool({
    name: 'noop',
    description: 'Does nothing',
    inputSchema: { type: 'object', properties: { i: { type: 'integer' } } },
    classes: ['shell'],
    handler: async () => textResult('ok'),
  });
  return host;
}

/** Connects `count` observer processes and waits until each one's filter is in force. */
export async function attachObservers(host: ToolHost, dir: string, count: number, extra: Partial<ServerConfigBase> = {}): Promise<McplConnection[]> {
  const connections: McplConnection[] = [];
  for (let i = 0; i < count; i++) {
    const config = join(dir, `obs${i}.json`);
    writeFileSync(config, JSON.stringify({ observer: true, filter: { rules: [{ match: {}, input: true }] } }));
    connections.push(
      await host.connectServer({
        id: `obs${i}`,
        command: process.execPath,
        args: [PEER],
        env: { TOOLCELL_PEER_CONFIG: config },
        policy: {
          enabledCapabilities: ['toolLifecycle.observe', 'toolLifecycle.inputs'],
          toolLifecycle: { inputs: { classes: ['shell'] } },
        },
        ...extra,
      }),
    );
  }
  for (const c of connections) {
    for (let tries = 0; c.filter === null; tries++) {
      if (tries > 500) throw new Error('observer filter never arrived');
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return connections;
}
