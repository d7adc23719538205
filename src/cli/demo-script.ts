/** The script the demo's scripted model sends to `code_execution`, in both languages. */
import type { ToolHost } from '../host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../code-execution/index.ts';

const JS = `// fan out over three shell calls, survive an error result, then fetch and report
const files = ['a.md', 'b.md', 'c.md'];
const sizes = await Promise.all(files.map((f) => tools.work__bash({ cmd: 'wc -c ' + f })));
let writeError;
try {
  await tools.work__write_file({ path: 'out.md', content: '# summary', error: 'disk full' });
} catch (e) {
  writeError = e.name + ': ' + e.message;
}
const page = await tools.work__fetch({ url: 'https://example.org', delay_ms: 250 });
await tools['work--send_message']({ to: 'alice', text: 'summary ready' });
console.log('fetched', page.tool);
return { counted: sizes.length, writeError };`;

const PY = `# fan out over three shell calls, survive an error result, then fetch and report
import asyncio
files = ["a.md", "b.md", "c.md"]
sizes = await asyncio.gather(*(tools.work__bash({"cmd": "wc -c " + f}) for f in files))
try:
    await tools.work__write_file({"path": "out.md", "content": "# summary", "error": "disk full"})
except Exception as e:
    write_error = f"{type(e).__name__}: {e}"
page = await tools.work__fetch({"url": "https://example.org", "delay_ms": 250})
await tools["work--send_message"]({"to": "alice", "text": "summary ready"})
print("fetched", page["tool"])
{"counted": len(sizes), "writeError": write_error}`;

export function demoScript(python: boolean): Record<string, unknown> {
  return python ? { code: PY, language: 'python', time_limit_ms: 10_000 } : { code: JS, time_limit_ms: 10_000 };
}

export function registerDemoCodeExecution(host: ToolHost): CodeExecution {
  return registerCodeExecution(host, { defaultTimeLimitMs: 10_000 });
}
