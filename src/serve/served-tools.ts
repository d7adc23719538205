/**
 * serve's `tools/list` answer: every tool the host offers now, each looked up in its
 * provider's own listing so nothing the provider said is lost (see tool-listing.ts for what
 * is kept and what is changed). `code_execution` gets a title, annotations derived from the
 * tools its scripts can reach, and `execution.taskSupport: "optional"`: a client may call it
 * as an MCP task (script-tasks.ts).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../host/tool-host.ts';
import type { ServerToolListing } from '../host/registry.ts';
import { CODE_EXECUTION } from '../code-execution/index.ts';
import { scriptToolAnnotations, servedTool } from './tool-listing.ts';

/** The provider's own listing of a model-facing tool name; undefined for a host tool. */
export function providerListing(host: ToolHost, name: string): Readonly<ServerToolListing> | undefined {
  const entry = host.registry.get(name);
  if (entry?.kind !== 'server' || entry.serverId === undefined || entry.serverTool === undefined) return undefined;
  return host.server(entry.serverId)?.listedTool(entry.serverTool);
}

/** `tasks`: the session takes `code_execution` as an MCP task (`taskSupport: "optional"`, else `"forbidden"`). */
export function listServedTools(host: ToolHost, tasks = true): Tool[] {
  const tools = host.listTools();
  const own = new Map(tools.map((t) => [t.name, providerListing(host, t.name)]));
  return tools.map((t) => {
    if (t.name !== CODE_EXECUTION) return servedTool(t, own.get(t.name));
    const reachable = tools.filter((r) => r.name !== CODE_EXECUTION && host.registry.get(r.name)?.scriptCallable !== false).map((r) => own.get(r.name));
    const annotations = scriptToolAnnotations(reachable);
    return servedTool(t, undefined, { title: annotations.title!, annotations, execution: { taskSupport: tasks ? 'optional' : 'forbidden' } });
  });
}
