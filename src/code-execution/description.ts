/**
 * The model-facing description of `code_execution`, generated from the tools scripts may call:
 * TypeScript declarations for JavaScript, Python signatures for Python. It never lists
 * `code_execution` itself.
 */
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../runtime/declarations/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import type { ScriptLanguage } from './options.ts';
import { describeSessionsAndHelpers } from './description-sessions.ts';

function descriptors(tools: readonly RegisteredTool[]): ToolDescriptor[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  }));
}

export function describeCodeExecution(tools: readonly RegisteredTool[], languages: readonly ScriptLanguage[], limits: { defaultMs: number; maxMs: number }): string {
  const parts = [
    'Run a script that calls tools. Loop, filter and chain calls in code; only what the script returns or prints comes back to you, never the raw results of its calls.',
    `Every call the script makes is a real tool call, checked and reported like your own. time_limit_ms defaults to ${limits.defaultMs} and is capped at ${limits.maxMs}.`,
    'A tool that fails or returns an error result raises a ToolError carrying its message.',
  ];
  const list = descriptors(tools);
  const section = (intro: string, fence: string, render: () => string, none: string) =>
    parts.push('', intro, `\`\`\`${fence}`, list.length ? render().trimEnd() : none, '```');
  if (languages.includes('javascript')) {
    section(
      'language "javascript" (default): the code is the body of an async function. Use `await`, `return` the result (it must be JSON-serializable), log with console.log. Tools are `await tools.<name>(args)`; a name that is not an identifier is also `tools["server--tool"]`. No require, import, process, timers or network.',
      'ts',
      () => renderDeclarations(list),
      '// no tools are available to scripts',
    );
  }
  if (languages.includes('python')) {
    section(
      'language "python": top-level await works; tools are `await tools.<name>({...})` (also `tools["server--tool"]`), usable with asyncio.gather. print() is captured; the value of a final expression is returned. Globals persist between runs in the same conversation.',
      'python',
      () => renderPythonStubs(list),
      '# no tools are available to scripts',
    );
  }
  parts.push('', describeSessionsAndHelpers(languages));
  return parts.join('\n');
}
