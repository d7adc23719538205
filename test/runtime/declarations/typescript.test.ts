import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeclarationInputError, renderDeclarations, type ToolDescriptor } from '../../../src/runtime/declarations/index.ts';
import { assertContains, parseErrors, typeCheck } from './helpers.ts';
import { ARGS_CASES } from './typescript-cases.ts';

/** The argument type rendered for tool `t`, and whether the argument is optional. */
function argsOf(text: string): { args: string; optional: boolean } {
  const start = text.indexOf('  t(args');
  assert.ok(start >= 0, `no method t in:\n${text}`);
  const optional = text.startsWith('?', start + 8);
  const from = start + (optional ? 11 : 10);
  const end = text.lastIndexOf('): Promise<');
  const args = text
    .slice(from, end)
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.slice(2)))
    .join('\n');
  return { args, optional };
}

describe('renderDeclarations: schema constructs', () => {
  for (const c of ARGS_CASES) {
    it(c.name, () => {
      const text = renderDeclarations([{ name: 't', inputSchema: c.schema }]);
      assert.deepEqual(argsOf(text), { args: c.args, optional: c.optional ?? false }, text);
    });
  }

  it('names shared and recursive definitions with type aliases', () => {
    const byName = (name: string) => {
      const c = ARGS_CASES.find((x) => x.name === name)!;
      return renderDeclarations([{ name: 't', inputSchema: c.schema }]);
    };
    assertContains(byName('$ref to definitions used twice gets a name'), 'type TPoint = { x: number; y: number };\n');
    assertContains(byName('recursive $ref gets a named type'), 'type TNode = { value: number; children?: TNode[] };\n');
    assertContains(byName('root recursion through #'), 'type TArgs = { name: string; parent?: TArgs };\n');
  });

  it('every rendering is a valid, type-checking TypeScript program', () => {
    const files = Object.fromEntries(
      ARGS_CASES.map((c, i) => [`case${i}.ts`, `${renderDeclarations([{ name: 't', inputSchema: c.schema }])}export {};\n`]),
    );
    const diagnostics = typeCheck(files);
    ARGS_CASES.forEach((c, i) => assert.deepEqual(diagnostics[`case${i}.ts`], [], `${c.name}:\n${files[`case${i}.ts`]}`));
  });

  it('renders a wide, deeply shared schema once per definition instead of exponentially', () => {
    const defs: Record<string, unknown> = { L0: { type: 'string' } };
    for (let i = 1; i <= 40; i++) defs[`L${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/L${i - 1}` }, b: { $ref: `#/$defs/L${i - 1}` } } };
    const text = renderDeclarations([{ name: 't', inputSchema: { $ref: '#/$defs/L40', $defs: defs } }], { maxDepth: 100 });
    assert.ok(text.length < 5000, `rendered ${text.length} characters`);
    assertContains(text, 'type TL39 = { a?: TL38; b?: TL38 };');
    assert.deepEqual(parseErrors(text), []);
  });

  it('stops at maxDepth with unknown', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i++) schema = { type: 'object', properties: { n: schema }, required: ['n'] };
    const shallow = argsOf(renderDeclarations([{ name: 't', inputSchema: schema }], { maxDepth: 4 })).args;
    assert.equal(shallow, '{ n: { n: { n: { n: unknown } } } }');
    const deep = argsOf(renderDeclarations([{ name: 't', inputSchema: schema }])).args;
    assert.equal(deep, '{ n: { n: { n: { n: { n: { n: string } } } } } }');
  });

  it('leaves constraint notes out when asked', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer', minimum: 1, description: 'Count' } } };
    const text = renderDeclarations([{ name: 't', inputSchema: schema }], { constraints: false });
    assertContains(text, '  t(args?: {\n    /** Count */\n    a?: number;\n  }): Promise<unknown>;');
  });
});

