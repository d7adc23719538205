/**
 * The tools described-provider.ts lists, every field MCP 2025-11-25 gives a tool filled in,
 * apart from the provider so a test can compare the listing serve passes on with them.
 */
export const DESCRIBED_TOOLS = [
  {
    name: 'lookup',
    title: 'Look something up',
    description: 'Finds a word in the glossary',
    icons: [
      { src: 'https://example.com/lookup.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'light' },
      { src: 'data:image/svg+xml;base64,PHN2Zy8+', mimeType: 'image/svg+xml', sizes: ['any'], theme: 'dark' },
    ],
    inputSchema: { type: 'object', properties: { word: { type: 'string', description: 'the word' } }, required: ['word'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { meaning: { type: 'string' } }, required: ['meaning'] },
    annotations: { title: 'Glossary lookup', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: 'optional' },
    _meta: { 'example.com/owner': 'docs-team', 'mcpl/class': ['notes'] },
  },
  {
    name: 'erase',
    title: 'Erase an entry',
    description: 'Removes a word from the glossary',
    inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: 'forbidden' },
  },
] as const;
