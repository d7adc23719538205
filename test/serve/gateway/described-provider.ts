/**
 * A provider (the SDK's low-level Server over stdio) whose tools carry every field a tool
 * listing has: title, icons, output schema, annotations, execution, _meta (described-tools.ts).
 * `lookup` answers with structured content matching its output schema.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DESCRIBED_TOOLS } from './described-tools.ts';

const server = new Server({ name: 'described', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: DESCRIBED_TOOLS as never }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const word = String(request.params.arguments?.word ?? '');
  if (request.params.name === 'lookup') return { content: [{ type: 'text', text: `${word}: a word` }], structuredContent: { meaning: `${word}: a word` } };
  return { content: [{ type: 'text', text: `erased ${word}` }] };
});
await server.connect(new StdioServerTransport());
