import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeclarationInputError, renderPythonStubs, type JsonSchema, type ToolDescriptor } from '../../../src/runtime/declarations/index.ts';
import { assertContains, runPython } from './helpers.ts';

const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});

const one = (inputSchema: JsonSchema, extra: Partial<ToolDescriptor> = {}) => renderPythonStubs([{ name: 't', inputSchema, ...extra }]);

/** Every stub rendered in this file, checked by one Python process at the end. */
const rendered: Array<{ label: string; source: string; probe?: string; expect?: unknown }> = [];
function stub(label: string, source: string, probe?: string, expect?: unknown): string {
  rendered.push({ label, source, ...(probe !== undefined ? { probe, expect } : {}) });
  return source;
}

describe('renderPythonStubs: schema constructs', () => {
  it('prints a complete stub for a simple tool', () => {
    const text = stub(
      'simple',
      renderPythonStubs([
        {
          name: 'read_file',
          description: 'Reads a file.',
          inputSchema: obj({ path: { type: 'string' } }, ['path']),
          outputSchema: obj({ text: { type: 'string' } }, ['text']),
        },
      ]),
    );
    assert.equal(
      text,
      [
        'from typing import TypedDict',
        '',
        '',
        'class ReadFileArgs(TypedDict):',
        '    path: str',
        '',
        '',
        'class ReadFileResult(TypedDict):',
        '    text: str',
        '',
        '',
        'class tools:',
        '    """Call each tool as `await tools.<name>(args)` with one dict of arguments."""',
        '',
        '    @staticmethod',
        '    async def read_file(args: ReadFileArgs) -> ReadFileResult:',
        '        """Reads a file."""',
        '',
      ].join('\n'),
    );
  });

  it('marks required keys with Required[...] in a total=False TypedDict', () => {
    const text = stub(
      'required',
      one(obj({ a: { type: 'string' }, b: { type: 'number' }, c: { type: 'integer' }, d: { type: 'boolean' }, e: { type: 'null' } }, ['a', 'c'])),
      'result = {"required": sorted(TArgs.__required_keys__), "optional": sorted(TArgs.__optional_keys__)}',
      { required: ['a', 'c'], optional: ['b', 'd', 'e'] },
    );
    assertContains(text, 'class TArgs(TypedDict, total=False):\n    a: Required[str]\n    b: float\n    c: Required[int]\n    d: bool\n    e: None\n');
    assertContains(text, '    async def t(args: TArgs) -> Any:\n        ...\n');
  });

  it('makes args optional when no key is required', () => {
    const text = stub('optional', one(obj({ a: { type: 'string' } })));
    assertContains(text, 'class TArgs(TypedDict, total=False):\n    a: str\n');
    assertContains(text, 'async def t(args: TArgs | None = None) -> Any:');
  });

  it('gives nested objects their own classes, defined before use', () => {
    const text = stub(
      'nested',
      one(obj({ opts: obj({ depth: { type: 'integer' } }, ['depth']), target: { anyOf: [obj({ id: { type: 'string' } }, ['id']), obj({ path: { type: 'string' } }, ['path']), { type: 'string' }] } })),
    );
    assertContains(
      text,
      [
        'class TArgsOpts(TypedDict):',
        '    depth: int',
        '',
        '',
        'class TArgsTarget1(TypedDict):',
        '    id: str',
        '',
        '',
        'class TArgsTarget2(TypedDict):',
        '    path: str',
        '',
        '',
        'class TArgs(TypedDict, total=False):',
        '    opts: TArgsOpts',
        '    target: TArgsTarget1 | TArgsTarget2 | str',
      ].join('\n'),
    );
  });

  it('renders enums and consts as Literal[...], with None and float outside it', () => {
    const text = stub('literals', one(obj({ mode: { enum: ['a', 'b', 2, null, 1.5] }, on: { const: true }, name: { const: 'say "hi"' }, flag: { enum: [true, false] } }, ['mode', 'on', 'name', 'flag'])));
    assertContains(text, '    mode: Literal["a", "b", 2] | None | float\n    on: Literal[True]\n    name: Literal["say \\"hi\\""]\n    flag: bool\n');
  });

  it('renders arrays as list[...], maps as dict[str, ...] and tuples as lists with positions noted', () => {
    const text = stub(
      'collections',
      one(
        obj(
          {
            tags: { type: 'array', items: { type: 'string' } },
            any: { type: 'array' },
            env: { type: 'object', additionalProperties: { type: 'string' } },
            pat: { type: 'object', patternProperties: { '^x': { type: 'integer' } } },
            bare: { type: 'object' },
            pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], items: { type: 'boolean' }, minItems: 1 },
            legacy: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
          },
          ['tags', 'any', 'env', 'pat', 'bare', 'pair', 'legacy'],
        ),
      ),
    );
    assertContains(
      text,
      [
        'class TArgs(TypedDict):',
        '    tags: list[str]',
        '    any: list[Any]',
        '    env: dict[str, str]',
        '    pat: dict[str, int]',
        '    bare: dict[str, Any]',
        '    # minItems: 1',
        '    # positions: [float, str?, ...bool]',
        '    pair: list[float | str | bool]',
        '    # positions: [str, int]',
        '    legacy: list[str | int]',
      ].join('\n'),
    );
  });

  it('renders unions, type arrays and nullable', () => {
    const text = stub('unions', one(obj({ a: { type: ['string', 'null'] }, b: { oneOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }] }, c: { type: 'string', nullable: true } }, ['a', 'b', 'c'])));
    assertContains(text, '    a: str | None\n    b: int | list[int]\n    c: str | None\n');
  });

  it('quotes recursive references so the classes execute and resolve', () => {
    const schema = { $ref: '#/$defs/Node', $defs: { Node: obj({ value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } }, parent: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] } }, ['value']) } };
    const text = stub(
      'recursive',
      one(schema),
      'import typing\nhints = typing.get_type_hints(TNode)\nresult = [str(hints["children"]), str(hints["parent"])]',
      ['list[stubs.TNode]', 'stubs.TNode | None'],
    );
    assertContains(text, "class TNode(TypedDict, total=False):\n    value: Required[float]\n    children: 'list[TNode]'\n    parent: 'TNode | None'\n");
    assertContains(text, 'async def t(args: TNode) -> Any:');
  });

  it('stops recursion that is not through an object at Any', () => {
    const text = stub('recursive-any', one(obj({ json: { $ref: '#/$defs/J' } }, ['json'], { $defs: { J: { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#/$defs/J' } }] } } })));
    assertContains(text, '    json: str | list[Any]\n');
  });

  it('uses the functional TypedDict syntax for keys that cannot be class fields', () => {
    const text = stub(
      'functional',
      one(obj({ from: { type: 'string', description: 'Start' }, 'x-y': { const: 3 }, __x: { type: 'integer' }, ok: { type: 'string' } }, ['from'])),
      'result = {"required": sorted(TArgs.__required_keys__), "optional": sorted(TArgs.__optional_keys__)}',
      { required: ['from'], optional: ['__x', 'ok', 'x-y'] },
    );
    assertContains(text, 'TArgs = TypedDict("TArgs", {\n    # Start\n    "from": Required[str],\n    "x-y": Literal[3],\n    "__x": int,\n    "ok": str,\n}, total=False)\n');
  });

  it('writes descriptions and constraints as comments and docstrings, escaped', () => {
    const text = stub(
      'docs',
      one(
        obj(
          {
            a: { type: 'integer', description: 'Count of\nthings', minimum: 1, default: 2 },
            b: { type: 'string', description: 'Has """ quotes, a \\ backslash and a \u0000 NUL' },
          },
          ['a'],
        ),
        { description: 'Ends with a "quote"', outputSchema: { type: 'string', description: 'The answer' } },
      ),
    );
    assertContains(text, '    # Count of\n    # things\n    # default: 2, minimum: 1\n    a: Required[int]\n');
    assertContains(text, '    # Has """ quotes, a \\ backslash and a \\x00 NUL\n    b: str\n');
    assertContains(text, '    async def t(args: TArgs) -> str:\n        """Ends with a "quote"\n\n        Returns: The answer\n        """\n');
    const quoteEnd = stub('docs-quote', one(obj({}), { description: 'Say "hi"' }));
    assertContains(quoteEnd, '        """Say "hi"\n        """\n');
    const tricky = stub('docs-tricky', one(obj({}), { description: 'Triple """ and \\n escape \u0001' }));
    assertContains(tricky, '        r"""Triple ""\\" and \\n escape \\x01"""\n');
  });

  it('describes objects with extra keys in the class docstring', () => {
    const text = stub('index', one(obj({ a: { type: 'string' } }, ['a'], { description: 'A map.', additionalProperties: { type: 'integer' } })));
    assertContains(text, 'class TArgs(TypedDict):\n    """A map.\n    Other keys: int.\n    """\n    a: str\n');
  });

  it('merges allOf objects into one class and falls back to Any', () => {
    const text = stub(
      'allof',
      one({ allOf: [{ $ref: '#/$defs/Base' }, obj({ extra: { type: 'boolean' } }, ['extra'])], $defs: { Base: obj({ id: { type: 'string' } }, ['id']) } }),
    );
    assertContains(text, 'class TArgs(TypedDict):\n    id: str\n    extra: bool\n');
    const unions = stub('allof-any', one(obj({ v: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { anyOf: [{ type: 'number' }, { type: 'boolean' }] }] } }, ['v'])));
    assertContains(unions, '    v: Any\n');
    const refs = stub('allof-refs', one(obj({ v: { allOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }], required: ['a'] } }, ['v'], { $defs: { A: obj({ a: { type: 'string' } }), B: obj({ b: { type: 'string' } }, ['b']) } })));
    assertContains(refs, 'class TArgsV(TypedDict):\n    a: str\n    b: str\n');
  });

  it('renders an intersection of object definitions as one merged class', () => {
    const schema = obj({ v: { $ref: '#/$defs/A', anyOf: [{ type: 'object', properties: { x: { type: 'string' } } }, { type: 'object', properties: { y: { type: 'string' } } }] } }, ['v'], { $defs: { A: obj({ a: { type: 'string' } }, ['a']) } });
    const text = stub('intersection', one(schema));
    assertContains(text, 'class TArgsV1(TypedDict, total=False):\n    a: Required[str]\n    x: str\n');
    assertContains(text, 'class TArgsV2(TypedDict, total=False):\n    a: Required[str]\n    y: str\n');
    assertContains(text, '    v: TArgsV1 | TArgsV2\n');
  });

  it('imports only what it uses, or nothing when asked', () => {
    const text = stub('imports', renderPythonStubs([{ name: 'a', inputSchema: obj({ x: { type: 'string' } }, ['x']), outputSchema: { type: 'string' } }]));
    assert.ok(text.startsWith('from typing import TypedDict\n'), text);
    const bare = renderPythonStubs([{ name: 'a', inputSchema: obj({ x: { type: 'string' } }, ['x']) }], { imports: false });
    assert.ok(bare.startsWith('class AArgs(TypedDict):'), bare);
  });
});

