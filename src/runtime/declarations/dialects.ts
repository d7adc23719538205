/**
 * Which ajv compiles a tool's input schema. `$schema` picks the dialect: draft-07 (also
 * draft-06, and a schema without `$schema` that uses no newer keyword) compiles with `Ajv`,
 * 2019-09 with `Ajv2019`, 2020-12 with `Ajv2020`. One instance per dialect, shared by every tool, so the meta-schema
 * and the formats are set up once; each compiled schema is removed from its instance right
 * after compiling, so the instance holds no reference to a tool's schema (tools come and go
 * with `tools/list_changed`) and two tools' schemas may use the same `$id`.
 *
 * Options, and why:
 * - `allErrors`: a script is told every mistake in its call, not just the first.
 * - `verbose`: errors carry the offending value and schema, for messages that say what came.
 * - `strict: false` but `strictSchema: 'log'`: unknown keywords and unknown formats never make
 *   a tool unusable; they are logged (collected as problems of that schema, reported once).
 *   An unknown format is declared as accepting anything (see {@link compileSchema}).
 * - `strictNumbers`: NaN and Infinity are not JSON numbers.
 * - `multipleOfPrecision`: 0.3 is a multiple of 0.1 (to 1e-9), as a person means it.
 * - `ownProperties`: an inherited key (`toString`) never satisfies `required`.
 * - (ajv 8 always reads OpenAPI's `nullable: true` next to `type`: it also allows `null`.)
 * - `addUsedSchema: false`: compiling never registers the schema's `$id` in the instance.
 */

import { createRequire } from 'node:module';
import type { Ajv, AnySchema, Options, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainSchema } from './plain-schema.ts';

type Dialect = 'draft-07' | '2019-09' | '2020-12';
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/**
 * ajv (~100 modules) is required when a dialect's instance is first made, not imported with the
 * package: importing `toolcell` loads only what the first call needs (issue 46), and a host whose
 * schemas are all draft-07 never loads the 2019-09 and 2020-12 builds. ajv is CommonJS, so the
 * synchronous compile below can load it where it is first needed.
 */
const require = createRequire(import.meta.url);

function newAjv(dialect: Dialect, options: Options): AnyAjv {
  if (dialect === '2020-12') return new (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020(options);
  if (dialect === '2019-09') return new (require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019(options);
  return new (require('ajv') as { Ajv: typeof Ajv }).Ajv(options);
}

/** ajv-formats' plugin (CommonJS: `module.exports` is the plugin). */
const addFormats = (ajv: AnyAjv): AnyAjv => (require('ajv-formats') as (ajv: AnyAjv) => AnyAjv)(ajv);

/** Where ajv's warnings go while one schema compiles (compiling is synchronous). */
let sink: string[] | undefined;
const toSink = (...args: unknown[]) => {
  // "strict mode: unknown keyword" is how ajv words what is, for us, a plain notice.
  sink?.push(args.map(String).join(' ').replace(/^strict mode: /, ''));
};

const OPTIONS: Options = {
  allErrors: true,
  verbose: true,
  strict: false,
  strictSchema: 'log',
  strictNumbers: true,
  multipleOfPrecision: 9,
  ownProperties: true,
  addUsedSchema: false,
  logger: { log: () => undefined, warn: toSink, error: toSink },
};

const instances = new Map<Dialect, AnyAjv>();

function instance(dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = newAjv(dialect, OPTIONS);
    addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/**
 * Keywords draft-07 does not have (2019-09 and 2020-12 do): a schema using them without
 * `$schema` was written for the newer dialect (pydantic 2 and zod 4 generate 2020-12), and
 * under draft-07 they would be silently inert.
 */
const NEWER_KEYWORDS = new Set([
  'prefixItems', '$dynamicRef', '$dynamicAnchor', '$anchor', 'unevaluatedProperties', 'unevaluatedItems',
  'dependentRequired', 'dependentSchemas', 'minContains', 'maxContains',
]);

function uses2020Keywords(schema: unknown, seen = new Set<unknown>()): boolean {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return false;
  seen.add(schema);
  for (const [key, value] of Object.entries(schema)) {
    if (NEWER_KEYWORDS.has(key) && !Array.isArray(schema)) return true;
    if (uses2020Keywords(value, seen)) return true;
  }
  return false;
}

/** The dialect a root schema asks for, the schema to hand ajv, and what was assumed. */
function pickDialect(schema: Record<string, unknown>): { dialect: Dialect; schema: Record<string, unknown>; note?: string } {
  const uri = schema.$schema;
  if (uri === undefined) return { dialect: uses2020Keywords(schema) ? '2020-12' : 'draft-07', schema };
  const { $schema: _, ...rest } = schema;
  if (typeof uri !== 'string') return { dialect: 'draft-07', schema: rest, note: '$schema is not a string; validated as draft-07' };
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(uri)) return { dialect: '2020-12', schema };
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(uri)) return { dialect: '2019-09', schema };
  if (/json-schema\.org\/draft-07\/schema/.test(uri)) return { dialect: 'draft-07', schema };
  // Draft-06 differs from draft-07 in nothing an argument check notices.
  if (/json-schema\.org\/draft-06\/schema/.test(uri)) return { dialect: 'draft-07', schema: rest };
  return { dialect: 'draft-07', schema: rest, note: `$schema ${JSON.stringify(uri)} is not a supported dialect; validated as draft-07` };
}

/** A compiled schema, or why there is none. */
export type Compiled =
  | { ok: true; validate: ValidateFunction; root: AnySchema; warnings: string[] }
  | { ok: false; reason: string; warnings: string[] };

/**
 * Compiles `schema` with the ajv of its dialect. Never throws: a schema ajv refuses (an
 * invalid or unresolvable `$ref`, a keyword of the wrong type, a regular expression that is
 * not one) comes back as `{ ok: false, reason }`. `root` is the object ajv compiled (a copy
 * without `$schema` when that named a dialect validated as another).
 */
export function compileSchema(schema: AnySchema): Compiled {
  const warnings: string[] = [];
  const picked = typeof schema === 'object' && schema !== null ? pickDialect(schema) : { dialect: 'draft-07' as const, schema };
  if ('note' in picked && picked.note) warnings.push(picked.note);
  const ajv = instance(picked.dialect);
  // A schema that certainly passes the meta-schema is not checked against it (plain-schema.ts):
  // the check's first use compiles the meta-schema, the largest part of a host's first call.
  const opts = ajv.opts as { validateSchema?: boolean | 'log' };
  const validateSchema = opts.validateSchema;
  if (isPlainSchema(picked.schema)) opts.validateSchema = false;
  sink = warnings;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const validate = ajv.compile(picked.schema);
        return { ok: true, validate, root: picked.schema, warnings: dedupe(warnings) };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        // ajv refuses an unknown format even when it only logs unknown keywords: declare the
        // format (as accepting anything, for every schema of this dialect) and compile again.
        const format = /^unknown format "(.*)" ignored in schema/.exec(reason)?.[1];
        if (format === undefined || attempt >= MAX_UNKNOWN_FORMATS) return { ok: false, reason, warnings: dedupe(warnings) };
        ajv.addFormat(format, true);
        warnings.push(`unknown format ${JSON.stringify(format)} is not checked`);
      } finally {
        if (typeof picked.schema === 'object' && picked.schema !== null) ajv.removeSchema(picked.schema);
      }
    }
  } finally {
    sink = undefined;
    opts.validateSchema = validateSchema;
  }
}

/** How many unknown formats one schema may declare before it counts as not compilable. */
const MAX_UNKNOWN_FORMATS = 32;

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}
