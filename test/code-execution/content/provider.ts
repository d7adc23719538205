/**
 * A provider whose tools return each MCP content type apart (no structured content), on the
 * official SDK's McpServer over stdio: the content-in-scripts tests call it from real scripts.
 * server-everything covers images and resource links; this covers audio, embedded resources
 * (text and blob), several text blocks, and a block's annotations and _meta (which scripts
 * do not see).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CONTENT } from './blocks.ts';

const server = new McpServer({ name: 'content-provider', version: '1.0.0' });
for (const [name, content] of Object.entries(CONTENT)) {
  server.registerTool(name, { description: `Returns the ${name} content` }, async () => ({ content }) as never);
}
await server.connect(new StdioServerTransport());