describe('renderPythonStubs: names and globals', () => {
  it('lists tools under their Python names, noting host names and unreachable ones', () => {
    const text = stub(
      'names',
      renderPythonStubs([
        { name: 'x--run', description: 'Runs x.', inputSchema: obj({ a: { type: 'number' } }, ['a']) },
        { name: 'a$b' },
        { name: 'class' },
        { name: 'p-q' },
        { name: 'p+q' },
        { name: '__init' },
      ]),
      'import inspect\nresult = [inspect.iscoroutinefunction(tools.x__run), hasattr(tools, "a_b"), hasattr(tools, "p_q")]',
      [true, true, false],
    );
    assertContains(text, '    @staticmethod\n    async def x__run(args: XRunArgs) -> Any:\n        """Runs x.\n\n        Host name: "x--run".\n        """\n');
    assertContains(text, '    @staticmethod\n    async def a_b(args: dict[str, Any] | None = None) -> Any:\n        """Host name: "a$b"."""\n');
    assertContains(text, '    # "class" is reachable only as tools["class"]: it has no name Python can call it by.\n');
    assertContains(text, '    # "p-q" is reachable only as tools["p-q"]: its identifier p_q would also match "p+q".\n');
    assertContains(text, '    # "p+q" is reachable only as tools["p+q"]: its identifier p_q would also match "p-q".\n');
    assertContains(text, '    # "__init" is reachable only as tools["__init"]: it has no name Python can call it by.\n');
  });

  it('renders globals as top-level functions after the tools class', () => {
    const text = stub(
      'globals',
      renderPythonStubs([
        { name: 'sleep', kind: 'global', description: 'Waits.', inputSchema: obj({ ms: { type: 'integer' } }, ['ms']) },
        { name: 'Any', kind: 'global' },
        { name: 'fetch' },
      ]),
      'import inspect\nresult = inspect.iscoroutinefunction(sleep)',
      true,
    );
    assertContains(text, '\n\n\nasync def sleep(args: SleepArgs) -> Any:\n    """Waits."""\n');
    assertContains(text, '# Global "Any" is not listed: it has no name Python can call it by.');
    assert.ok(text.indexOf('class tools:') < text.indexOf('async def sleep'), text);
  });

  it('moves annotations that a tool name would shadow into module-level aliases', () => {
    const text = stub(
      'shadow',
      renderPythonStubs([
        { name: 'list', outputSchema: { type: 'array', items: { type: 'string' } } },
        { name: 'str', inputSchema: obj({ s: { type: 'string' } }, ['s']), outputSchema: { type: 'string' } },
        { name: 'keep', inputSchema: obj({ k: { type: 'integer' } }, ['k']) },
      ]),
      'import typing\nresult = [str(typing.get_type_hints(tools.list)["return"]), str(typing.get_type_hints(tools.str)["return"])]',
      ['list[str]', "<class 'str'>"],
    );
    assertContains(text, 'ListArgs = dict[str, Any]\nListResult = list[str]\nStrResult = str\n');
    assertContains(text, 'async def list(args: ListArgs | None = None) -> ListResult:');
    assertContains(text, 'async def str(args: StrArgs) -> StrResult:');
    assertContains(text, 'async def keep(args: KeepArgs) -> Any:');
  });

  it('is deterministic and independent of tool order', () => {
    const tools: ToolDescriptor[] = [
      { name: 'b', inputSchema: obj({ z: { type: 'string' }, a: obj({ q: { type: 'number' } }) }) },
      { name: 'a', outputSchema: { $ref: '#/$defs/R', $defs: { R: obj({ r: { $ref: '#/$defs/R' } }) } } },
      { name: 'g', kind: 'global' },
    ];
    const first = renderPythonStubs(tools);
    assert.equal(renderPythonStubs(tools), first);
    assert.equal(renderPythonStubs([...tools].reverse()), first);
    assert.ok(first.indexOf('def a(') < first.indexOf('def b('), first);
    assert.ok(renderPythonStubs(tools, { sort: false }).indexOf('def b(') < renderPythonStubs(tools, { sort: false }).indexOf('def a('));
    stub('determinism', first);
  });

  it('rejects descriptors it cannot render', () => {
    assert.throws(() => renderPythonStubs([{ name: 'a' }, { name: 'a' }]), (e: Error) => e instanceof DeclarationInputError && /renderPythonStubs: tool name "a" appears more than once/.test(e.message));
  });

  it('renders an empty tool list as a valid module', () => {
    assert.equal(stub('empty', renderPythonStubs([])), 'class tools:\n    """Call each tool as `await tools.<name>(args)` with one dict of arguments."""\n');
  });

  it('escapes hostile tool names and descriptions', () => {
    const names = ['a*/b', 'x\u2028y', 'q"uote', 'back\\slash', 'new\nline', '"""', 'nul\u0000'];
    const tools: ToolDescriptor[] = names.flatMap((name) => [
      { name, description: `About ${name} """ end\\`, inputSchema: { type: 'object', properties: { [name]: { type: 'string', description: name } } } },
      { name, kind: 'global' as const },
    ]);
    const text = stub('hostile-names', renderPythonStubs(tools));
    assertContains(text, 'Host name: "x\\u2028y".');
  });

  it('survives hostile schemas', () => {
    const hostile: unknown[] = [null, 42, [], { type: 7 }, { properties: [] }, { enum: 'x' }, { $ref: '#/%zz' }, { allOf: [{ $ref: '#' }] }, { type: 'object', properties: { 'a\nb': { type: 'string' }, '': {} } }];
    hostile.forEach((schema, i) => stub(`hostile-${i}`, one(schema as JsonSchema)));
  });
});

describe('renderPythonStubs: output validity', () => {
  it('every stub parses with ast.parse and executes on python3; probes see the intended types', () => {
    assert.ok(rendered.length >= 20, `only ${rendered.length} stubs collected`);
    const results = runPython(rendered);
    rendered.forEach((r, i) => {
      const result = results[i]!;
      assert.equal(result.parsed, true, `${r.label} does not parse:\n${result.error}\n${r.source}`);
      assert.equal(result.executed, true, `${r.label} does not execute:\n${result.error}\n${r.source}`);
      assert.equal(result.error, null, `${r.label}: ${result.error}`);
      if (r.probe !== undefined) assert.deepEqual(result.output, r.expect, `${r.label} probe`);
    });
  });
});
