/**
 * What serve declares to its MCP clients: tools always (its own `code_execution` and every
 * provider's tools, with `listChanged` since providers come and go), and resources, prompts,
 * completions and logging when a provider behind serve offers them — a client is never told
 * of a feature nobody behind serve has or may have. `resources.subscribe` likewise.
 *
 * Capabilities are fixed for a session at `initialize`, but providers come later: one down at
 * startup is retried, one that exits is reconnected. So a provider counts with what it offered
 * when it was last connected while it is away, and a provider still awaited that never
 * connected counts as offering every feature (what it offers is unknown until it answers, and a
 * session that did not declare resources could never be shown its resources). Until such a
 * provider comes, the lists are empty; when it comes, `list_changed` tells every session.
 */
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../../host/tool-host.ts';

/** What a provider that never answered yet may offer: everything serve passes through. */
const UNKNOWN: ServerCapabilities = { resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} };

/**
 * The union of the providers' capabilities, as serve declares it now. `awaited`: ids of
 * configured servers not connected now that may still connect (being retried).
 */
export function gatewayCapabilities(host: ToolHost, awaited: readonly string[] = []): ServerCapabilities {
  const capabilities: ServerCapabilities = { tools: { listChanged: true } };
  const known = new Map(host.servers().map((c) => [c.id, c.serverCapabilities]));
  const offers = [...known.values(), ...awaited.filter((id) => known.get(id) === undefined).map(() => UNKNOWN)];
  for (const offered of offers) {
    if (!offered) continue;
    if (offered.resources) {
      capabilities.resources = {
        ...capabilities.resources,
        listChanged: true,
        ...(offered.resources.subscribe ? { subscribe: true } : {}),
      };
    }
    if (offered.prompts) capabilities.prompts = { listChanged: true };
    if (offered.completions) capabilities.completions = {};
    if (offered.logging) capabilities.logging = {};
  }
  return capabilities;
}

/** Connected providers offering `feature`, in configuration order. */
export function providersOf(host: ToolHost, feature: 'resources' | 'prompts' | 'completions' | 'logging'): string[] {
  return host.servers().filter((c) => c.isConnected && c.serverCapabilities?.[feature] !== undefined).map((c) => c.id);
}
