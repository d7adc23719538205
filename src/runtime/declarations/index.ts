/**
 * What a model is told about the tools it can call, and the check its calls go through.
 *
 * - {@link renderDeclarations}: TypeScript declarations for the JavaScript sandbox.
 * - {@link renderPythonStubs}: the Python twin, for the Python runner.
 * - {@link validateArguments} / {@link compileValidator}: checks arguments against a tool's
 *   input schema before the tool runs.
 *
 * Both renderers read JSON Schemas defensively and never fail on a strange schema: what a
 * type cannot say becomes `unknown` (TypeScript) or `Any` (Python). They throw
 * {@link DeclarationInputError} only for descriptors that are not usable at all.
 *
 * @example
 * ```ts
 * import { renderDeclarations, renderPythonStubs, validateArguments } from './runtime/declarations/index.ts';
 *
 * const tools = [{
 *   name: 'x--run',
 *   description: 'Runs a command.',
 *   inputSchema: {
 *     type: 'object',
 *     properties: { cmd: { type: 'string', description: 'Command line' }, timeout: { type: 'integer' } },
 *     required: ['cmd'],
 *   },
 * }];
 *
 * renderDeclarations(tools);
 * // interface Tools {
 * //   /** Runs a command. *\/
 * //   "x--run"(args: {
 * //     /** Command line *\/
 * //     cmd: string;
 * //     timeout?: number;
 * //   }): Promise<unknown>;
 * //   /** Same as `tools["x--run"]`. *\/
 * //   x__run: Tools["x--run"];
 * // }
 * //
 * // declare const tools: Tools;
 *
 * renderPythonStubs(tools); // class XRunArgs(TypedDict, total=False): … async def x__run(args: XRunArgs) -> Any
 *
 * validateArguments(tools[0].inputSchema, { cmd: 1 });
 * // → { ok: false, errors: ['args.cmd: expected string, got number'] }
 * ```
 *
 * @module
 */

export { DeclarationInputError } from './catalog.ts';
export { renderPythonStubs } from './python.ts';
export { renderDeclarations } from './typescript.ts';
export type { JsonSchema, JsonSchemaObject, PythonStubOptions, RenderOptions, ToolDescriptor, ValidationResult } from './types.ts';
export { compileValidator, validateArguments, type Validator } from './validate.ts';
