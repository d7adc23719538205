/**
 * Script stacks as the model should see them: only frames in the script itself, never host
 * file paths, the prelude or Node internals.
 */
const SCRIPT_FRAME = /script\.js:(\d+):(\d+)/;

export function sanitizeStack(stack: string, name: string, message: string): string | undefined {
  if (!stack) return undefined;
  const frames = stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line) && SCRIPT_FRAME.test(line) && !/file:|node:|prelude\.js|\/.*\.m?[jt]s/.test(line.replace(/script\.js/g, '')))
    .map((line) => line.trim().replace(/\(?script\.js:(\d+):(\d+)\)?/, (_m, l, c) => `(script:${l}:${c})`))
    .slice(0, 20);
  if (frames.length === 0) return undefined;
  return `${name}: ${message}\n${frames.map((f) => `    ${f}`).join('\n')}`;
}
