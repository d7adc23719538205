import type { ToolBinding } from '../types.ts';
import { buildAliasTable, scriptIdentifier } from '../names.ts';
import type { ToolTable } from './protocol.ts';

/** The bindings of one run, indexed by host name, and the table the interpreter needs. */
export interface RunTools {
  bindings: Map<string, ToolBinding>;
  table: ToolTable;
  /** Stable text of `table`, to skip resending an unchanged table. */
  key: string;
}

/** Builds a run's tool table; throws a TypeError for a binding that could not be called. */
export function buildRunTools(tools: readonly ToolBinding[]): RunTools {
  if (!Array.isArray(tools)) throw new TypeError('tools must be an array of ToolBinding');
  const bindings = new Map<string, ToolBinding>();
  for (const binding of tools) {
    if (typeof binding?.name !== 'string' || binding.name === '') throw new TypeError('every tool binding needs a non-empty name');
    if (typeof binding.invoke !== 'function') throw new TypeError(`tool binding ${JSON.stringify(binding.name)} has no invoke function`);
    if (bindings.has(binding.name)) throw new TypeError(`two tool bindings are named ${JSON.stringify(binding.name)}`);
    bindings.set(binding.name, binding);
  }
  const names: string[] = [];
  const helpers: Record<string, string> = {};
  const cuts: Record<string, number> = {};
  for (const binding of bindings.values()) {
    if (binding.kind !== 'global') {
      names.push(binding.name);
      continue;
    }
    const ident = scriptIdentifier(binding.name);
    if (helpers[ident] !== undefined) throw new TypeError(`helper globals ${JSON.stringify(helpers[ident])} and ${JSON.stringify(binding.name)} both become ${ident}`);
    helpers[ident] = binding.name;
    const max = binding.maxArgumentChars;
    if (max !== undefined) {
      if (!Number.isInteger(max) || max < 1) throw new TypeError(`helper global ${JSON.stringify(binding.name)}: maxArgumentChars must be a positive integer`);
      cuts[ident] = max;
    }
  }
  const { aliases, collisions } = buildAliasTable(names);
  const table: ToolTable = {
    names,
    aliases: Object.fromEntries(aliases),
    collisions: Object.fromEntries(collisions.map((c) => [c.identifier, c.names])),
    helpers,
    ...(Object.keys(cuts).length > 0 ? { cuts } : {}),
  };
  return { bindings, table, key: JSON.stringify(table) };
}
