/**
 * Declared ⇔ callable: every function the description declares (TypeScript declarations, Python
 * stubs) can be called from a script and reaches its binding, and every function a script can
 * reach is declared. Names that need sanitizing, collisions, namespaces and a namespace that is
 * also a function are all in the set.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import ts from 'typescript';
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../../src/runtime/declarations/index.ts';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { PythonRunner } from '../../src/runtime/python/index.ts';
import type { ToolBinding } from '../../src/runtime/types.ts';
import { ENGINES } from './js/engines.ts';

const DESCRIPTORS: ToolDescriptor[] = [
  { name: 'plain' },
  { name: 'x--y' },
  { name: 'a.b-c' },
  { name: 'a.d' },
  { name: 'ns' },
  { name: 'ns.inner.deep' },
  { name: 'ns.top' },
  { name: 'c-d' },
  { name: 'c_d' },
  { name: 'sig', signature: { typescript: '(args: { n: number }): Promise<number>', python: '(args: dict) -> int' } },
  { name: 'models', kind: 'global' },
  { name: 'models.list', kind: 'global' },
  { name: 'models.get-one', kind: 'global' },
  { name: 'helper', kind: 'global' },
  { name: 'x--g', kind: 'global' },
];

/** Bindings that answer with their own host name, so a call shows which binding it reached. */
function bindings(): ToolBinding[] {
  return DESCRIPTORS.map((d) => ({ name: d.name, ...(d.kind ? { kind: d.kind } : {}), invoke: async () => d.name }));
}

/** Paths of every callable the TypeScript declarations declare: `tools.…` members and globals. */
function declaredTs(text: string): string[] {
  const file = 'decl.d.ts';
  const host = ts.createCompilerHost({ strict: true, noEmit: true });
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang) => (name === file ? ts.createSourceFile(file, text, lang) : read(name, lang));
  const program = ts.createProgram([file], { strict: true, noEmit: true, lib: ['lib.es2022.d.ts'] }, host);
  assert.deepEqual(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), []);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const out: string[] = [];
  const walk = (type: ts.Type, path: string, at: ts.Node) => {
    if (type.getCallSignatures().length > 0) out.push(path);
    for (const prop of checker.getPropertiesOfType(type)) {
      if (type.getCallSignatures().length > 0 && ['apply', 'call', 'bind', 'toString', 'length', 'arguments', 'caller', 'name', 'prototype'].includes(prop.name)) continue;
      const key = /^[A-Za-z_$][\w$]*$/.test(prop.name) ? `.${prop.name}` : `[${JSON.stringify(prop.name)}]`;
      walk(checker.getTypeOfSymbolAtLocation(prop, at), path + key, at);
    }
  };
  for (const symbol of checker.getSymbolsInScope(source, ts.SymbolFlags.Value)) {
    const decl = symbol.declarations?.[0];
    if (decl?.getSourceFile() !== source) continue;
    walk(checker.getTypeOfSymbolAtLocation(symbol, decl), symbol.name, decl);
  }
  return [...new Set(out)].sort();
}

