/**
 * Observer processes for a bench's host, granted observe and inputs for `shell` tools, each
 * asking for every call's input: fixtures/peer.mjs (on the MCP SDK) or fixtures/lean-observer.mjs
 * (no SDK: one JSON.parse per message, what a production observer forwarding events costs).
 * Shared by bench/rig.ts and the bench:peers subjects, which run as JavaScript stripped of types
 * (peers/built.ts): so this file imports nothing of toolcell's but types, and finds the peers by
 * a path relative to itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolHost } from '../../src/host/tool-host.ts';
import type { McplConnection } from '../../src/mcpl/connection.ts';
import type { ServerConfigBase } from '../../src/mcpl/config.ts';

const PEERS = {
  sdk: fileURLToPath(new URL('../../fixtures/peer.mjs', import.meta.url)),
  lean: fileURLToPath(new URL('../../fixtures/lean-observer.mjs', import.meta.url)),
};

/** Which observer program: on the MCP SDK, or without it. */
export type ObserverKind = keyof typeof PEERS;

/** Connects `count` observer processes and waits until each one's filter is in force. */
export async function attachObservers(host: ToolHost, dir: string, count: number, extra: Partial<ServerConfigBase> = {}, kind: ObserverKind = 'sdk'): Promise<McplConnection[]> {
  const connections: McplConnection[] = [];
  for (let i = 0; i < count; i++) {
    const config = join(dir, `obs${i}.json`);
    writeFileSync(config, JSON.stringify({ observer: true, filter: { rules: [{ match: {}, input: true }] } }));
    connections.push(
      await host.connectServer({
        id: `obs${i}`,
        command: process.execPath,
        args: [PEERS[kind]],
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

/**
 * Untimed, after a measured run: writes what the host's pacing still holds for the observers
 * (`host.flush()`) and waits until each has read it all, so that their trailing work on the run
 * lands on no other measurement.
 */
export async function settleObservers(host: ToolHost, connections: McplConnection[]): Promise<Array<number | undefined>> {
  await host.flush();
  const answers = await Promise.all(connections.map((c) => c.request('fixture/barrier')));
  // The lean observer answers with how many lifecycle events it has read (the SDK peer does not
  // count): a caller can check that its observers really received the calls it timed.
  return answers.map((answer) => (typeof answer.events === 'number' ? answer.events : undefined));
}
