/**
 * The official MCP servers from npm (devDependencies), started the way an operator would:
 * `node <the package's bin file>`, resolved from node_modules — no npx, no network. Each
 * config carries a wire log so tests can read exactly what crossed the transport.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StdioServerConfig } from '../../src/mcpl/config.ts';
import { REPO_ROOT, waitUntil } from '../helpers/peers.ts';

export type OfficialServer = 'everything' | 'filesystem' | 'memory';

/** The absolute path of a package's (single) bin file. */
export function binPath(server: OfficialServer): string {
  const dir = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', `server-${server}`);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
  return join(dir, bin);
}

/** Every message that crossed one connection, in order. */
export class WireLog {
  readonly frames: { direction: 'out' | 'in'; message: JSONRPCMessage }[] = [];
  readonly record = (frame: { direction: 'out' | 'in'; message: JSONRPCMessage }): void => {
    this.frames.push(frame);
  };

  methods(direction: 'out' | 'in'): string[] {
    return this.frames.filter((f) => f.direction === direction && 'method' in f.message).map((f) => (f.message as { method: string }).method);
  }

  /** Frames matching `predicate`; waits until at least one exists. */
  waitFor(predicate: (frame: WireLog['frames'][number]) => boolean, label: string, timeoutMs = 15_000): Promise<WireLog['frames']> {
    return waitUntil(() => {
      const found = this.frames.filter(predicate);
      return found.length > 0 ? found : undefined;
    }, label, timeoutMs);
  }
}

/** A stdio config for one official server, with a wire log. */
export function officialServer(server: OfficialServer, id: string, extra: Partial<Omit<StdioServerConfig, 'id' | 'command'>> = {}): { config: StdioServerConfig; wire: WireLog } {
  const wire = new WireLog();
  const { args = [], ...rest } = extra;
  return {
    config: { id, command: process.execPath, args: [binPath(server), ...args], wireLog: wire.record, ...rest },
    wire,
  };
}
