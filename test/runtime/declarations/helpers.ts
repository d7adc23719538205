/**
 * Checks that rendered text is what the languages accept: a real TypeScript program for the
 * declarations, a real Python 3.11 process for the stubs.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
  noEmit: true,
  skipLibCheck: true,
};

/** Library files parsed once and shared by every program these tests build. */
const libCache = new Map<string, ts.SourceFile | undefined>();

/**
 * Type-checks in-memory files as one program and returns each file's diagnostics
 * (syntactic and semantic) as flattened messages prefixed with their error code.
 */
export function typeCheck(files: Record<string, string>): Record<string, string[]> {
  const host = ts.createCompilerHost(OPTIONS);
  const virtual = new Map(Object.entries(files).map(([name, text]) => [path.resolve('/virtual', name), text]));
  const baseGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion) => {
    const text = virtual.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    if (!libCache.has(fileName)) libCache.set(fileName, baseGetSourceFile(fileName, languageVersion));
    return libCache.get(fileName);
  };
  const baseFileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || baseFileExists(fileName);
  const program = ts.createProgram([...virtual.keys()], OPTIONS, host);
  const out: Record<string, string[]> = {};
  for (const [name] of Object.entries(files)) {
    const sf = program.getSourceFile(path.resolve('/virtual', name));
    assert.ok(sf, `program lost ${name}`);
    const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    out[name] = diagnostics.map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  }
  return out;
}

/** Parse errors only, from the parser alone: the cheapest validity check. */
export function parseErrors(text: string): string[] {
  const sf = ts.createSourceFile('decl.ts', text, ts.ScriptTarget.ES2022, true);
  const diagnostics = (sf as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const PYTHON_DRIVER = String.raw`
import ast, json, sys, traceback, types
results = []
for i, case in enumerate(json.load(sys.stdin)):
    entry = {"parsed": False, "executed": False, "error": None, "output": None}
    try:
        ast.parse(case["source"])
        entry["parsed"] = True
        # A real module, so typing.get_type_hints can resolve quoted forward references.
        module = types.ModuleType("stubs")
        sys.modules["stubs"] = module
        exec(compile(case["source"], "<stubs>", "exec"), module.__dict__)
        entry["executed"] = True
        if case["probe"]:
            exec(compile(case["probe"], "<probe>", "exec"), module.__dict__)
            entry["output"] = module.__dict__.get("result")
    except Exception:
        entry["error"] = traceback.format_exc(limit=2)
    results.append(entry)
print(json.dumps(results))
`;

export interface PythonResult {
  parsed: boolean;
  executed: boolean;
  error: string | null;
  output: unknown;
}

/**
 * Runs each source with `python3`: `ast.parse`, then executes it, then runs `probe` (which
 * may set `result` to any JSON value) in the same namespace. One process for all cases.
 */
export function runPython(cases: Array<{ source: string; probe?: string }>): PythonResult[] {
  const run = spawnSync('python3', ['-c', PYTHON_DRIVER], {
    input: JSON.stringify(cases.map((c) => ({ source: c.source, probe: c.probe ?? '' }))),
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as PythonResult[];
}

/** Asserts `text` contains `snippet`, showing the whole text when it does not. */
export function assertContains(text: string, snippet: string): void {
  assert.ok(text.includes(snippet), `expected to find:\n${snippet}\n--- in ---\n${text}`);
}
