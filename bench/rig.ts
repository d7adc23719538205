/**
 * What the benchmarks share: a host with a no-op built-in, and observer processes granted
 * observe + inputs (for `shell` tools) with a filter asking for every call's input
 * (peers/observers.ts, re-exported).
 */
import pino from 'pino';
import { ToolHost, type ToolHostOptions } from '../src/host/tool-host.ts';
import { textResult } from '../src/host/results.ts';

export { attachObservers, settleObservers } from './peers/observers.ts';

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

