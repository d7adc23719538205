/**
 * What serve's `tools/list` says of each tool. A provider's tool is passed through as the
 * provider listed it — `title`, `description`, `inputSchema`, `outputSchema`, `annotations`,
 * `icons`, `execution`, `_meta` and any field a later MCP version adds — with two changes:
 * - `name` is the model-facing one (`<id>--<tool>` unless the server is `prefixTools: false`);
 * - `_meta["mcpl/class"]` is the effective class (an operator override wins over the
 *   provider's own declaration), beside the provider's other `_meta` keys.
 * `execution.taskSupport` is kept: serve takes a task-augmented call of a provider's task tool
 * and runs it as a task of its own (gateway-tasks.ts), and also takes a plain call of a
 * `"required"` one (serve's connection then calls the provider as a task itself).
 *
 * `code_execution` (and any other tool of the host's) has no provider; its annotations are
 * derived from the tools a script can reach: a script can do nothing those tools cannot.
 * Pure functions: the caller gathers the listings.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ServerToolListing } from '../host/registry.ts';
import type { ToolListing } from '../host/types.ts';

/** A title for `code_execution` in clients' tool pickers. */
export const CODE_EXECUTION_TITLE = 'Run code that calls tools';

/** One tool as serve lists it: `provider` is the provider's own listing of it (undefined for a host tool). */
export function servedTool(tool: ToolListing, provider: Readonly<ServerToolListing> | undefined, hostExtras: Partial<Tool> = {}): Tool {
  const classMeta = { 'mcpl/class': tool.classes };
  if (!provider) {
    return {
      ...hostExtras,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
      _meta: classMeta,
    };
  }
  const own = provider as Readonly<ServerToolListing> & Partial<Tool>;
  return {
    ...(own as Tool),
    name: tool.name,
    _meta: { ...own._meta, ...classMeta },
  } as Tool;
}

/**
 * Hints for a tool that runs scripts over `reachable` (the provider listings of the tools a
 * script may call; undefined for a tool with none, read with the spec's defaults): read-only
 * when every reachable tool is; destructive when any reachable tool may be (not read-only and
 * not `destructiveHint: false`); open-world when any reachable tool may be; never idempotent,
 * since a script's calls depend on what it computes.
 */
export function scriptToolAnnotations(reachable: readonly (Readonly<ServerToolListing> | undefined)[]): ToolAnnotations {
  const hints = reachable.map((t) => ((t as Partial<Tool> | undefined)?.annotations ?? {}) as ToolAnnotations);
  const readOnly = hints.every((h) => h.readOnlyHint === true);
  return {
    title: CODE_EXECUTION_TITLE,
    readOnlyHint: readOnly,
    destructiveHint: hints.some((h) => h.readOnlyHint !== true && h.destructiveHint !== false),
    idempotentHint: false,
    openWorldHint: hints.some((h) => h.openWorldHint !== false),
  };
}
