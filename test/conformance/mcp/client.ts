/**
 * The official MCP conformance suite's client for its core client scenarios, on toolcell's
 * public API only: a `ToolHost` with `serverRequests`, `connectServer({ url })`, the listing and
 * `dispatch`. The suite names the scenario in MCP_CONFORMANCE_SCENARIO and passes the server's
 * URL as the last argument. Each scenario is one row of SCENARIOS: the tool to call and its
 * arguments (none: connecting and listing is the scenario); a scenario whose context
 * (MCP_CONFORMANCE_CONTEXT) names `toolCalls` gets exactly those calls.
 */
import { ToolHost, resultText } from '../../../src/index.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
/** What a scenario hands its client: the calls it wants made, where it names them. */
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: { name: string; arguments?: Record<string, unknown> }[] };

const SCENARIOS: Record<string, { tool?: string; args?: Record<string, unknown>; all?: boolean; echoSchemaOf?: string }> = {
  // The listed input schema of the first tool, passed back through the echo tool.
  'json-schema-2020-12-preservation': { tool: 'json_schema_echo', echoSchemaOf: 'json_schema_2020_12_tool' },
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
  if (context.toolCalls) {
    // The scenario names the calls to make (its context's toolCalls): each as given, in order —
    // except that an argument given as null is left out. toolcell checks a call's arguments
    // against the tool's input schema before anything is sent, and a null where the schema wants
    // a boolean is refused on the host; left out, the call checks the same rule ("a null or
    // absent argument sends no Mcp-Param header").
    const stream = host.openStream('conformance');
    for (const call of context.toolCalls) {
      const input = Object.fromEntries(Object.entries(call.arguments ?? {}).filter(([, value]) => value !== null));
      const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: `conf--${call.name}`, input });
      console.log(call.name, outcome.status, resultText(outcome.result).slice(0, 200));
    }
    stream.end();
  } else if (row.all) {
    const stream = host.openStream('conformance');
    for (const tool of host.listTools()) {
      const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: tool.name, input: requiredArguments(tool.inputSchema) });
      console.log(tool.name, outcome.status, resultText(outcome.result).slice(0, 200));
    }
    stream.end();
  } else if (row.echoSchemaOf) {
    // Round-trips the input schema toolcell lists for one tool through another (its keywords must survive).
    const focal = host.listTools().find((t) => t.name === `conf--${row.echoSchemaOf}`);
    if (!focal) throw new Error(`expected conf--${row.echoSchemaOf}, got ${host.listTools().map((t) => t.name).join(', ')}`);
    const stream = host.openStream('conformance');
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: `conf--${row.tool}`, input: { schema: focal.inputSchema } });
    console.log(outcome.status, resultText(outcome.result));
    if (outcome.status !== 'completed') process.exitCode = 1;
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

/** The least arguments a schema's required properties accept: a call that passes validation, for a scenario that only watches the wire. */
function requiredArguments(schema: unknown): Record<string, unknown> {
  const { properties = {}, required = [] } = (schema ?? {}) as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const sample: Record<string, unknown> = { string: 'x', integer: 1, number: 1, boolean: true, object: {}, array: [] };
  return Object.fromEntries(required.map((name) => [name, sample[String(properties[name]?.type)] ?? 'x']));
}
