/**
 * The official MCP conformance suite's client for its core client scenarios, on toolcell's
 * public API only: a `ToolHost` with `serverRequests`, `connectServer({ url })`, the listing and
 * `dispatch`. The suite names the scenario in MCP_CONFORMANCE_SCENARIO and passes the server's
 * URL as the last argument. Each scenario is one row of SCENARIOS: the tool to call and its
 * arguments (none: connecting and listing is the scenario).
 */
import { ToolHost, resultText } from '../../../src/index.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';

const SCENARIOS: Record<string, { tool?: string; args?: Record<string, unknown>; all?: boolean }> = {
  initialize: {},
  tools_call: { tool: 'add_numbers', args: { a: 2, b: 3 } },
  // The user accepts without filling any field: toolcell applies the schema's defaults (SEP-1034).
  'elicitation-sep1034-client-defaults': { tool: 'test_client_elicitation_defaults', args: {} },
  // The server ends the call's stream early; the SDK transport resumes it after `retry` ms.
  'sse-retry': { tool: 'test_reconnection', args: {} },
};

// Asked for 2026-07-28 (conformance 0.2.0), the client speaks that era; a scenario without a row
// there is "call every tool the server lists" (its tools are the scenario's probes).
const modern = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === '2026-07-28';
const row = SCENARIOS[scenario] ?? (modern ? { all: true } : undefined);
if (!row) {
  console.error(`unknown scenario "${scenario}"; this client knows ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}

const host = new ToolHost({
  serverRequests: {
    elicitation: async () => ({ action: 'accept', content: {} }),
  },
});
try {
  await host.connectServer({ id: 'conf', url, ...(modern ? { protocolEra: 'auto' as const } : {}) });
  if (row.all) {
    const stream = host.openStream('conformance');
    for (const tool of host.listTools()) {
      const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: tool.name, input: {} });
      console.log(tool.name, outcome.status, resultText(outcome.result).slice(0, 200));
    }
    stream.end();
  } else if (row.tool) {
    const name = `conf--${row.tool}`;
    const listed = host.listTools().map((t) => t.name);
    if (!listed.includes(name)) throw new Error(`expected ${name}, got ${listed.join(', ')}`);
    const stream = host.openStream('conformance');
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name, input: row.args ?? {} });
    console.log(outcome.status, resultText(outcome.result));
    if (outcome.status !== 'completed') process.exitCode = 1;
    stream.end();
  }
} finally {
  await host.close();
}
