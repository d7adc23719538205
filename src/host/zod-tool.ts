/**
 * Built-ins declared with a zod 4 schema, as the MCP SDK allows: the schema becomes the tool's
 * JSON Schema (what the model and the host's argument check see), and the handler receives the
 * schema's parsed output, typed from it. One conversion at registration, one parse per call
 * (which also applies the schema's defaults and transforms).
 *
 * zod itself is not loaded with the host (it is ~12 MB of a host's memory): a classic zod
 * schema converts itself, and the error wording is loaded on the first refused call.
 */
import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { HostToolContext, HostToolDefinition, ToolResult } from './types.ts';

/** A built-in whose `inputSchema` is a zod object schema; `args` are typed from it. */
export interface ZodToolDefinition<S extends z.ZodType> extends Omit<HostToolDefinition, 'inputSchema' | 'handler'> {
  inputSchema: S;
  handler(args: z.output<S>, ctx: HostToolContext): Promise<ToolResult>;
}

/** Whether `schema` is a zod 4 schema rather than a JSON Schema object. */
export function isZodSchema(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** The plain definition the registry holds: JSON Schema, and a handler that parses first. */
export function fromZodTool<S extends z.ZodType>(def: ZodToolDefinition<S>): HostToolDefinition {
  const schema = def.inputSchema;
  const json = toJSONSchema(schema);
  if (json.type !== 'object') throw new TypeError(`tool ${def.name}: a zod inputSchema must describe an object (got ${String(json.type ?? 'no type')})`);
  delete json.$schema;
  return {
    ...def,
    inputSchema: json,
    handler: async (args, ctx) => {
      const parsed = schema.safeParse(args);
      if (!parsed.success) {
        const { prettifyError } = await import('zod');
        throw new TypeError(`invalid arguments for ${def.name}: ${prettifyError(parsed.error)}`);
      }
      return def.handler(parsed.data, ctx);
    },
  };
}

/**
 * The schema's JSON Schema (input side). The embedder's own zod converts it (the method of
 * classic schemas), so no second copy of zod is loaded; a schema without that method (zod
 * mini) falls back to zod's function, required then.
 */
function toJSONSchema(schema: z.ZodType): Record<string, unknown> {
  const own = (schema as { toJSONSchema?: (params: { io: 'input' }) => unknown }).toJSONSchema;
  if (typeof own === 'function') return own.call(schema, { io: 'input' }) as Record<string, unknown>;
  const zod = createRequire(import.meta.url)('zod') as typeof import('zod');
  return zod.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
}
