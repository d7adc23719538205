/**
 * The tool registry: host built-ins and the tools of connected servers, under their
 * model-facing names, each with its effective class (RFC-008 §5: operator override, else the
 * host's table for built-ins, else the server's declaration). The model-facing name,
 * description and schemas are stored exactly as given; classing never alters them.
 *
 * Every change bumps {@link ToolRegistry.version}, a cheap integer that listings and
 * descriptions built from the registry use as their cache key: they are rebuilt once per
 * change, never per read.
 */
import { effectiveClass, findOverride, parseDeclaredClass, type ToolClass } from '../vocabulary/classes.ts';
import type { ClassSource, HostToolDefinition, RegisteredTool, ToolCallers, ToolListing } from './types.ts';

/** Separator between a server id and its own tool name in model-facing names. */
export const NAME_SEPARATOR = '--';

/** A tool as a server lists it in `tools/list`. */
export interface ServerToolListing {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Something the registry noticed while reading a server's classes (RFC-008 says: log it). */
export interface ClassDiagnostic {
  tool: string;
  message: string;
  /** Set when the tool was skipped because another tool has its name (the owner's server id, if a server's). */
  collidesWith?: { serverId: string | undefined };
}

/**
 * A registered tool's caller flags for `callers` (both / model / script). `explicit`: the callers
 * were narrowed on purpose (a built-in's `callers`, a server's config) rather than by the older
 * `scriptCallable: false`, so a refusal names them (`caller_not_allowed`, not `recursion`).
 */
function callerFlags(callers: ToolCallers, explicit: boolean): Pick<RegisteredTool, 'scriptCallable' | 'modelCallable' | 'callers'> {
  if (callers === 'both') return {};
  const named = explicit ? { callers } : {};
  return callers === 'model' ? { scriptCallable: false, ...named } : { modelCallable: false, ...named };
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  /** Each tool's own class source (host table or server declaration), kept so overrides can change. */
  private readonly base = new Map<string, { hostTable?: readonly ToolClass[]; declared?: readonly ToolClass[] }>();
  /** Operator overrides by model-facing name or RFC-007 pattern. */
  private readonly overrides: Record<string, readonly ToolClass[]>;
  private changes = 0;
  /** {@link shared}'s array and the version it was made at. */
  private sharedAll: { version: number; tools: readonly RegisteredTool[] } | undefined;
  /** How many tools each server has here: which servers' liveness can hide tools. */
  private readonly perServer = new Map<string, number>();

  /** Bumped on every change to the set of tools, their definitions or their classes. */
  get version(): number {
    return this.changes;
  }

  constructor(overrides: Record<string, readonly ToolClass[]> = {}) {
    this.overrides = { ...overrides };
  }

  /** RFC-008 §5.1 for one tool, by the shared rule in classes.ts. */
  private classOf(name: string): { classes: ToolClass[]; classSource: ClassSource } {
    const override = findOverride(this.overrides, name);
    const { classes, source } = effectiveClass({ ...(override !== undefined ? { override } : {}), ...this.base.get(name) });
    return { classes, classSource: source };
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Every registered tool, in registration order. */
  all(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  /** {@link all}, made once per {@link version}: shared and frozen. */
  shared(): readonly RegisteredTool[] {
    if (this.sharedAll?.version !== this.changes) this.sharedAll = { version: this.changes, tools: Object.freeze(this.all()) };
    return this.sharedAll.tools;
  }

  /** The servers that have tools here. */
  serverIds(): IterableIterator<string> {
    return this.perServer.keys();
  }

  /** Registers a host built-in. Names are unique; a second registration is an error. */
  addHostTool(def: HostToolDefinition): RegisteredTool {
    if (this.tools.has(def.name)) throw new Error(`a tool named "${def.name}" is already registered`);
    this.base.set(def.name, def.classes !== undefined ? { hostTable: [...def.classes] } : {});
    const entry: RegisteredTool = {
      name: def.name,
      description: def.description,
      inputSchema: def.inputSchema,
      ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
      ...this.classOf(def.name),
      kind: 'host',
      handler: def.handler,
      ...callerFlags(def.callers ?? (def.scriptCallable === false ? 'model' : 'both'), def.callers !== undefined),
      ...(def.describe ? { describe: def.describe } : {}),
    };
    this.tools.set(def.name, entry);
    this.changes += 1;
    return entry;
  }

  removeHostTool(name: string): boolean {
    const entry = this.tools.get(name);
    if (entry?.kind !== 'host') return false;
    this.base.delete(name);
    this.changes += 1;
    return this.tools.delete(name);
  }

  /**
   * Replaces every tool of `serverId` with a fresh listing (initial list and each re-list
   * after `notifications/tools/list_changed`). `prefixed` false: each tool keeps the server's
   * own name (a name another tool already has is skipped, with a diagnostic). Returns class
   * diagnostics to log.
   */
  replaceServerTools(
    serverId: string,
    listing: readonly ServerToolListing[],
    prefixed = true,
    callers?: Readonly<Record<string, ToolCallers>>,
  ): ClassDiagnostic[] {
    this.removeServerTools(serverId);
    // A re-list always counts as a change: descriptions or schemas may differ under the same names.
    this.changes += 1;
    const diagnostics: ClassDiagnostic[] = [];
    for (const tool of listing) {
      const name = prefixed ? `${serverId}${NAME_SEPARATOR}${tool.name}` : tool.name;
      const existing = this.tools.get(name);
      if (existing) {
        diagnostics.push({ tool: name, message: `skipped: the name collides with an existing tool`, collidesWith: { serverId: existing.serverId } });
        continue;
      }
      const parsed = parseDeclaredClass(tool._meta);
      for (const value of parsed.dropped) diagnostics.push({ tool: name, message: `unknown class ${JSON.stringify(value)} dropped` });
      for (const key of parsed.ignoredKeys) diagnostics.push({ tool: name, message: `unknown _meta key ${JSON.stringify(key)} ignored` });
      if (parsed.unclassedReason) diagnostics.push({ tool: name, message: `unclassed: ${parsed.unclassedReason}` });
      this.base.set(name, { declared: parsed.classes });
      this.tools.set(name, this.serverEntry(name, serverId, tool, callers));
      this.perServer.set(serverId, (this.perServer.get(serverId) ?? 0) + 1);
    }
    return diagnostics;
  }

  private serverEntry(name: string, serverId: string, tool: ServerToolListing, callers: Readonly<Record<string, ToolCallers>> | undefined): RegisteredTool {
    return {
      name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema ?? { type: 'object' },
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...this.classOf(name),
      kind: 'server',
      serverId,
      serverTool: tool.name,
      ...callerFlags(callers?.[tool.name] ?? callers?.['*'] ?? 'both', true),
    };
  }

  removeServerTools(serverId: string): void {
    for (const [name, entry] of this.tools) {
      if (entry.kind === 'server' && entry.serverId === serverId) {
        this.tools.delete(name);
        this.base.delete(name);
        this.changes += 1;
      }
    }
    this.perServer.delete(serverId);
  }

  /** Sets (or with `undefined`, lifts) the operator's class override for a model-facing name or pattern. */
  setOverride(name: string, classes: readonly ToolClass[] | undefined): void {
    if (classes) this.overrides[name] = [...classes];
    else delete this.overrides[name];
    this.changes += 1;
    for (const [toolName, entry] of this.tools) this.tools.set(toolName, { ...entry, ...this.classOf(toolName) });
  }

  /** Model-facing listing of every tool, in registration order. */
  list(): ToolListing[] {
    return [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.describe ? t.describe() : t.description,
      inputSchema: t.inputSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      classes: [...t.classes],
      classSource: t.classSource,
      ...(t.serverId !== undefined ? { serverId: t.serverId } : {}),
    }));
  }
}
