/** Host built-ins for tests. */
import type { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';

/**
 * Registers `wait` (class `shell`): every call stays open until the test releases it.
 * Returns the release functions of the calls made so far, in call order.
 */
export function registerWaitTool(host: ToolHost, name = 'wait'): (() => void)[] {
  const releases: (() => void)[] = [];
  host.registerTool({
    name,
    description: 'Waits until the test releases it',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: () => new Promise((resolve) => releases.push(() => resolve(textResult('done')))),
  });
  return releases;
}
