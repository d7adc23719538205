/**
 * What `code_execution` derives from the host's tools — its description (TypeScript
 * declarations and Python stubs, about 1.3 KB per tool) and the tools a script is bound to —
 * built once per change of the host's tools and reused by every `describe()`, `listTools()`
 * and run. Rebuilding them per read cost ~95 ms at 1,000 tools, blocking the event loop.
 *
 * The description follows {@link ToolHost.toolsVersion} (a dead server's tools leave it, as
 * they leave `listTools()`); the bound tools follow the registry alone, so a script calling a
 * tool of a server that is down meets the host's own `server_unavailable` refusal.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { RegisteredTool } from '../host/types.ts';
import { CODE_EXECUTION } from './options.ts';

export class ListingCache {
  /** Rebuild counts, for tests and benchmarks. */
  readonly builds = { description: 0, bound: 0 };
  private text: { version: number; value: string } | undefined;
  private tools: { version: number; value: readonly RegisteredTool[] } | undefined;

  constructor(
    private readonly host: ToolHost,
    private readonly render: (scriptTools: readonly RegisteredTool[]) => string,
    private readonly allow: (tool: RegisteredTool) => boolean,
  ) {}

  /**
   * The model-facing description for the host's tools now. Learned result types change it
   * too: `code_execution` asks the host for a new listing (`host.refreshListing`, at most once
   * per LEARNED_REFRESH_MS), which moves `toolsVersion`.
   */
  description(): string {
    const version = this.host.toolsVersion;
    if (this.text?.version !== version) {
      const scriptTools = this.host.availableTools().filter((t) => t.name !== CODE_EXECUTION && t.scriptCallable !== false);
      this.text = { version, value: this.render(scriptTools) };
      this.builds.description += 1;
    }
    return this.text.value;
  }

  /**
   * The tools a script is bound to: those it may call, then those it may not (code_execution
   * itself), bound but undeclared so that trying one meets the host's refusal — a clear error,
   * and nothing is sent. Shared and frozen.
   */
  bound(): readonly RegisteredTool[] {
    const version = this.host.registry.version;
    if (this.tools?.version !== version) {
      const all = this.host.registry.all();
      const callable = all.filter((t) => t.name !== CODE_EXECUTION && t.scriptCallable !== false && this.allow(t));
      this.tools = { version, value: Object.freeze([...callable, ...all.filter((t) => t.scriptCallable === false)]) };
      this.builds.bound += 1;
    }
    return this.tools.value;
  }
}
