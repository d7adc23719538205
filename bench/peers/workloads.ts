/**
 * The workloads of `bench:peers`, written once and rendered in each sandbox's dialect: how a
 * script names a tool differs (`tools.noop(...)` for toolcell, pi-codemode and the AI SDK's
 * code mode; `bench.noop(...)` for utcp code-mode, whose tools live under their manual's name).
 * Each workload knows the value its script must return, so a run that returns anything else
 * fails the bench instead of timing a broken run.
 */

export const SEQ_CALLS = 10_000;
export const PAR_CALLS = 1_000;
/** Inner calls each of the 32 conversations makes in the memory figure. */
export const CONVERSATION_CALLS = 50;
export const CONVERSATIONS = 32;
const CPU_ITERATIONS = 2_000_000;

export type WorkloadName = 'return1' | 'seq' | 'par' | 'payload' | 'cpu' | 'conversation';

/** How a dialect writes `await <tool>(<args>)`. */
export type CallSyntax = (tool: 'noop' | 'big', args: string) => string;

export const toolsDialect: CallSyntax = (tool, args) => `tools.${tool}(${args})`;
export const utcpDialect: CallSyntax = (tool, args) => `bench.${tool}(${args})`;

/** About 1 MB of JSON: records with strings, numbers, arrays and a nested object (as bench:sandbox). */
export function megabyteObject(): { items: unknown[] } {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < 1_000_000; i++) {
    const item = {
      id: i,
      name: `item-${i}-${'x'.repeat(i % 17)}`,
      score: ((i * 7919) % 1000) / 10,
      active: i % 3 === 0,
      tags: ['alpha', 'beta', `t${i % 50}`],
      owner: { id: i % 97, email: `user${i % 97}@example.com`, roles: ['reader', i % 5 === 0 ? 'admin' : 'writer'] },
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { items };
}

function cpuExpected(): number {
  let s = 0;
  for (let i = 0; i < CPU_ITERATIONS; i++) s = (s + ((i * i) % 1009)) % 1000003;
  return s;
}

export interface Workload {
  script: string;
  expected: unknown;
}

/** The script of `name` in `call`'s dialect, and what it must return. */
export function workload(name: WorkloadName, call: CallSyntax, bigItems: number): Workload {
  switch (name) {
    case 'return1':
      return { script: 'return 1', expected: 1 };
    case 'seq':
      return { script: `for (let i = 0; i < ${SEQ_CALLS}; i++) await ${call('noop', '{ i }')}; return ${SEQ_CALLS};`, expected: SEQ_CALLS };
    case 'par':
      return {
        script: `const all = []; for (let i = 0; i < ${PAR_CALLS}; i++) all.push(${call('noop', '{ i }')}); await Promise.all(all); return ${PAR_CALLS};`,
        expected: PAR_CALLS,
      };
    case 'payload':
      return { script: `const r = await ${call('big', '{}')}; return r.items.length;`, expected: bigItems };
    case 'cpu':
      return {
        script: `let s = 0; for (let i = 0; i < ${CPU_ITERATIONS}; i++) s = (s + ((i * i) % 1009)) % 1000003; return s;`,
        expected: cpuExpected(),
      };
    case 'conversation':
      return {
        script: `for (let i = 0; i < ${CONVERSATION_CALLS}; i++) await ${call('noop', '{ i }')}; return ${CONVERSATION_CALLS};`,
        expected: CONVERSATION_CALLS,
      };
  }
}
