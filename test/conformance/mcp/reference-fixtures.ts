/**
 * What both reference servers answer (the 2025 one on SDK v1, reference-server.ts, and the
 * 2026 one on SDK v2, reference-server-2026.ts): the conformance suite's tools whose answers
 * need no client, its resources, templates, prompts and completions, as plain data, so the two
 * servers differ only in what their SDK and era do differently.
 */

/** A 1×1 PNG and a silent WAV: the smallest valid media of each kind. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
export const NO_ARGS = { type: 'object', properties: {} } as const;
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const TOOLS = [
  { name: 'test_simple_text', description: 'Returns one text block', inputSchema: NO_ARGS },
  { name: 'test_image_content', description: 'Returns a PNG image', inputSchema: NO_ARGS },
  { name: 'test_audio_content', description: 'Returns a WAV clip', inputSchema: NO_ARGS },
  { name: 'test_embedded_resource', description: 'Returns an embedded text resource', inputSchema: NO_ARGS },
  { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource', inputSchema: NO_ARGS },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: NO_ARGS },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: NO_ARGS },
  { name: 'test_error_handling', description: 'Always fails (isError)', inputSchema: NO_ARGS },
  { name: 'test_reconnection', description: 'Closes its SSE stream before answering (resume with Last-Event-ID)', inputSchema: NO_ARGS },
  { name: 'test_sampling', description: 'Asks the client to sample', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  { name: 'test_elicitation', description: 'Asks the client user for a username and email', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicits with a default for each primitive type', inputSchema: NO_ARGS },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicits with each enum form', inputSchema: NO_ARGS },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'address', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
      // Composition and conditional keywords (SEP-2106, checked by the 0.2.0 suite): kept as written.
      allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }] }],
      if: { required: ['address'] },
      then: { properties: { name: { type: 'string', minLength: 1 } } },
      else: { properties: { name: { type: 'string' } } },
    },
  },
];

type Content = Record<string, unknown>;
/** A tool result as the wire carries it. */
export interface ToolResult {
  content: Content[];
  isError?: boolean;
}

export const text = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }] });

/** The answer of a tool that needs nothing of the client; undefined for any other tool. */
export function plainToolResult(name: string, args: Record<string, unknown>): ToolResult | undefined {
  switch (name) {
    case 'test_simple_text':
      return text('This is a simple text response for testing.');
    case 'test_image_content':
      return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
    case 'test_multiple_content_types':
      return {
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
        ],
      };
    case 'test_error_handling':
      return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
    case 'json_schema_2020_12_tool':
      return text(`Received: ${JSON.stringify(args)}`);
    default:
      return undefined;
  }
}

export const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static PNG', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
];

export const RESOURCE_TEMPLATES = [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' }];

/** The contents of `uri`; undefined when no resource or template has it (the caller answers -32002). */
export function readResource(uri: string): { contents: Content[] } | undefined {
  if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
  if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] };
  const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
  if (id !== undefined) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  return undefined;
}

export const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  { name: 'test_prompt_with_arguments', description: 'A prompt with two arguments', arguments: [{ name: 'arg1', description: 'First test argument', required: true }, { name: 'arg2', description: 'Second test argument', required: true }] },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

/** The messages of prompt `name`; undefined for a prompt not in {@link PROMPTS}. */
export function getPrompt(name: string, args: Record<string, string>): { messages: Content[] } | undefined {
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
    case 'test_prompt_with_arguments':
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          { role: 'user', content: { type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      };
    case 'test_prompt_with_image':
      return {
        messages: [
          { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      };
    default:
      return undefined;
  }
}

/** Completion values for a prefix. */
export function completionValues(prefix: string): { values: string[]; total: number; hasMore: boolean } {
  const values = ['paris', 'park', 'party', 'pasta', 'hello', 'world'].filter((w) => w.startsWith(prefix));
  return { values, total: values.length, hasMore: false };
}
