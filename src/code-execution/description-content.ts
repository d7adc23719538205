/**
 * The part of the `code_execution` description about content: what a script gets from a tool
 * result holding images, audio or resources, and how it returns such content to the model.
 * Kept apart, like description-sessions.ts, so that it stays one small piece whatever shape
 * the surrounding text takes. The shapes are content-objects.ts's; the rule for returning is
 * returned-content.ts's.
 */
import type { ScriptLanguage } from './options.ts';

/** The content objects, declared once in TypeScript (both languages read the same shapes). */
export const CONTENT_DECLARATION = [
  'type Content =',
  '  | { type: "text"; text: string }',
  '  | { type: "image" | "audio"; mimeType: string; data: string } // data: base64',
  '  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string }',
  '  | { type: "resource"; uri: string; mimeType?: string; text?: string; blob?: string }; // blob: base64',
].join('\n');

/** A few lines: tool results with media as `Content[]`, and returning content. */
export function describeContent(languages: readonly ScriptLanguage[]): string {
  const python = languages.includes('python') ? ' Python: the same dicts; `data` may be bytes.' : '';
  return [
    `Content: a tool result with images, audio or resources is a Content[] in block order (text-only results stay text or parsed JSON). Return a Content, or an array of them and strings, and you receive it as content (you see the image), not as JSON.${python}`,
    '```ts',
    CONTENT_DECLARATION,
    '```',
  ].join('\n');
}
