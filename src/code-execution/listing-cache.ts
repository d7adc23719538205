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
import { IdentityWalk } from '../host/identity-walk.ts';
import { CODE_EXECUTION } from './options.ts';

/** Whether a script may call `tool` at all (before the operator's `allowTool`): not code_execution itself, not model-only. */
export function scriptCallable(tool: RegisteredTool): boolean {
  return tool.name !== CODE_EXECUTION && tool.scriptCallable !== false;
}

/** Where a tool goes in {@link ListingCache.bound}: first (callable), last (bound to meet a refusal), or not at all. */
const CALLABLE = 0;
const REFUSED = 1;
const LEFT = 2;
type Place = typeof CALLABLE | typeof REFUSED | typeof LEFT;

export class ListingCache {
  /** Rebuild counts, for tests and benchmarks. */
  readonly builds = { description: 0, bound: 0 };
  private text: { version: number; value: string } | undefined;
  private tools: { version: number; value: readonly RegisteredTool[] } | undefined;
  /** Each tool's place in {@link bound}, kept between builds: a change looks only at the changed tools. */
  private readonly places: IdentityWalk<RegisteredTool, Place>;

  /**
   * `render`: the description for the host's available tools, every one of them (it leaves out
   * those {@link scriptCallable} and `allow` refuse, as `describeCodeExecution`'s `include`).
   */
  constructor(
    private readonly host: ToolHost,
    private readonly render: (available: readonly RegisteredTool[]) => string,
    allow: (tool: RegisteredTool) => boolean,
  ) {
    this.places = new IdentityWalk((t) => (t.scriptCallable === false ? REFUSED : t.name !== CODE_EXECUTION && allow(t) ? CALLABLE : LEFT));
  }

  /**
   * The model-facing description for the host's tools now. Learned result types change it
   * too: `code_execution` asks the host for a new listing (`host.refreshListing`, at most once
   * per LEARNED_REFRESH_MS), which moves `toolsVersion`.
   */
  description(): string {
    const version = this.host.toolsVersion;
    if (this.text?.version !== version) {
      this.text = { version, value: this.render(this.host.availableTools()) };
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
      const all = this.host.registry.shared();
      const { values } = this.places.build(all);
      const callable: RegisteredTool[] = [];
      const refused: RegisteredTool[] = [];
      for (let i = 0; i < values.length; i++) {
        if (values[i] === CALLABLE) callable.push(all[i]!);
        else if (values[i] === REFUSED) refused.push(all[i]!);
      }
      this.tools = { version, value: Object.freeze(refused.length === 0 ? callable : callable.concat(refused)) };
      this.builds.bound += 1;
    }
    return this.tools.value;
  }
}
