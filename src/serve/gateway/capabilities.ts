/**
 * What serve declares to its MCP clients: tools always (its own `code_execution` and every
 * provider's tools, with `listChanged` since providers come and go), and resources, prompts,
 * completions and logging exactly when a connected provider offers them — a client is never
 * told of a feature nobody behind serve has. `resources.subscribe` likewise.
 */
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../../host/tool-host.ts';

/** The union of the connected providers' capabilities, as serve declares it now. */
export function gatewayCapabilities(host: ToolHost): ServerCapabilities {
  const capabilities: ServerCapabilities = { tools: { listChanged: true } };
  for (const connection of host.servers()) {
    if (!connection.isConnected) continue;
    const offered = connection.serverCapabilities;
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
