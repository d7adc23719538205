/**
 * Shapes shared by the declaration renderers and the argument validator.
 */

/**
 * A JSON Schema as a tool presents it. Schemas come from tool servers and are not trusted to
 * be well formed, so every keyword is read defensively: a keyword of the wrong shape is
 * treated as absent rather than trusted.
 */
export type JsonSchema = boolean | JsonSchemaObject;

/** An object-form JSON Schema: any keywords, each of unknown shape until checked. */
export interface JsonSchemaObject {
  readonly [keyword: string]: unknown;
}

/** What the renderers need to know about one tool or helper global. */
export interface ToolDescriptor {
  /** Name as the host presents it, e.g. `x--run`. */
  name: string;
  description?: string;
  /** Schema of the single argument object; missing means the tool declares no arguments. */
  inputSchema?: JsonSchema;
  /** Schema of the result; missing renders as `unknown` / `Any`. */
  outputSchema?: JsonSchema;
  /**
   * `tool` (default) is a member of `tools`; `global` is a top-level function. A dotted name
   * (`models.list`) is declared as a namespace path (`tools.models.list`, `models.list`).
   */
  kind?: 'tool' | 'global';
  /**
   * Replaces the generated signature: the text after the function's name, in each language's
   * syntax, e.g. `{ typescript: '(args: { q: string }): Promise<Hit[]>', python: '(args: dict) -> list' }`.
   * A plain string is the TypeScript one.
   */
  signature?: string | { typescript?: string; python?: string };
}

/** Options shared by both renderers. */
export interface RenderOptions {
  /**
   * Sort tools by name (code-unit order) so registration order does not change the text.
   * Default `true`.
   */
  sort?: boolean;
  /**
   * Add constraint notes (`@default`, `@minimum`, `@format`, …) to doc comments.
   * Default `true`.
   */
  constraints?: boolean;
  /** Nesting depth beyond which a schema renders as `unknown`. Default 32. */
  maxDepth?: number;
}

/** Options for `renderPythonStubs`. */
export interface PythonStubOptions extends RenderOptions {
  /** Start with the `from typing import …` line the stubs need. Default `true`. */
  imports?: boolean;
}

/** Outcome of checking a value against a schema. */
export type ValidationResult = { ok: true } | { ok: false; errors: string[] };
