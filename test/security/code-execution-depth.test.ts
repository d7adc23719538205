/**
 * Through the real host: a script returning a value nested 4,185 levels deep used to overflow
 * the host's JSON.stringify, so code_execution ended `failed` and the script's logs were lost.
 * Now maxDepth stops it as a script error; the call completes with the logs in its result.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { ToolHost } from '../../src/host/tool-host.ts';

test('a deeply nested return value ends as a script error with its logs, not a failed call', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const stream = host.openStream('deep');
    const outcome = await host.dispatch({
      inferenceId: stream.beginInference(),
      name: 'code_execution',
      input: { code: 'console.log("kept"); let v = 1; for (let i = 0; i < 4185; i++) v = [v]; return v;' },
    });
    stream.end();
    assert.equal(outcome.status, 'completed');
    const result = (outcome as { result: { isError?: boolean; structuredContent: any } }).result;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error.kind, 'script');
    assert.match(result.structuredContent.error.message, /nested deeper than 256 levels \(limit maxDepth\)/);
    assert.deepEqual(result.structuredContent.logs, [{ level: 'log', message: 'kept' }]);
  } finally {
    await codeExecution.close();
    await host.close();
  }
});
