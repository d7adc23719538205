/**
 * Checks the tools and globals handed to a run and turns them into what the sandbox needs:
 * lookup tables for the host and the configuration the prelude installs. A plan depends on the
 * bindings alone (never on one run's options), so a catalog is planned once (see catalog.ts).
 */
import type { ToolBinding } from '../types.ts';
import { isJsIdentifier, scriptIdentifier, scriptPath, type NameCollision } from '../names.ts';

/** Names a global may not take: what the sandbox itself defines and the language's globals. */
const RESERVED_GLOBALS: ReadonlySet<string> = new Set([
  'tools', 'console', 'print', 'inspect', 'globalThis', 'undefined', 'NaN', 'Infinity', 'eval', 'Object', 'Function',
  'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'Promise', 'RegExp', 'Error',
  'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError',
  'URIError', 'JSON', 'Math', 'Intl', 'Reflect', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet',
  'WeakRef', 'FinalizationRegistry', 'Iterator', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView',
  'Atomics', 'WebAssembly', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array',
  'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array',
  'BigInt64Array', 'BigUint64Array', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'decodeURI',
  'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape',
]);

const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete',
  'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements',
  'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected',
  'public', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var',
  'void', 'while', 'with', 'yield', 'arguments',
]);

/** What a run needs to know about its bindings. */
export interface BindingPlan {
  tools: ReadonlyMap<string, ToolBinding>;
  globals: ReadonlyMap<string, ToolBinding>;
  /**
   * JSON for the sandbox: `[name, label, identifier]` per tool, flat aliases, nested
   * `[dottedIdentifier, name]` paths, collisions, and `[name, path, maxArgumentChars or 0]` per global.
   */
  config: string;
  /**
   * The catalog this plan installs, as sandbox processes and VMs know it: a {@link ToolCatalog}'s
   * id, or for an array of bindings an id shared by every array of the same shape.
   */
  id: number;
}

/** How a script writes a call to the tool `name`. */
export function toolLabel(name: string): string {
  return isJsIdentifier(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

function isSignature(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null) return false;
  const { typescript, python } = value as Record<string, unknown>;
  return (typescript === undefined || typeof typescript === 'string') && (python === undefined || typeof python === 'string');
}

/**
 * Bindings a plan handles between two yields of {@link planSteps}: each step of a stepped plan
 * ({@link planBindingsInSteps}) does at most this many bindings' checks, alias claims or config
 * entries. Chosen by measure (bench:tools, issue 46 item 5): a plan of 10,000 bindings was one
 * 40–60 ms step; 1,000 bindings of its work take 0.5–1 ms idle but were steps of 5–25 ms on a
 * machine at load 14 (two cores), so a step now does a quarter of that: it stays inside the
 * 10 ms a host's event loop may lose after a change of the tool set on a loaded machine too.
 * A yield costs a turn of the loop (microseconds idle), 40 per pass at 10,000 tools.
 */
export const PLAN_CHUNK = 250;

/**
 * Validates bindings; throws a TypeError naming the first problem. `id` names the catalog
 * (0 when the caller assigns one afterwards). All in one step: see {@link planBindingsInSteps}
 * for a large catalog planned on the host's event loop.
 */
export function planBindings(bindings: unknown, id = 0): BindingPlan {
  const steps = planSteps(bindings, id);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * {@link planBindings} in steps of at most {@link PLAN_CHUNK} bindings, each awaiting
 * `between()` (by default the next turn of the event loop, after its I/O) before the next: a
 * catalog of 10,000 tools costs the loop ten short steps instead of one long one.
 */
export async function planBindingsInSteps(bindings: unknown, id = 0, between = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))): Promise<BindingPlan> {
  const steps = planSteps(bindings, id);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await between();
  }
}

/**
 * The plan's work as a generator that yields after every {@link PLAN_CHUNK} units (a binding
 * checked, a name claimed, a config entry written), so a caller decides where the steps fall.
 */
