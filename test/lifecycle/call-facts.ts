/** The call most lifecycle unit tests reason about: `x--run`, class shell, in conv_1. */
import type { CallFacts } from '../../src/lifecycle/decision-types.ts';

export const call = (over: Partial<CallFacts> = {}): CallFacts => ({
  tool: 'x--run',
  classes: ['shell'],
  serverId: 'x',
  serverTool: 'run',
  conversationId: 'conv_1',
  input: { a: 1, b: 2 },
  ...over,
});
