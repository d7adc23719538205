/**
 * Fixture peers over Streamable HTTP: fixtures/peer.mjs started with TOOLCELL_PEER_HTTP=1,
 * listening on an ephemeral loopback port it announces on stdout. The test owns the process
 * (the host only knows the URL), so it can make the server go away mid-call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { HttpServerConfig } from '../../src/mcpl/config.ts';
import { makePeer, PEER, type Peer, type PeerOptions } from './peers.ts';

export interface HttpPeer {
  peer: Peer;
  url: string;
  child: ChildProcess;
  config: HttpServerConfig;
  /** Ends the process (SIGKILL) and waits for its exit. */
  kill(): Promise<void>;
}

export async function startHttpPeer(dir: string, id: string, options: PeerOptions & { json?: boolean; port?: number } = {}): Promise<HttpPeer> {
  const peer = makePeer(dir, id, options);
  const stdio = peer.config as { env?: Record<string, string> };
  const child = spawn(process.execPath, [PEER], {
    env: { PATH: process.env.PATH ?? '', ...stdio.env, TOOLCELL_PEER_HTTP: '1', ...(options.json ? { TOOLCELL_PEER_HTTP_JSON: '1' } : {}), ...(options.port ? { TOOLCELL_PEER_PORT: String(options.port) } : {}) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit');
  const [first] = (await Promise.race([once(lines, 'line'), exited.then(() => { throw new Error(`http peer ${id} exited before listening`); })])) as [string];
  const url = (JSON.parse(first) as { listening: string }).listening;
  process.on('exit', () => child.kill('SIGKILL'));
  return {
    peer,
    url,
    child,
    config: { id, url, ...(options.policy ? { policy: options.policy } : {}) },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
