/**
 * The official MCP conformance suite's 0.2.0 pre-release (pinned as `conformance-2026`) runs
 * its MCP 2026-07-28 client scenarios against client.ts (toolcell's public API, which connects
 * with `protocolEra: "auto"` when the suite asks for 2026-07-28); every scenario listed must
 * pass: all of the revision's client scenarios outside `auth/*` (those run in
 * run-auth-2026.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE22, SUITE_2026, requireSuite } from './suite-location.ts';

requireSuite();
const SCENARIOS = ['tools_call', 'request-metadata', 'sep-2322-client-request-state', 'http-standard-headers', 'json-schema-ref-no-deref', 'http-custom-headers', 'http-invalid-tool-headers', 'json-schema-2020-12-preservation'];
const CLIENT = `${process.execPath} --import tsx test/conformance/mcp/client.ts`;

const out = mkdtempSync(join(tmpdir(), 'toolcell-conf-client-2026-'));
const failed: string[] = [];
for (const scenario of SCENARIOS) {
  const run = spawnSync(NODE22, [SUITE_2026, 'client', '--command', CLIENT, '--scenario', scenario, '--spec-version', '2026-07-28', '-o', out, '--timeout', '30000'], { encoding: 'utf8' });
  const ok = run.status === 0 && /OVERALL: PASSED/.test(run.stdout + run.stderr);
  if (!ok) failed.push(scenario);
  console.log(`${ok ? 'pass' : 'FAIL'}  ${scenario}`);
}
console.log(`2026-07-28 client scenarios: ${SCENARIOS.length - failed.length} of ${SCENARIOS.length} pass`);
if (failed.length > 0) {
  console.error(`client scenarios failed: ${failed.join(', ')} (details in ${out})`);
  process.exit(1);
}
