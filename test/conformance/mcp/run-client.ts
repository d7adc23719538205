/**
 * Runs the official MCP conformance suite's core client scenarios against client.ts (toolcell's
 * public API), with the suite's Node 22 (see suite-location.ts); every one must pass. The
 * `auth/*` scenarios have their own runner (run-auth.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE22, SUITE, requireSuite } from './suite-location.ts';

requireSuite();
const SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
const CLIENT = `${process.execPath} --import tsx test/conformance/mcp/client.ts`;

const out = mkdtempSync(join(tmpdir(), 'toolcell-conf-client-'));
const failed: string[] = [];
for (const scenario of SCENARIOS) {
  const run = spawnSync(NODE22, [SUITE, 'client', '--command', CLIENT, '--scenario', scenario, '-o', out, '--timeout', '30000'], { encoding: 'utf8' });
  const ok = run.status === 0 && /OVERALL: PASSED/.test(run.stdout + run.stderr);
  if (!ok) failed.push(scenario);
  console.log(`${ok ? 'pass' : 'FAIL'}  ${scenario}`);
}
console.log(`client scenarios: ${SCENARIOS.length - failed.length} of ${SCENARIOS.length} pass`);
if (failed.length > 0) {
  console.error(`client scenarios failed: ${failed.join(', ')} (details in ${out})`);
  process.exit(1);
}
