/**
 * The result the gateway provider's `rich` tool returns, apart from the provider so a test can
 * import it without starting a stdio server on its own stdin (which kept the test process alive).
 */
/** Every content type MCP has, and structured content, and `_meta`: the gateway must change none of it. */
export const RICH_RESULT = {
  content: [
    { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
    { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', mimeType: 'image/png' },
    { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'test://static', name: 'static', mimeType: 'text/plain', description: 'a link' },
    { type: 'resource', resource: { uri: 'test://embedded', mimeType: 'text/plain', text: 'embedded text' } },
    { type: 'resource', resource: { uri: 'test://blob', mimeType: 'application/octet-stream', blob: 'AAEC' } },
  ],
  structuredContent: { answer: 42, nested: { list: [1, 'two', null] } },
  _meta: { 'example.com/trace': 'abc' },
};
