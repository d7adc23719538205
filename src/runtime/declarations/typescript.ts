/**
 * TypeScript declaration text for the tools a script can call: what a model reads before
 * writing JavaScript against the sandbox.
 */

import { isJsIdentifier } from '../names.ts';
import { buildCatalog, type CatalogEntry } from './catalog.ts';
import { docLines, type Doc } from './doc.ts';
import { pascalCase, UniqueNames } from './identifiers.ts';
import { isInline, nodeKey, resolveNode, type Definition, type SchemaModel, type TypeNode } from './model.ts';
import type { RenderOptions, ToolDescriptor } from './types.ts';

/** Words that cannot name a top-level function in a script. */
const RESERVED_VALUES = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval tools console')
    .split(' '),
);

/** Global type names of the standard library that an invented type name must not shadow. */
const RESERVED_TYPES = (
  'Tools AggregateError Array ArrayBuffer ArrayBufferView ArrayLike AsyncGenerator AsyncIterable AsyncIterator Atomics ' +
  'Awaited BigInt BigInt64Array BigUint64Array Boolean Capitalize ConstructorParameters DataView Date Error EvalError ' +
  'Exclude Extract FinalizationRegistry Float32Array Float64Array Function Generator InstanceType Int16Array Int32Array ' +
  'Int8Array Intl Iterable IterableIterator Iterator JSON Lowercase Map Math NonNullable Number Object Omit Parameters ' +
  'Partial Pick Promise PromiseLike PropertyDescriptor PropertyKey Proxy RangeError Readonly ReadonlyArray Record ' +
  'ReferenceError Reflect RegExp Required ReturnType Set SharedArrayBuffer String Symbol SyntaxError ' +
  'TemplateStringsArray ThisType TypeError URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray Uncapitalize ' +
  'Uppercase WeakMap WeakRef WeakSet Console'
).split(' ');

/** Longest single-line object type before it is broken over lines. */
const MAX_INLINE_OBJECT = 80;

/** Rendered type text; `compound` when it is a top-level union or intersection. */
interface Scope {
  prefix: string;
  role: string;
}

interface Out {
  text: string;
  compound: boolean;
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n  ');
}

/**
 * A string literal for TypeScript. U+2028/U+2029 are escaped too: they are legal in string
 * literals but end a `//` comment, and names also appear in comments.
 */
