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

/**
 * Registers `slowish`: answers "done" after `ms` of its own work. Longer than the 1 ms a Node
 * timer given Infinity lasts, so it tells "no timeout" from "timed out at once".
 */
export function registerSlowishTool(host: ToolHost, ms = 30): void {
  host.registerTool({
    name: 'slowish',
    description: `answers after ${ms} ms`,
    inputSchema: { type: 'object' },
    handler: async () => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return textResult('done');
    },
  });
}