describe('declared ⇔ callable', () => {
  for (const engine of ENGINES) {
    test(`JavaScript (${engine}): every declared function calls its binding, every reachable one is declared`, async () => {
      const declared = declaredTs(renderDeclarations(DESCRIPTORS));
      // Sanity: the interesting shapes are really declared.
      for (const p of ['tools.a.b_c', 'tools.ns', 'tools.ns.inner.deep', 'tools["x--y"]', 'tools.x__y', 'models', 'models.list', 'models.get_one', 'x__g']) {
        assert.ok(declared.includes(p), `${p} is declared: ${declared.join(', ')}`);
      }
      const runtime = new JsRuntime({ engine });
      after(() => runtime.close());
      const baseline = await runtime.execute('return Object.getOwnPropertyNames(globalThis)', { tools: [] });
      assert.ok(baseline.ok);
      const script = `
        const callable = [];
        const seen = new Set();
        const skip = new Set(['length', 'name', 'prototype']);
        function walk(value, path) {
          if (seen.has(value)) { if (typeof value === 'function') callable.push(path); return; }
          seen.add(value);
          if (typeof value === 'function') callable.push(path);
          for (const key of Reflect.ownKeys(value)) {
            if (typeof key !== 'string' || (typeof value === 'function' && skip.has(key))) continue;
            const v = value[key];
            if (v !== null && (typeof v === 'object' || typeof v === 'function')) {
              walk(v, path + (/^[A-Za-z_$][\\w$]*$/.test(key) ? '.' + key : '[' + JSON.stringify(key) + ']'));
            }
          }
        }
        walk(tools, 'tools');
        const before = new Set(${JSON.stringify(baseline.value)});
        for (const key of Object.getOwnPropertyNames(globalThis)) if (!before.has(key) && key !== 'tools') walk(globalThis[key], key);
        const reached = {};
        ${declared.map((p) => `reached[${JSON.stringify(p)}] = await ${p}();`).join('\n')}
        return { callable: callable.sort(), reached };`;
      const result = await runtime.execute(script, { tools: bindings() });
      assert.ok(result.ok, result.ok ? '' : `${result.error.message}\n${result.error.stack}`);
      const { callable, reached } = result.value as { callable: string[]; reached: Record<string, string> };
      assert.deepEqual(callable, declared, 'what a script can call is exactly what is declared');
      for (const [path, name] of Object.entries(reached)) {
        assert.ok(DESCRIPTORS.some((d) => d.name === name), `${path} reached ${name}`);
      }
      assert.equal(reached['tools.a.b_c'], 'a.b-c');
      assert.equal(reached['tools.ns'], 'ns');
      assert.equal(reached['tools.ns.inner.deep'], 'ns.inner.deep');
      assert.equal(reached['models'], 'models');
      assert.equal(reached['models.get_one'], 'models.get-one');
      assert.equal(reached['tools.c_d'], 'c_d');
      assert.equal(reached['tools["c-d"]'], 'c-d');
    });
  }

  test('Python: every declared function calls its binding, every reachable one is declared', async () => {
    const stubs = renderPythonStubs(DESCRIPTORS);
    const runner = new PythonRunner({});
    after(() => runner.close());
    const script = `
import inspect
stub_ns = {}
exec(compile(${JSON.stringify(stubs)}, "<stubs>", "exec"), stub_ns)

def declared_paths(obj, path, out):
    for key, value in vars(obj).items():
        if key == "__new__":
            out.append(path)
        elif isinstance(value, staticmethod) or inspect.iscoroutinefunction(value):
            out.append(path + "." + key)
        elif inspect.isclass(value) and not key.startswith("_") and value.__module__ == obj_module:
            declared_paths(value, path + "." + key, out)

obj_module = stub_ns["tools"].__module__
declared = []
declared_paths(stub_ns["tools"], "tools", declared)
for key, value in stub_ns.items():
    if inspect.iscoroutinefunction(value):
        declared.append(key)
    elif inspect.isclass(value) and value.__module__ == obj_module and key != "tools" and not hasattr(value, "__total__"):
        declared_paths(value, key, declared)

def live_paths(obj, path, out):
    if callable(obj):
        out.append(path)
    for key in dir(obj):
        if key.startswith("__"):
            continue
        value = getattr(obj, key)
        if callable(value) or type(value).__name__ == "Namespace":
            live_paths(value, path + "." + key, out)

callable_paths = []
live_paths(tools, "tools", callable_paths)
callable_paths.remove("tools") if "tools" in callable_paths else None
for key in ("models", "helper", "x__g"):
    if key in globals():
        live_paths(globals()[key], key, callable_paths)

reached = {}
for path in declared:
    reached[path] = await eval(path)({})
{"declared": sorted(set(declared)), "callable": sorted(set(callable_paths)), "reached": reached}
`;
    const result = await runner.run(script, { tools: bindings(), timeoutMs: 20_000 });
    assert.ok(result.ok, result.ok ? '' : result.stderr);
    const { declared, callable, reached } = result.value as { declared: string[]; callable: string[]; reached: Record<string, string> };
    for (const p of ['tools.a.b_c', 'tools.ns', 'tools.ns.inner.deep', 'tools.x__y', 'models', 'models.list', 'models.get_one', 'x__g']) {
      assert.ok(declared.includes(p), `${p} is declared: ${declared.join(', ')}`);
    }
    assert.deepEqual(callable, declared, 'what a script can call is exactly what is declared');
    assert.equal(reached['tools.a.b_c'], 'a.b-c');
    assert.equal(reached['tools.ns'], 'ns');
    assert.equal(reached['tools.ns.inner.deep'], 'ns.inner.deep');
    assert.equal(reached['models.get_one'], 'models.get-one');
    assert.equal(reached['tools.sig'], 'sig');
  });
});