describe('renderDeclarations: tools, names and globals', () => {
  it('prints a complete declaration for a simple tool', () => {
    const text = renderDeclarations([
      {
        name: 'read_file',
        description: 'Reads a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    ]);
    assert.equal(
      text,
      [
        'interface Tools {',
        '  /** Reads a file. */',
        '  read_file(args: { path: string }): Promise<{ text: string }>;',
        '}',
        '',
        'declare const tools: Tools;',
        '',
      ].join('\n'),
    );
  });

  it('puts non-identifier names under a quoted key and under the sanitized identifier', () => {
    const text = renderDeclarations([{ name: 'x--run', description: 'Runs x.', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } }]);
    assertContains(
      text,
      [
        '  /** Runs x. */',
        '  "x--run"(args: { a: number }): Promise<unknown>;',
        '  /** Same as `tools["x--run"]`. */',
        '  x__run: Tools["x--run"];',
      ].join('\n'),
    );
  });

  it('keeps identifiers with $ as they are and gives colliding names no alias', () => {
    const text = renderDeclarations([{ name: 'a$b' }, { name: 'x-y' }, { name: 'x+y' }, { name: 'z-z' }, { name: 'z_z' }]);
    assertContains(text, '  a$b(args?: { [key: string]: unknown }): Promise<unknown>;\n');
    assertContains(text, '  /** Only reachable as tools["x-y"]: `x_y` would also match "x+y". */\n  "x-y"(');
    assertContains(text, '  /** Only reachable as tools["x+y"]: `x_y` would also match "x-y". */\n  "x+y"(');
    assertContains(text, '  /** Only reachable as tools["z-z"]: `z_z` would also match "z_z". */\n  "z-z"(');
    assertContains(text, '\n  z_z(args?: { [key: string]: unknown }): Promise<unknown>;\n');
    assert.ok(!text.includes('x_y:'), text);
  });

  it('renders output schemas, and unknown when there is none', () => {
    const text = renderDeclarations([
      { name: 'a', outputSchema: { type: 'array', items: { type: 'integer' } } },
      { name: 'b' },
    ]);
    assertContains(text, '  a(args?: { [key: string]: unknown }): Promise<number[]>;');
    assertContains(text, '  b(args?: { [key: string]: unknown }): Promise<unknown>;');
  });

  it('documents the tool, its argument object and its result', () => {
    const text = renderDeclarations([
      {
        name: 'q',
        description: 'Runs a query.\n\nReturns rows.',
        inputSchema: { type: 'object', description: 'The query\nto run', properties: {} },
        outputSchema: { type: 'array', description: 'Matching rows', items: {} },
      },
    ]);
    assertContains(
      text,
      ['  /**', '   * Runs a query.', '   *', '   * Returns rows.', '   * @param args The query to run', '   * @returns Matching rows', '   */'].join('\n'),
    );
  });

  it('names invented types after the tool and keeps them unique across tools and lib names', () => {
    const point = { $defs: { P: { type: 'object', properties: { x: { type: 'number' } } } }, type: 'object', properties: { a: { $ref: '#/$defs/P' }, b: { $ref: '#/$defs/P' } } };
    const buffer = { $defs: { Buffer: { type: 'object', properties: { n: { type: 'number' } } } }, type: 'object', properties: { a: { $ref: '#/$defs/Buffer' }, b: { $ref: '#/$defs/Buffer' } } };
    const text = renderDeclarations([
      { name: 'm', inputSchema: point, outputSchema: point },
      { name: 'array', inputSchema: buffer },
    ]);
    assertContains(text, 'type ArrayBuffer2 = { n?: number };');
    assertContains(text, 'type MP = { x?: number };');
    assertContains(text, 'type MP2 = { x?: number };');
    assertContains(text, '  m(args?: { a?: MP; b?: MP }): Promise<{ a?: MP2; b?: MP2 }>;');
    assert.deepEqual(typeCheck({ 'names.ts': `${text}export {};\n` })['names.ts'], []);
  });

  it('declares globals as top-level functions', () => {
    const text = renderDeclarations([
      { name: 'sleep', kind: 'global', description: 'Waits.', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
      { name: 'get-env', kind: 'global' },
      { name: 'delete', kind: 'global' },
      { name: 'tools', kind: 'global' },
      { name: 'fetch', kind: 'tool' },
    ]);
    assertContains(text, '/** Waits. */\ndeclare function sleep(args: { ms: number }): Promise<unknown>;');
    assertContains(text, '/** Host name: "get-env". */\ndeclare function get_env(args?: { [key: string]: unknown }): Promise<unknown>;');
    assertContains(text, '// Global "delete" has no identifier a script can call it by.');
    assertContains(text, '// Global "tools" has no identifier a script can call it by.');
    assertContains(text, 'interface Tools {\n  fetch(');
    assert.ok(!text.includes('sleep(args: { ms: number }): Promise<unknown>;\n}'), 'global leaked into Tools');
  });

  it('renders an empty tool list as valid declarations', () => {
    const text = renderDeclarations([]);
    assert.equal(text, 'interface Tools {\n}\n\ndeclare const tools: Tools;\n');
    assert.deepEqual(typeCheck({ 'empty.ts': `${text}export {};\n` })['empty.ts'], []);
  });

  it('types calls: right arguments compile, wrong ones do not', () => {
    const text = renderDeclarations([
      { name: 'x--run', inputSchema: { type: 'object', properties: { a: { type: 'integer' }, mode: { enum: ['x', 'y'] } }, required: ['a'] }, outputSchema: { type: 'object', properties: { code: { type: 'integer' } }, required: ['code'] } },
      { name: 'sum', kind: 'global', inputSchema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } }, required: ['xs'] } },
    ]);
    const use = (body: string) => `${text}async function main() {\n${body}\n}\nexport {};\n`;
    const diagnostics = typeCheck({
      'good.ts': use('const r = await tools.x__run({ a: 1, mode: "x" });\nconst n: number = r.code;\nawait tools["x--run"]({ a: 2 });\nawait sum({ xs: [1, 2] });\nvoid n;'),
      'wrong-type.ts': use('await tools.x__run({ a: "1" });'),
      'missing.ts': use('await tools.x__run({});'),
      'bad-enum.ts': use('await tools["x--run"]({ a: 1, mode: "z" });'),
      'no-tool.ts': use('await tools.nope({});'),
      'bad-result.ts': use('const s: string = (await tools.x__run({ a: 1 })).code;'),
    });
    assert.deepEqual(diagnostics['good.ts'], []);
    assert.match(diagnostics['wrong-type.ts']!.join('\n'), /TS2322: Type 'string' is not assignable to type 'number'/);
    assert.match(diagnostics['missing.ts']!.join('\n'), /Property 'a' is missing/);
    assert.match(diagnostics['bad-enum.ts']!.join('\n'), /Type '"z"' is not assignable to type '"x" \| "y" \| undefined'/);
    assert.match(diagnostics['no-tool.ts']!.join('\n'), /Property 'nope' does not exist on type 'Tools'/);
    assert.match(diagnostics['bad-result.ts']!.join('\n'), /Type 'number' is not assignable to type 'string'/);
  });
});

