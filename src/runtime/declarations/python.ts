/**
 * Python stubs for the Python runner: a `TypedDict` per argument or result object, and the
 * tools as `async` static methods of a `tools` class (helper globals as top-level functions).
 * Valid Python 3.11: the stubs parse and also execute.
 */

import { buildCatalog, type CatalogEntry } from './catalog.ts';
import { docLines } from './doc.ts';
import { docstring, isPyName, PY_KEYWORDS, pyString } from './python-text.ts';
import { indent, PyPrinter, TYPING } from './python-types.ts';
import { argsOptional } from './typescript.ts';
import type { PythonStubOptions, ToolDescriptor } from './types.ts';

interface FunctionSpec {
  entry: CatalogEntry;
  name: string;
  args: string;
  result: string;
  doc: string[];
}

/** One line in the output order: a function to print, or a note on why a tool is missing. */
type Item = { entry: CatalogEntry; spec: FunctionSpec } | { entry: CatalogEntry; problem: string };

/**
 * The name a tool is called by from Python, or a note saying how to reach it instead. Names
 * starting with `__` are left out too: a class body would mangle them, and the runner keeps
 * dunder attributes for Python itself.
 */
function callableName(entry: CatalogEntry, taken: ReadonlySet<string>): { name: string } | { problem: string } {
  const usable = (name: string) => isPyName(name) && !name.startsWith('__') && !taken.has(name);
  if (usable(entry.name)) return { name: entry.name };
  // A dotted identifier is a path of nested classes: every segment must be a name.
  if (entry.identifierIsOurs && entry.identifier.split('.').every(usable)) return { name: entry.identifier };
  const quoted = pyString(entry.name);
  const how = entry.kind === 'tool' ? `reachable only as tools[${quoted}]` : 'not listed';
  if (!entry.identifierIsOurs) {
    return { problem: `${quoted} is ${how}: its identifier ${entry.identifier} would also match ${entry.sharedWith.map(pyString).join(', ')}.` };
  }
  return { problem: `${quoted} is ${how}: it has no name Python can call it by.` };
}

function functionSpec(printer: PyPrinter, entry: CatalogEntry, name: string): FunctionSpec {
  printer.prefix = entry.typePrefix;
  const args = entry.input
    ? printer.type(entry.input.root, `${entry.typePrefix}Args`, new Set())
    : `dict[str, ${printer.use('Any')}]`;
  const result = entry.output ? printer.type(entry.output.root, `${entry.typePrefix}Result`, new Set()) : printer.use('Any');
  const text = entry.description !== undefined ? docLines(entry.description) : [];
  const notes: string[] = [];
  if (name !== entry.name && name.replace(/\./g, '_') !== entry.name.replace(/\./g, '_')) notes.push(`Host name: ${pyString(entry.name)}.`);
  if (entry.inputDescription !== undefined) notes.push(`args: ${entry.inputDescription}`);
  if (entry.outputDescription !== undefined) notes.push(`Returns: ${entry.outputDescription}`);
  const doc = notes.length > 0 && text.length > 0 ? [...text, '', ...notes] : [...text, ...notes];
  return { entry, name, args, result, doc };
}

/**
 * A tool named `list` shadows the builtin for every annotation after it in the same scope.
 * Annotations that mention any function's name move into a module-level alias (a name the
 * printer guarantees no function has), so the stubs still mean what they say.
 */
function shieldAnnotations(printer: PyPrinter, specs: FunctionSpec[]): string[] {
  const risky = new Set(specs.map((s) => s.name));
  const aliases: string[] = [];
  const shield = (annotation: string, wanted: string): string => {
    const words = annotation.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
    if (!words.some((w) => risky.has(w))) return annotation;
    const alias = printer.names.claim(wanted);
    aliases.push(`${alias} = ${annotation}`);
    return alias;
  };
  for (const spec of specs) {
    spec.args = shield(spec.args, `${spec.entry.typePrefix}Args`);
    spec.result = shield(spec.result, `${spec.entry.typePrefix}Result`);
  }
  return aliases;
}

/**
 * `async def`; inside a class as a static method. A function that is also a namespace is the
 * class's `__new__`, so `await tools.a(args)` and `await tools.a.b(args)` both mean what they say.
 */
