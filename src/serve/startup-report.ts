/**
 * The line `toolcell serve` prints once its configured servers have had their first try: which
 * connected (with how many tools each brought), which did not (each one's error was logged just
 * before, by the connect step) and which are being retried. Without it a user saw a tool count
 * and had to work out from it which servers were missing.
 */
import type { ToolHost } from '../host/tool-host.ts';

/** Ids of the configured servers by what became of them. */
export interface ServerStartup {
  connected: { id: string; tools: number }[];
  failed: string[];
  retrying: string[];
}

/** Sorts the configured `ids` by what the host holds now; `retrying` are the ids still being retried. */
export function serverStartup(host: ToolHost, ids: readonly string[], retrying: readonly string[]): ServerStartup {
  const listed = host.listTools();
  const connected: ServerStartup['connected'] = [];
  const failed: string[] = [];
  for (const id of ids) {
    if (host.server(id)?.isConnected === true) connected.push({ id, tools: listed.filter((t) => t.serverId === id).length });
    else if (!retrying.includes(id)) failed.push(id);
  }
  return { connected, failed, retrying: ids.filter((id) => retrying.includes(id) && host.server(id)?.isConnected !== true) };
}

/** One readable line: `servers: files connected (1 tool), web connected (3 tools); failed: db (error above)`. */
export function describeServerStartup(s: ServerStartup): string {
  if (s.connected.length + s.failed.length + s.retrying.length === 0) return 'servers: none configured (code_execution only)';
  const parts: string[] = [];
  if (s.connected.length > 0) parts.push(s.connected.map((c) => `${c.id} connected (${c.tools} tool${c.tools === 1 ? '' : 's'})`).join(', '));
  if (s.failed.length > 0) parts.push(`failed: ${s.failed.join(', ')} (the error of each is logged above; serving without ${s.failed.length === 1 ? 'it' : 'them'})`);
  if (s.retrying.length > 0) parts.push(`retrying: ${s.retrying.join(', ')} (their tools appear when they connect)`);
  return `servers: ${parts.join('; ')}`;
}