describe('renderDeclarations: determinism and bad input', () => {
  const tools: ToolDescriptor[] = [
    { name: 'b-tool', inputSchema: { type: 'object', properties: { z: { type: 'string' }, a: { type: 'number' } } } },
    { name: 'a_tool', description: 'First', outputSchema: { $ref: '#/$defs/R', $defs: { R: { type: 'object', properties: { r: { $ref: '#/$defs/R' } } } } } },
    { name: 'g', kind: 'global' },
  ];

  it('renders the same text every time and whatever order tools arrive in', () => {
    const first = renderDeclarations(tools);
    assert.equal(renderDeclarations(tools), first);
    assert.equal(renderDeclarations([...tools].reverse()), first);
    assert.ok(first.indexOf('a_tool(') < first.indexOf('"b-tool"('), first);
    assertContains(first, '{ z?: string; a?: number }');
  });

  it('keeps registration order when sorting is turned off', () => {
    const text = renderDeclarations(tools, { sort: false });
    assert.ok(text.indexOf('"b-tool"(') < text.indexOf('a_tool('), text);
  });

  it('rejects descriptors it cannot render, naming the problem', () => {
    assert.throws(() => renderDeclarations([{ name: 'a' }, { name: 'a' }]), (e: Error) => e instanceof DeclarationInputError && /"a" appears more than once/.test(e.message));
    assert.throws(() => renderDeclarations([{ name: '' }]), /tools\[0\]\.name must be a non-empty string/);
    assert.throws(() => renderDeclarations([{ name: 'a', kind: 'helper' as 'tool' }]), /kind "helper"/);
    assert.throws(() => renderDeclarations([{ name: 'a', description: 5 as unknown as string }]), /description that is not a string/);
    assert.throws(() => renderDeclarations({} as ToolDescriptor[]), /expected an array/);
    // A tool and a global may share a name: they live in different namespaces.
    assert.doesNotThrow(() => renderDeclarations([{ name: 'a' }, { name: 'a', kind: 'global' }]));
  });

  it('escapes hostile tool names and descriptions into valid code and comments', () => {
    const names = ['a*/b', 'x\u2028y', 'q"uote', 'back\\slash', 'new\nline', '*/'];
    const tools: ToolDescriptor[] = names.flatMap((name) => [
      { name, description: `About ${name} */ end`, inputSchema: { type: 'object', properties: { [name]: { type: 'string', description: name } } } },
      { name, kind: 'global' as const },
    ]);
    tools.push({ name: 'del*/ete', kind: 'global' }, { name: 'ok', kind: 'global', description: '*/ /* */' });
    const text = renderDeclarations(tools);
    assert.deepEqual(typeCheck({ 'hostile.ts': `${text}export {};\n` })['hostile.ts'], [], text);
    assertContains(text, '"x\\u2028y"(args?: {');
    assertContains(text, '/** Same as `tools["a*\\/b"]`. */');
  });

  it('survives hostile schemas without throwing', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    const hostile: unknown[] = [null, 42, 'string', [], { type: 7 }, { properties: [] }, { required: 'a' }, { enum: 'x' }, { $ref: 7 }, { $ref: '#/%zz' }, { items: 'x' }, { allOf: [{ $ref: '#' }] }, cyclic];
    for (const schema of hostile) {
      const text = renderDeclarations([{ name: 't', inputSchema: schema as ToolDescriptor['inputSchema'] }]);
      assert.deepEqual(parseErrors(text), [], `${JSON.stringify(schema === cyclic ? 'cyclic' : schema)}:\n${text}`);
    }
  });
});