export function* planSteps(bindings: unknown, id = 0, chunk = PLAN_CHUNK): Generator<void, BindingPlan, void> {
  if (!Array.isArray(bindings)) throw new TypeError('options.tools must be an array of tool bindings');
  let units = 0;
  const tools = new Map<string, ToolBinding>();
  const globals = new Map<string, ToolBinding>();
  const globalPaths = new Map<string, string>();
  for (let index = 0; index < bindings.length; index++) {
    if (++units % chunk === 0) yield;
    const binding: unknown = bindings[index];
    const where = `options.tools[${index}]`;
    if (typeof binding !== 'object' || binding === null) throw new TypeError(`${where} must be an object`);
    const { name, kind, invoke } = binding as Partial<ToolBinding>;
    if (typeof name !== 'string' || name === '') throw new TypeError(`${where}.name must be a non-empty string`);
    if (typeof invoke !== 'function') throw new TypeError(`${where}.invoke must be a function`);
    if (kind !== undefined && kind !== 'tool' && kind !== 'global') {
      throw new TypeError(`${where}.kind must be "tool" or "global"`);
    }
    const table = kind === 'global' ? globals : tools;
    if (table.has(name)) throw new TypeError(`${where}: ${kind === 'global' ? 'global' : 'tool'} "${name}" is bound twice`);
    const { signature } = binding as Partial<ToolBinding>;
    if (signature !== undefined && !isSignature(signature)) {
      throw new TypeError(`${where}.signature must be a string or { typescript?: string, python?: string }`);
    }
    const { maxArgumentChars } = binding as Partial<ToolBinding>;
    if (maxArgumentChars !== undefined) {
      if (kind !== 'global') throw new TypeError(`${where}.maxArgumentChars applies to globals only`);
      if (!Number.isInteger(maxArgumentChars) || maxArgumentChars < 1) throw new TypeError(`${where}.maxArgumentChars must be a positive integer`);
    }
    if (kind === 'global') {
      const root = scriptPath(name)[0]!;
      if (RESERVED_WORDS.has(root)) throw new TypeError(`${where}: global "${name}" would be named by the reserved word ${root}`);
      if (RESERVED_GLOBALS.has(root)) throw new TypeError(`${where}: global "${name}" would shadow the built-in ${root}`);
      const id = scriptIdentifier(name);
      const other = globalPaths.get(id);
      if (other !== undefined) throw new TypeError(`${where}: globals "${other}" and "${name}" would both be reached as ${id}`);
      globalPaths.set(id, name);
    }
    table.set(name, binding as ToolBinding);
  }
  const names = [...tools.keys()];
  // The alias table (names.ts buildAliasTable), claimed in steps. Dotted identifiers a script
  // reaches as nested properties (`tools.a.b`) are collected on the way: a pass of their own
  // over 10,000 names was one more unbroken step.
  const claims = new Map<string, string[]>();
  const nested: string[][] = [];
  for (const name of names) {
    if (++units % chunk === 0) yield;
    const identifier = scriptIdentifier(name);
    if (identifier === name) {
      if (name.includes('.')) nested.push([name, name]);
      continue;
    }
    const list = claims.get(identifier);
    if (list) list.push(name);
    else claims.set(identifier, [name]);
  }
  // ... then settled: an identifier claimed by one tool is its alias, else a collision.
  const collisions: NameCollision[] = [];
  // Aliases without a dot, the config's flat list; dotted ones join the nested ones after the names.
  const flatAliases: string[][] = [];
  const nestedAliases: string[][] = [];
  for (const [identifier, claimants] of claims) {
    if (++units % chunk === 0) yield;
    if (tools.has(identifier)) collisions.push({ identifier, names: [identifier, ...claimants] });
    else if (claimants.length > 1) collisions.push({ identifier, names: claimants });
    else (identifier.includes('.') ? nestedAliases : flatAliases).push([identifier, claimants[0]!]);
  }
  // Nested ones shortest first, so a function exists before a namespace hangs below it.
  // Each depth counted once, not on every comparison (10,000 dotted names were ~280,000 splits).
  for (const pair of nestedAliases) nested.push(pair);
  const depths = new Map(nested.map((pair) => [pair, pair[0]!.split('.').length]));
  nested.sort((a, b) => depths.get(a)! - depths.get(b)!);
  yield;
  // The config's two long lists, `[name, label, identifier]` per tool and the flat aliases,
  // written a chunk at a time.
  const tooled = yield* chunkedJson(names, chunk, (name) => [name, toolLabel(name), scriptIdentifier(name)]);
  const flat = yield* chunkedJson(flatAliases, chunk, (pair) => pair);
  const rest = JSON.stringify({
    nested,
    collisions: collisions.map((c) => [c.identifier, c.names]),
    globals: [...globals]
      .map(([name, binding]): [string, string[], number] => [name, scriptPath(name), binding.maxArgumentChars ?? 0])
      .sort((a, b) => a[1].length - b[1].length),
  });
  const config = `{"tools":${tooled},"aliases":${flat},${rest.slice(1)}`;
  return { tools, globals, config, id };
}

/** `JSON.stringify(items.map(entry))`, a chunk of items per step. */
function* chunkedJson<T>(items: readonly T[], chunk: number, entry: (item: T) => unknown): Generator<void, string, void> {
  const parts: string[] = [];
  for (let from = 0; from < items.length; from += chunk) {
    if (from > 0) yield;
    parts.push(JSON.stringify(items.slice(from, from + chunk).map(entry)).slice(1, -1));
  }
  return `[${parts.join(',')}]`;
}