function jsString(text: string): string {
  return JSON.stringify(text).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

function key(name: string): string {
  return isJsIdentifier(name) ? name : jsString(name);
}

/** A JSDoc block (no indentation), or nothing when there is nothing to say. */
export function tsDoc(doc: Doc, extra: readonly string[] = []): string[] {
  const lines = [
    ...(doc.description !== undefined ? docLines(doc.description) : []),
    ...extra,
    ...doc.tags.map(([tag, value]) => (value === '' ? `@${tag}` : `@${tag} ${value.replace(/\s+/g, ' ')}`)),
  ].map((line) => line.replace(/\*\//g, '*\\/'));
  if (lines.length === 0) return [];
  if (lines.length === 1) return [`/** ${lines[0]} */`];
  return ['/**', ...lines.map((line) => (line === '' ? ' *' : ` * ${line}`)), ' */'];
}

class TsPrinter {
  private readonly names = new UniqueNames(RESERVED_TYPES);
  private readonly named = new Map<Definition, string>();
  private readonly pending: Array<{ def: Definition; name: string; scope: Scope }> = [];
  /** Which tool and which schema invented names belong to, e.g. `XRun` + `Args`. */
  scope: Scope = { prefix: 'Tool', role: 'Args' };

  type(node: TypeNode): Out {
    switch (node.kind) {
      case 'unknown':
      case 'never':
        return { text: node.kind, compound: false };
      case 'primitive':
        return { text: node.type === 'integer' ? 'number' : node.type, compound: false };
      case 'literal':
        return { text: typeof node.value === 'string' ? jsString(node.value) : String(node.value), compound: false };
      case 'array':
        return { text: `${this.atom(node.items)}[]`, compound: false };
      case 'tuple':
        return this.tuple(node);
      case 'object':
        return this.object(node);
      case 'union':
        return { text: node.members.map((m) => this.type(m).text).join(' | '), compound: true };
      case 'intersection':
        return { text: node.members.map((m) => this.atom(m)).join(' & '), compound: true };
      case 'ref':
        return isInline(node.def) ? this.type(node.def.node ?? { kind: 'unknown' }) : { text: this.nameOf(node.def), compound: false };
    }
  }

  /** The type, parenthesized when it is a union or intersection. */
  private atom(node: TypeNode): string {
    const out = this.type(node);
    return out.compound ? `(${out.text})` : out.text;
  }

  private tuple(node: Extract<TypeNode, { kind: 'tuple' }>): Out {
    if (node.items.length === 0 && node.rest) return { text: `${this.atom(node.rest)}[]`, compound: false };
    const parts = node.items.map((item, i) => (i < node.required ? this.type(item).text : `${this.atom(item)}?`));
    if (node.rest) parts.push(`...${this.atom(node.rest)}[]`);
    return { text: `[${parts.join(', ')}]`, compound: false };
  }

  private object(node: Extract<TypeNode, { kind: 'object' }>): Out {
    const { properties, index } = node;
    if (properties.length === 0 && !index) return { text: '{ [key: string]: never }', compound: false };
    // An index signature must admit every property type, or TypeScript rejects the object.
    // When it does not, the index goes into a separate object type intersected with this one.
    let separate = false;
    if (index && index.kind !== 'unknown' && properties.length > 0) {
      const admitted = new Set((index.kind === 'union' ? index.members : [index]).map(nodeKey));
      separate = !properties.every((p) => p.required && admitted.has(nodeKey(p.type)));
    }
    const entries = properties.map((p) => ({
      doc: tsDoc(p.doc),
      line: `${key(p.name)}${p.required ? '' : '?'}: ${this.type(p.type).text}`,
    }));
    const indexLine = index ? `[key: string]: ${this.type(index).text}` : undefined;
    if (indexLine !== undefined && !separate) entries.push({ doc: [], line: indexLine });
    const text = this.block(entries);
    if (!separate || indexLine === undefined) return { text, compound: false };
    return { text: `${text} & { ${indexLine} }`, compound: true };
  }

  private block(entries: Array<{ doc: string[]; line: string }>): string {
    const oneLine = `{ ${entries.map((e) => e.line).join('; ')} }`;
    if (entries.every((e) => e.doc.length === 0) && !oneLine.includes('\n') && oneLine.length <= MAX_INLINE_OBJECT) return oneLine;
    const body = entries.map((e) => indent(['', ...e.doc, `${e.line};`].join('\n')));
    return `{${body.join('')}\n}`;
  }

  private nameOf(def: Definition): string {
    let name = this.named.get(def);
    if (name === undefined) {
      name = this.names.claim(this.scope.prefix + (def.hint === '' ? this.scope.role : pascalCase(def.hint)));
      this.named.set(def, name);
      this.pending.push({ def, name, scope: this.scope });
    }
    return name;
  }

  /** `type X = …;` for every definition printed under a name, in order of first use. */
  aliases(): string[] {
    const out: string[] = [];
    // Printing one alias can name further definitions, which join the end of the queue.
    for (let i = 0; i < this.pending.length; i++) {
      const { def, name, scope } = this.pending[i]!;
      this.scope = scope;
      out.push(`type ${name} = ${this.type(def.node ?? { kind: 'unknown' }).text};`);
    }
    return out;
  }
}

/** Whether a call may leave out the argument object: nothing in it is required. */
export function argsOptional(model: SchemaModel | undefined): boolean {
  if (!model) return true;
  const node = resolveNode(model.root);
  if (node.kind === 'unknown') return true;
  return node.kind === 'object' && node.properties.every((p) => !p.required);
}

function signature(printer: TsPrinter, entry: CatalogEntry): string {
  if (entry.signature.typescript !== undefined) return entry.signature.typescript.trim();
  printer.scope = { prefix: entry.typePrefix, role: 'Args' };
  const input = entry.input ? printer.type(entry.input.root).text : '{ [key: string]: unknown }';
  printer.scope = { prefix: entry.typePrefix, role: 'Result' };
  const output = entry.output ? printer.type(entry.output.root).text : 'unknown';
  return `(args${argsOptional(entry.input) ? '?' : ''}: ${input}): Promise<${output}>`;
}

function toolDoc(entry: CatalogEntry, notes: string[]): string[] {
  const lines = [...notes];
  if (entry.inputDescription !== undefined) lines.push(`@param args ${entry.inputDescription}`);
  if (entry.outputDescription !== undefined) lines.push(`@returns ${entry.outputDescription}`);
  return tsDoc(entry.description !== undefined ? { description: entry.description, tags: [] } : { tags: [] }, lines);
}

/** One step of a dotted path below `tools`: the function reached there (if any) and what hangs below. */
interface PathNode {
  /** The tool whose own identifier-shaped name is this path: printed here with its signature. */
  own?: CatalogEntry;
  /** The tool this path aliases, printed as a reference to its quoted member. */
  alias?: CatalogEntry;
  children: Map<string, PathNode>;
}

function pathTree(entries: readonly CatalogEntry[]): Map<string, PathNode> {
  const roots = new Map<string, PathNode>();
  for (const entry of entries) {
    if (!entry.identifierIsOurs) continue;
    let level = roots;
    let node: PathNode | undefined;
    for (const segment of entry.identifier.split('.')) {
      node = level.get(segment);
      if (!node) level.set(segment, (node = { children: new Map() }));
      level = node.children;
    }
    if (entry.identifier === entry.name && !entry.name.includes('.')) node!.own = entry;
    else node!.alias = entry;
  }
  return roots;
}

/** The type of a path node: a reference, a call signature, and its members. */
function nodeType(printer: TsPrinter, node: PathNode): string {
  const ref = node.alias ? `Tools[${jsString(node.alias.name)}]` : undefined;
  if (node.children.size === 0 && ref !== undefined) return ref;
  const lines: string[] = [];
  if (node.own) lines.push(...toolDoc(node.own, []), `${signature(printer, node.own)};`);
  for (const [segment, child] of node.children) lines.push(`${segment}: ${nodeType(printer, child)};`);
  const body = `{\n${lines.map((l) => `  ${indent(l)}`).join('\n')}\n}`;
  return ref !== undefined ? `${ref} & ${body}` : body;
}

function toolMembers(printer: TsPrinter, entries: readonly CatalogEntry[]): string[] {
  const roots = pathTree(entries);
  const out: string[] = [];
  for (const entry of entries) {
    const sig = () => signature(printer, entry);
    if (isJsIdentifier(entry.name)) {
      // A tool that is also a namespace is printed with its members, below.
      if (!roots.get(entry.name)?.children.size) out.push(...toolDoc(entry, []), `${entry.name}${sig()};`);
      continue;
    }
    const quoted = jsString(entry.name);
    const notes = entry.identifierIsOurs ? [] : [`Only reachable as tools[${quoted}]: \`${entry.identifier}\` would also match ${entry.sharedWith.map(jsString).join(', ')}.`];
    out.push(...toolDoc(entry, notes), `${quoted}${sig()};`);
    // A plain alias follows its tool; one with members below it is printed with them, below.
    if (entry.identifierIsOurs && !entry.identifier.includes('.') && !roots.get(entry.identifier)?.children.size) {
      out.push(...tsDoc({ tags: [] }, [`Same as \`tools[${quoted}]\`.`]), `${entry.identifier}: Tools[${quoted}];`);
    }
  }
  for (const [segment, node] of roots) {
    if (node.children.size === 0) continue;
    const what = node.alias ? `Same as \`tools[${jsString(node.alias.name)}]\`` : undefined;
    out.push(...(what !== undefined ? tsDoc({ tags: [] }, [`${what}${node.children.size > 0 ? ', with the tools under it' : ''}.`]) : []));
    out.push(`${segment}: ${nodeType(printer, node)};`);
  }
  return out;
}

const usableValue = (id: string) => isJsIdentifier(id) && !RESERVED_VALUES.has(id);

function globalFunction(printer: TsPrinter, entry: CatalogEntry): string[] {
  const path = usableValue(entry.name) ? [entry.name] : entry.identifierIsOurs ? entry.identifier.split('.') : [];
  if (path.length === 0 || !path.every(usableValue)) {
    return [`// Global ${jsString(entry.name)} has no identifier a script can call it by.`];
  }
  const notes = path.join('.') === entry.name ? [] : [`Host name: ${jsString(entry.name)}.`];
  const fn = [...toolDoc(entry, notes), `${path.length === 1 ? 'declare ' : ''}function ${path[path.length - 1]}${signature(printer, entry)};`];
  // One `declare namespace` per function: TypeScript merges them, and merges a function with a
  // namespace of the same name declared after it.
  let text = fn.join('\n');
  for (let i = path.length - 2; i >= 0; i--) text = `${i === 0 ? 'declare ' : ''}namespace ${path[i]} {\n  ${indent(text)}\n}`;
  return [text];
}

/**
 * Renders TypeScript declarations for `tools`: each tool of kind `tool` becomes a method of
 * `tools` (non-identifier names appear quoted and again under their sanitized identifier),
 * each `global` a top-level `declare function`. Dotted names become nested members
 * (`tools.a.b`) and namespaces (`declare namespace models { function list(…) }`); a tool's
 * `signature` replaces the generated one. Descriptions become doc comments; schema
 * constructs a type cannot say become `unknown`. The text is deterministic and type-checks.
 *
 * @throws {DeclarationInputError} for a nameless or duplicated tool or an unknown kind.
 */
export function renderDeclarations(tools: readonly ToolDescriptor[], options: RenderOptions = {}): string {
  const catalog = buildCatalog(tools, options, 'renderDeclarations');
  const printer = new TsPrinter();
  const members = [toolMembers(printer, catalog.filter((e) => e.kind === 'tool'))];
  const depth = (e: CatalogEntry) => (e.identifierIsOurs ? e.identifier.split('.').length : 1);
  const globals = catalog
    .filter((e) => e.kind === 'global')
    .sort((a, b) => depth(a) - depth(b))
    .map((e) => globalFunction(printer, e).join('\n'));
  const aliases = printer.aliases();
  const body = members.flat().map((line) => `  ${indent(line)}`);
  const sections = [
    aliases.join('\n'),
    globals.join('\n\n'),
    ['interface Tools {', ...body, '}', '', 'declare const tools: Tools;'].join('\n'),
  ].filter((s) => s !== '');
  return `${sections.join('\n\n')}\n`;
}
