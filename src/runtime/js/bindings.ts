/**
 * Checks the tools and globals handed to a run and turns them into what the sandbox needs:
 * lookup tables for the host and the configuration the prelude installs.
 */
import type { ToolBinding } from '../types.ts';
import { buildAliasTable, isJsIdentifier, sanitizeToolName } from '../names.ts';

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
  /** JSON for the sandbox: `[name, label, identifier]` per tool, aliases, collisions, globals. */
  config: string;
}

/** How a script writes a call to the tool `name`. */
export function toolLabel(name: string): string {
  return isJsIdentifier(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

/** Validates bindings; throws a TypeError naming the first problem. */
export function planBindings(bindings: unknown, callSites = false): BindingPlan {
  if (!Array.isArray(bindings)) throw new TypeError('options.tools must be an array of tool bindings');
  const tools = new Map<string, ToolBinding>();
  const globals = new Map<string, ToolBinding>();
  bindings.forEach((binding: unknown, index) => {
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
    if (kind === 'global') {
      if (!isJsIdentifier(name) || RESERVED_WORDS.has(name)) {
        throw new TypeError(`${where}: global "${name}" must be a JavaScript identifier`);
      }
      if (RESERVED_GLOBALS.has(name)) throw new TypeError(`${where}: global "${name}" would shadow a built-in`);
    }
    table.set(name, binding as ToolBinding);
  });
  const names = [...tools.keys()];
  const { aliases, collisions } = buildAliasTable(names);
  const config = JSON.stringify({
    tools: names.map((name) => [name, toolLabel(name), sanitizeToolName(name)]),
    aliases: [...aliases],
    collisions: collisions.map((c) => [c.identifier, c.names]),
    globals: [...globals.keys()],
    ...(callSites ? { sites: true } : {}),
  });
  return { tools, globals, config };
}
