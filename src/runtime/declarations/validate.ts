/**
 * Checking tool arguments against a tool's input schema before the tool runs, so a script
 * gets a precise error (`args.a: expected integer, got string`) instead of a tool failure.
 * ajv does the validating (dialects.ts picks and configures it); messages.ts words its errors.
 *
 * A schema ajv cannot compile is not enforced: its tool's arguments are accepted unchecked,
 * and the reason is listed in {@link Validator.problems} (the host reports it once per tool
 * as a `diagnostic`). The tool's server remains the judge of its own arguments, so refusing
 * every call because of our validator would make a working tool unusable.
 */

import { compileSchema } from './dialects.ts';
import { describeErrors } from './messages.ts';
import { quickAcceptor } from './quick-accept.ts';
import type { JsonSchema, ValidationResult } from './types.ts';

/** A schema compiled for repeated validation. */
export interface Validator {
  /** Checks `value`; error paths start at `root` (default `args`). */
  validate(value: unknown, root?: string): ValidationResult;
  /**
   * What the host should tell an operator about the schema, once: why it could not be
   * compiled (then every value is accepted), unknown keywords and formats (ignored), a
   * `$schema` validated as another dialect.
   */
  readonly problems: readonly string[];
  /** False when the schema could not be compiled and `validate` accepts everything. */
  readonly enforced: boolean;
}

const OK: ValidationResult = Object.freeze({ ok: true });

const ACCEPT_ALL: Validator = Object.freeze({ problems: Object.freeze([]), enforced: true, validate: () => OK });
const REJECT_ALL: Validator = Object.freeze({
  problems: Object.freeze([]),
  enforced: true,
  validate: (_value: unknown, root = 'args'): ValidationResult => ({ ok: false, errors: [`${root}: no value is allowed here`] }),
});

/** Compiled validators by schema object. Schemas are treated as immutable once seen. */
const cache = new WeakMap<object, Validator>();

function build(schema: object): Validator {
  // A simple schema is checked without ajv while every value passes (quick-accept.ts): ajv
  // loads and compiles it at the first value that does not, to word the errors. Such a schema
  // compiles with no problem (quick-accept.test.ts checks it), so there is none to report now.
  const accept = quickAcceptor(schema);
  if (accept !== undefined) {
    let full: Validator | undefined;
    return Object.freeze({
      problems: Object.freeze([]),
      enforced: true,
      validate(value: unknown, name = 'args'): ValidationResult {
        if (accept(value)) return OK;
        full ??= compileWithAjv(schema);
        return full.validate(value, name);
      },
    });
  }
  return compileWithAjv(schema);
}

/** The validator ajv compiles for `schema`. */
function compileWithAjv(schema: object): Validator {
  const compiled = compileSchema(schema);
  if (!compiled.ok) {
    const problems = [...compiled.warnings, `the input schema could not be compiled (${compiled.reason}); arguments are not validated`];
    return Object.freeze({ problems: Object.freeze(problems), enforced: false, validate: () => OK });
  }
  const { validate, root } = compiled;
  return Object.freeze({
    problems: Object.freeze(compiled.warnings),
    enforced: true,
    validate(value: unknown, name = 'args'): ValidationResult {
      if (validate(value)) return OK;
      return { ok: false, errors: describeErrors(validate.errors ?? [], value, root, name) };
    },
  });
}

/**
 * The validator for `schema`, compiled on first use and cached for the life of the schema
 * object (a tool's schema is compiled once, however often it is called). `onProblems` is
 * called only when this call compiled the schema and it has problems, which makes it the
 * place to log them once.
 *
 * Dialects: draft-07 (and a schema without `$schema`, unless it uses a keyword only newer
 * drafts have, such as `prefixItems` or `unevaluatedProperties`: then 2020-12), 2019-09
 * and 2020-12, chosen by `$schema`; local and in-document `$ref`s; `format` (ajv-formats);
 * OpenAPI `nullable`. String lengths count code points. `pattern` runs the schema's regular
 * expression on caller-supplied strings: a catastrophically backtracking pattern is as slow
 * here as in the tool itself.
 */
export function compileValidator(schema: JsonSchema, onProblems?: (problems: readonly string[]) => void): Validator {
  if (schema === true) return ACCEPT_ALL;
  if (schema === false) return REJECT_ALL;
  if (typeof schema !== 'object' || schema === null) {
    const problems = [`the input schema is ${schema === null ? 'null' : typeof schema}, not an object or boolean; arguments are not validated`];
    onProblems?.(problems);
    return Object.freeze({ problems: Object.freeze(problems), enforced: false, validate: () => OK });
  }
  let validator = cache.get(schema);
  if (!validator) {
    validator = build(schema);
    cache.set(schema, validator);
    if (validator.problems.length > 0) onProblems?.(validator.problems);
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
