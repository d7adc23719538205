/**
 * The workloads of `bench:peers`, written once and rendered in each sandbox's dialect: how a
 * script names a tool differs (`tools.noop(...)` for toolcell, pi-codemode and the AI SDK's
 * code mode; `bench.noop(...)` for utcp code-mode, whose tools live under their manual's name).
 * Each workload checks the value its script returned, so a run that returns anything else fails
 * the bench instead of timing a broken run. Also here: the 1 MB payload (as the JSON text a tool
 * answers with) and the JSON floor it is measured against.
 */

export const SEQ_CALLS = 10_000;
export const PAR_CALLS = 1_000;
/** Conversations that run at once in the concurrency and memory figures. */
export const CONVERSATIONS = 32;
/** Inner calls each of those conversations' scripts makes. */
export const CONVERSATION_CALLS = 100;
const CPU_ITERATIONS = 2_000_000;

export type WorkloadName = 'return1' | 'seq' | 'par' | 'payload' | 'cpu' | 'conversation';

/** How a dialect writes `<tool>(<args>)`. */
export type CallSyntax = (tool: 'noop' | 'big', args: string) => string;

export const toolsDialect: CallSyntax = (tool, args) => `tools.${tool}(${args})`;
export const utcpDialect: CallSyntax = (tool, args) => `bench.${tool}(${args})`;

/** The 1 MB a `big` tool answers: its JSON text (what a tool server sends) and its item count. */
export interface Payload {
  text: string;
  items: number;
  lastEmail: string;
}

/** About 1 MB of JSON: records with strings, numbers, arrays and a nested object (as bench:sandbox). */
export function megabytePayload(): Payload {
  const items: Array<{ owner: { email: string } }> = [];
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
  return { text: JSON.stringify({ items }), items: items.length, lastEmail: items[items.length - 1]!.owner.email };
}

/** The payload of a subject process that never runs the 1 MB workload (a cold sample). */
export const NO_PAYLOAD: Payload = { text: '{"items":[]}', items: 0, lastEmail: '' };

/**
 * The JSON floor of the 1 MB round trip: `JSON.stringify(JSON.parse(text))` of the tool's text,
 * the least any sandbox must do to take a tool's JSON answer and hand the same value back as a
 * result (parse it once, serialize it once). Returns one sample in ms; the bench takes many in
 * every subject process, between rounds, and reports their median.
 */
export function floorSampleMs(text: string): number {
  const t = performance.now();
  JSON.stringify(JSON.parse(text));
  return performance.now() - t;
}

let cpuAnswer: number | undefined;
/** What the CPU workload must return (a ~45 ms loop: computed once, before any clock runs). */
export function cpuExpected(): number {
  if (cpuAnswer === undefined) {
    let s = 0;
    for (let i = 0; i < CPU_ITERATIONS; i++) s = (s + ((i * i) % 1009)) % 1000003;
    cpuAnswer = s;
  }
  return cpuAnswer;
}

export interface Workload {
  script: string;
  /** Undefined when `value` is what the script must return, else what is wrong with it. */
  check(value: unknown): string | undefined;
}

const equals = (expected: unknown) => (value: unknown) => (value === expected ? undefined : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(value)?.slice(0, 300)}`);

/** The 1 MB came back whole: as many items as sent, the last one intact. */
function checkPayload(payload: Payload) {
  return (value: unknown): string | undefined => {
    const items = (value as { items?: Array<{ owner?: { email?: string } }> } | null)?.items;
    if (!Array.isArray(items)) return `expected the 1 MB object, got ${JSON.stringify(value)?.slice(0, 300)}`;
    if (items.length !== payload.items || items[items.length - 1]?.owner?.email !== payload.lastEmail) return `the 1 MB object came back altered (${items.length} items)`;
    return undefined;
  };
}

/** The script of `name` in `call`'s dialect, and its check. */
export function workload(name: WorkloadName, call: CallSyntax, payload: Payload): Workload {
  switch (name) {
    case 'return1':
      return { script: 'return 1', check: equals(1) };
    case 'seq':
      return { script: `for (let i = 0; i < ${SEQ_CALLS}; i++) await ${call('noop', '{ i }')}; return ${SEQ_CALLS};`, check: equals(SEQ_CALLS) };
    case 'par':
      return {
        script: `const all = []; for (let i = 0; i < ${PAR_CALLS}; i++) all.push(${call('noop', '{ i }')}); await Promise.all(all); return ${PAR_CALLS};`,
        check: equals(PAR_CALLS),
      };
    case 'payload':
      // The tool answers JSON text; the sandbox hands the script the parsed value; the script
      // returns all of it, so the megabyte crosses the result too.
      return { script: `return await ${call('big', '{}')};`, check: checkPayload(payload) };
    case 'cpu':
      return {
        script: `let s = 0; for (let i = 0; i < ${CPU_ITERATIONS}; i++) s = (s + ((i * i) % 1009)) % 1000003; return s;`,
        check: equals(cpuExpected()),
      };
    case 'conversation':
      return {
        script: `for (let i = 0; i < ${CONVERSATION_CALLS}; i++) await ${call('noop', '{ i }')}; return ${CONVERSATION_CALLS};`,
        check: equals(CONVERSATION_CALLS),
      };
  }
}
