/** The content the test provider's tools return, by tool name (imported by the tests to compare). */
export const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const CONTENT = {
  audio: [{ type: 'audio', data: WAV, mimeType: 'audio/wav', annotations: { audience: ['user'] } }],
  embedded: [
    { type: 'text', text: 'two resources:' },
    { type: 'resource', resource: { uri: 'test://notes.txt', mimeType: 'text/plain', text: 'embedded text' } },
    { type: 'resource', resource: { uri: 'test://bytes.bin', mimeType: 'application/octet-stream', blob: 'AAEC' }, _meta: { 'example.com/x': 1 } },
  ],
  link: [{ type: 'resource_link', uri: 'test://static', name: 'static', mimeType: 'text/plain', description: 'a link', annotations: { priority: 1 } }],
  texts: [{ type: 'text', text: 'first' }, { type: 'text', text: '{"second": true}' }],
  pixel: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
};
