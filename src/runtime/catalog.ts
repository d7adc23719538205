/**
 * A tool catalog: one fixed set of bindings handed to many runs. Whatever a runtime derives
 * from the set (the JavaScript binding plan, the Python tool table) is computed once per
 * catalog, and a sandbox process or interpreter that already holds the catalog (by its id) is
 * not sent it again; a conversation's QuickJS VM keeps its bindings installed between runs of
 * the same catalog. This is what keeps a warm run's cost flat in the number of tools.
 *
 * A catalog holds names and invokers only. Per-run state reaches a shared binding through
 * {@link ToolCallContext.scope}, which each run sets (`ExecuteOptions.scope`,
 * `PythonRunOptions.scope`).
 */
import type { ToolBinding } from './types.ts';

let nextId = 1;

/** A fresh catalog id, unique in this process (arrays of bindings get one per distinct shape). */
export function newCatalogId(): number {
  return nextId++;
}

export class ToolCatalog {
  /** Unique in this process: sandboxes and interpreters remember which catalog they hold by it. */
  readonly id = newCatalogId();
  readonly bindings: readonly ToolBinding[];

  /** Copies `bindings`; they are checked by the runtime that first uses the catalog. */
  constructor(bindings: readonly ToolBinding[]) {
    if (!Array.isArray(bindings)) throw new TypeError('a ToolCatalog needs an array of tool bindings');
    this.bindings = Object.freeze([...bindings]);
  }
}

/**
 * Memoizes what a runtime derives from a catalog, for as long as the catalog lives. Arrays of
 * bindings are derived anew on every run.
 */
export class PerCatalog<T> {
  private readonly cache = new WeakMap<ToolCatalog, T>();
  private readonly pending = new WeakMap<ToolCatalog, Promise<T>>();

  constructor(private readonly derive: (bindings: readonly ToolBinding[], catalog: ToolCatalog | undefined) => T) {}

  /**
   * {@link get} for a catalog whose value is derived over several turns of the event loop
   * (`derive` resolves it): the value at once when the catalog has one, else the one pending
   * derivation every caller of the same catalog shares.
   */
  getInSteps(catalog: ToolCatalog, derive: (bindings: readonly ToolBinding[], catalog: ToolCatalog) => Promise<T>): T | Promise<T> {
    const value = this.cache.get(catalog);
    if (value !== undefined) return value;
    let pending = this.pending.get(catalog);
    if (pending === undefined) {
      pending = derive(catalog.bindings, catalog).then((derived) => {
        this.cache.set(catalog, derived);
        return derived;
      });
      // A failed derivation is not kept: the next run tries again (and meets the same error).
      pending.catch(() => {}).finally(() => this.pending.delete(catalog));
      this.pending.set(catalog, pending);
    }
    return pending;
  }

  get(tools: readonly ToolBinding[] | ToolCatalog): T {
    if (!(tools instanceof ToolCatalog)) return this.derive(tools, undefined);
    let value = this.cache.get(tools);
    if (value === undefined) {
      value = this.derive(tools.bindings, tools);
      this.cache.set(tools, value);
    }
    return value;
  }
}
