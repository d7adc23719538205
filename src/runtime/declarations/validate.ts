/**
 * Checking tool arguments against a tool's input schema before the tool runs, so a script
 * gets a precise error (`args.a: expected integer, got string`) instead of a tool failure.
 */

import { Compiler, MAX_ERRORS, type Node, type State } from './validator.ts';
import type { JsonSchema, ValidationResult } from './types.ts';

/** A schema compiled for repeated validation. */
export interface Validator {
  /** Checks `value`; error paths start at `root` (default `args`). */
  validate(value: unknown, root?: string): ValidationResult;
  /**
   * Parts of the schema that could not be honoured (an unresolvable `$ref`, an invalid
   * `pattern`, an unknown `type`). Each is ignored, so validation errs towards accepting;
   * a host may log these once per tool.
   */
  readonly problems: readonly string[];
}

const OK: ValidationResult = Object.freeze({ ok: true });

/** Compiled validators by schema object. Schemas are treated as immutable once seen. */
const cache = new WeakMap<object, Validator>();

function wrap(node: Node, problems: readonly string[]): Validator {
  return {
    problems,
    validate(value, root = 'args') {
      const state: State = { root, path: [], errors: [], truncated: false, depth: 0 };
      if (node.check(value, state)) return OK;
      const errors = state.errors;
      if (state.truncated) errors.push(`(further errors after the first ${MAX_ERRORS} are not shown)`);
      return { ok: false, errors };
    },
  };
}

const ACCEPT_ALL = wrap(new Compiler(true).compile(true), []);
const REJECT_ALL = wrap(new Compiler(false).compile(false), []);

/**
 * The validator for `schema`, compiled on first use and cached for the life of the schema
 * object. Supports `type` (including `integer`), `properties`, `required`,
 * `additionalProperties`, `patternProperties`, `items`/`prefixItems` (and legacy array
 * `items` with `additionalItems`), `enum`, `const`, `anyOf`/`oneOf`/`allOf`,
 * `minimum`/`maximum` (and exclusive forms), `multipleOf`, `minLength`/`maxLength` (in code
 * points), `minItems`/`maxItems`, `pattern`, OpenAPI `nullable` and local `$ref`. Other
 * keywords are ignored.
 *
 * `pattern` runs the schema's regular expression on script-supplied strings; a schema with
 * a catastrophically backtracking pattern is as slow here as in the tool itself.
 */
export function compileValidator(schema: JsonSchema): Validator {
  if (schema === true) return ACCEPT_ALL;
  if (schema === false) return REJECT_ALL;
  if (typeof schema !== 'object' || schema === null) {
    return wrap(new Compiler(schema).compile(true), [`the schema is ${schema === null ? 'null' : typeof schema}, not an object or boolean; it accepts anything`]);
  }
  let validator = cache.get(schema);
  if (!validator) {
    const compiler = new Compiler(schema);
    const node = compiler.compile(schema);
    validator = wrap(node, Object.freeze([...compiler.problems]));
    cache.set(schema, validator);
  }
  return validator;
}

/**
 * Validates `value` against `schema` (no schema: anything goes). Returns `{ ok: true }` or
 * `{ ok: false, errors }` with one message per problem, each prefixed by the path of the
 * offending value, e.g. `args.items[2].name: expected string, got number`. At most
 * 20 errors are listed.
 *
 * @example
 * ```ts
 * const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
 * validateArguments(schema, { a: 'x' });
 * // → { ok: false, errors: ['args.a: expected integer, got string'] }
 * ```
 */
export function validateArguments(schema: JsonSchema | undefined, value: unknown, root = 'args'): ValidationResult {
  if (schema === undefined) return OK;
  return compileValidator(schema).validate(value, root);
}