function functionLines(spec: FunctionSpec, inClass: boolean, asNew = false): string[] {
  const custom = spec.entry.signature.python?.trim();
  const param = argsOptional(spec.entry.input) ? `args: ${spec.args} | None = None` : `args: ${spec.args}`;
  const sig = custom ?? `(${param}) -> ${spec.result}`;
  const doc = docstring(spec.doc);
  const name = spec.name.slice(spec.name.lastIndexOf('.') + 1);
  const rest = sig.replace(/^\(\s*/, '');
  return [
    ...(inClass && !asNew ? ['@staticmethod'] : []),
    asNew ? `async def __new__(cls${rest.startsWith(')') ? '' : ', '}${rest}:` : `async def ${name}${sig}:`,
    ...indent(doc.length > 0 ? doc : ['...']),
  ];
}

interface PyNode {
  spec?: FunctionSpec;
  children: Map<string, PyNode>;
}

/** Functions at the top of a scope, and namespace classes for dotted names, in catalog order. */
function scopeLines(items: Item[], inClass: boolean): string[][] {
  const roots = new Map<string, PyNode>();
  const order: Array<Item | string> = [];
  for (const item of items) {
    if (!('spec' in item)) {
      order.push(item);
      continue;
    }
    let level = roots;
    let node: PyNode | undefined;
    item.spec.name.split('.').forEach((segment, i) => {
      node = level.get(segment);
      if (!node) {
        level.set(segment, (node = { children: new Map() }));
        if (i === 0) order.push(segment);
      }
      level = node.children;
    });
    node!.spec = item.spec;
  }
  const print = (segment: string, node: PyNode, nested: boolean): string[] => {
    if (node.children.size === 0) return functionLines(node.spec!, nested);
    const body: string[] = [];
    if (node.spec) body.push(...functionLines(node.spec, true, true));
    else body.push(`"""Namespace: call its members as \`${segment}.<name>(args)\`."""`);
    for (const [child, sub] of node.children) body.push('', ...print(child, sub, true));
    return [`class ${segment}:`, ...indent(body)];
  };
  return order.map((o) =>
    typeof o === 'string' ? print(o, roots.get(o)!, inClass) : [`# ${o.entry.kind === 'global' ? 'Global ' : ''}${'problem' in o ? o.problem : ''}`],
  );
}

/**
 * Renders Python stubs for `tools`: `TypedDict` classes for argument and result objects
 * (`total=False` with `Required[...]` marking required keys), `Literal[...]` for enums and
 * constants, `Any` for what Python typing cannot say. Tools are `async` static methods of
 * `class tools`, called as `await tools.x__run({"a": 1})`; globals are top-level functions.
 * The text parses and executes on Python 3.11.
 *
 * @throws {DeclarationInputError} for a nameless or duplicated tool or an unknown kind.
 */
export function renderPythonStubs(tools: readonly ToolDescriptor[], options: PythonStubOptions = {}): string {
  const catalog = buildCatalog(tools, options, 'renderPythonStubs');
  const reservedGlobals = new Set(['tools', ...TYPING]);
  const targets = catalog.map((entry) => ({
    entry,
    target: callableName(entry, entry.kind === 'global' ? reservedGlobals : new Set()),
  }));
  const functionNames = targets.flatMap(({ target }) => ('name' in target ? target.name.split('.') : []));
  const printer = new PyPrinter([...TYPING, ...PY_KEYWORDS, 'tools', ...functionNames]);
  const items: Item[] = targets.map(({ entry, target }) =>
    'problem' in target ? { entry, problem: target.problem } : { entry, spec: functionSpec(printer, entry, target.name) },
  );
  const aliases = shieldAnnotations(printer, items.flatMap((item) => ('spec' in item ? [item.spec] : [])));
  const methods = scopeLines(items.filter((i) => i.entry.kind === 'tool'), true);
  const functions = scopeLines(items.filter((i) => i.entry.kind === 'global'), false);
  const toolsClass = [
    'class tools:',
    ...indent([
      '"""Call each tool as `await tools.<name>(args)` with one dict of arguments."""',
      ...methods.flatMap((m) => ['', ...m]),
    ]),
  ];
  const sections: string[][] = [];
  if ((options.imports ?? true) && printer.imports.size > 0) {
    sections.push([`from typing import ${[...printer.imports].sort().join(', ')}`]);
  }
  sections.push(...printer.blocks);
  if (aliases.length > 0) sections.push(aliases);
  sections.push(toolsClass, ...functions);
  return `${sections.map((s) => s.join('\n')).join('\n\n\n')}\n`;
}
