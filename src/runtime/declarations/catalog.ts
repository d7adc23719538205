/**
 * The checked, ordered list of tools both renderers work from: names validated, aliases and
 * collisions worked out once, schemas converted to type models.
 */

import { buildAliasTable, scriptIdentifier } from '../names.ts';
import { buildModel } from './convert.ts';
import { docLines, docOf } from './doc.ts';
import { pascalCase } from './identifiers.ts';
import type { SchemaModel } from './model.ts';
import type { RenderOptions, ToolDescriptor } from './types.ts';

export interface CatalogEntry {
  name: string;
  kind: 'tool' | 'global';
  description?: string;
  /** `scriptIdentifier(name)`: sanitized, dotted for a namespaced name (`a.b-c` → `a.b_c`). */
  identifier: string;
  /** The identifier maps to this tool unambiguously (it is the name, or a clean alias of it). */
  identifierIsOurs: boolean;
  /** Other names that sanitize to the same identifier, when it is ambiguous. */
  sharedWith: string[];
  /** Missing when the tool declares no input schema. */
  input?: SchemaModel;
  /** Missing when the tool declares no output schema. */
  output?: SchemaModel;
  /** Description of the input schema itself, if it has one. */
  inputDescription?: string;
  /** Description of the output schema itself, if it has one. */
  outputDescription?: string;
  /** Hand-written signatures that replace the generated ones, per language. */
  signature: { typescript?: string; python?: string };
  /** Prefix for type names invented for this tool (`x--run` → `XRun`). */
  typePrefix: string;
}

/** Thrown for descriptors that cannot be rendered (a missing name, a duplicate, a bad kind). */
export class DeclarationInputError extends TypeError {
  override name = 'DeclarationInputError';
}

function check(tools: readonly ToolDescriptor[], caller: string): void {
  if (!Array.isArray(tools)) throw new DeclarationInputError(`${caller}: expected an array of tool descriptors`);
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (typeof tool !== 'object' || tool === null) throw new DeclarationInputError(`${caller}: tools[${i}] is not an object`);
    if (typeof tool.name !== 'string' || tool.name === '') {
      throw new DeclarationInputError(`${caller}: tools[${i}].name must be a non-empty string`);
    }
    if (tool.kind !== undefined && tool.kind !== 'tool' && tool.kind !== 'global') {
      throw new DeclarationInputError(`${caller}: tool "${tool.name}" has kind ${JSON.stringify(tool.kind)}; expected "tool" or "global"`);
    }
    if (tool.description !== undefined && typeof tool.description !== 'string') {
      throw new DeclarationInputError(`${caller}: tool "${tool.name}" has a description that is not a string`);
    }
    const sig = tool.signature as unknown;
    const sigOk = sig === undefined || typeof sig === 'string' ||
      (typeof sig === 'object' && sig !== null && ['typescript', 'python'].every((k) => {
        const v = (sig as Record<string, unknown>)[k];
        return v === undefined || (typeof v === 'string' && v.trimStart().startsWith('('));
      }));
    if (!sigOk || (typeof sig === 'string' && !sig.trimStart().startsWith('('))) {
      throw new DeclarationInputError(`${caller}: tool "${tool.name}" has a signature that is not "(…)…" text or { typescript?, python? }`);
    }
    const key = `${tool.kind ?? 'tool'}:${tool.name}`;
    if (seen.has(key)) throw new DeclarationInputError(`${caller}: tool name "${tool.name}" appears more than once`);
    seen.add(key);
  });
}

/** Validates `tools` and builds the entries, sorted by name unless `options.sort` is false. */
export function buildCatalog(tools: readonly ToolDescriptor[], options: RenderOptions, caller: string): CatalogEntry[] {
  check(tools, caller);
  const modelOptions = { maxDepth: options.maxDepth ?? 32, constraints: options.constraints ?? true };
  const list = [...tools];
  // Code-unit order, not localeCompare: the text must not depend on the host's locale.
  if (options.sort ?? true) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: CatalogEntry[] = [];
  for (const kind of ['tool', 'global'] as const) {
    const ofKind = list.filter((t) => (t.kind ?? 'tool') === kind);
    const { aliases, collisions } = buildAliasTable(ofKind.map((t) => t.name));
    for (const tool of ofKind) {
      const identifier = scriptIdentifier(tool.name);
      const collision = collisions.find((c) => c.identifier === identifier);
      const entry: CatalogEntry = {
        name: tool.name,
        kind,
        identifier,
        identifierIsOurs: identifier === tool.name || aliases.get(identifier) === tool.name,
        sharedWith: collision ? collision.names.filter((n) => n !== tool.name) : [],
        typePrefix: pascalCase(identifier),
        signature: typeof tool.signature === 'string' ? { typescript: tool.signature } : { ...(tool.signature ?? {}) },
      };
      if (tool.description !== undefined) entry.description = tool.description;
      if (tool.inputSchema !== undefined) {
        entry.input = buildModel(tool.inputSchema, modelOptions);
        const text = schemaDescription(tool.inputSchema);
        if (text !== undefined) entry.inputDescription = text;
      }
      if (tool.outputSchema !== undefined) {
        entry.output = buildModel(tool.outputSchema, modelOptions);
        const text = schemaDescription(tool.outputSchema);
        if (text !== undefined) entry.outputDescription = text;
      }
      entries.push(entry);
    }
  }
  return entries;
}

/** A schema's own description on one line, for `@param` / `@returns` style notes. */
function schemaDescription(schema: unknown): string | undefined {
  const text = docOf(schema, schema, false).description;
  return text === undefined ? undefined : docLines(text).filter((l) => l.trim() !== '').join(' ');
}
