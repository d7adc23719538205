/**
 * SEP-1034: an accepted form elicitation's content gets the requested schema's `default` for
 * each property the user left out. Pure; the schema itself (enums, titled enums, multi-select
 * — SEP-1330) is never rewritten on its way to the handler.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export function applyElicitationDefaults(params: ElicitRequest['params'], result: ElicitResult): ElicitResult {
  if (result.action !== 'accept' || !('requestedSchema' in params) || !params.requestedSchema) return result;
  const properties = params.requestedSchema.properties as Record<string, { default?: unknown }> | undefined;
  if (!properties) return result;
  const content: Record<string, unknown> = { ...(result.content ?? {}) };
  for (const [key, property] of Object.entries(properties)) {
    if (content[key] === undefined && property && property.default !== undefined) content[key] = property.default;
  }
  return { ...result, content: content as ElicitResult['content'] };
}
