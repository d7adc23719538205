/**
 * `npm run conformance:auth-2026`: the official suite's 0.2.0 pre-release (pinned as
 * `conformance-2026`) runs every `auth/*` client scenario of MCP 2026-07-28 against
 * auth-client.ts (toolcell's public API, which connects with `protocolEra: "auto"` when the suite
 * asks for 2026-07-28). Every scenario must pass: they include the revision's issuer checks
 * (RFC 9207 `iss` compared as a string, the metadata's issuer, SEP-2468), `application_type` at
 * registration (SEP-837), a new registration when the authorization server changes (SEP-2352)
 * and the scope union of a step-up (SEP-2350). Everything is on loopback.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE22, SUITE_2026, requireSuite } from './suite-location.ts';

requireSuite();
const CLIENT = `${process.execPath} --import tsx test/conformance/mcp/auth-client.ts`;
const listing = execFileSync(NODE22, [SUITE_2026, 'list', '--client', '--spec-version', '2026-07-28'], { encoding: 'utf8' });
const all = [...listing.matchAll(/^\s*-\s*(auth\/\S+)/gm)].map((m) => m[1]!);
if (all.length === 0) throw new Error(`the suite listed no auth scenarios for 2026-07-28:\n${listing}`);
const out = mkdtempSync(join(tmpdir(), 'toolcell-conf-auth-2026-'));
const failed: string[] = [];
for (const scenario of all) {
  const run = spawnSync(NODE22, [SUITE_2026, 'client', '--command', CLIENT, '--scenario', scenario, '--spec-version', '2026-07-28', '-o', out, '--timeout', '30000'], { encoding: 'utf8' });
  const ok = run.status === 0 && /OVERALL: PASSED/.test(run.stdout + run.stderr);
  if (!ok) failed.push(scenario);
  console.log(`${ok ? 'pass' : 'FAIL'}  ${scenario}`);
}
console.log(`2026-07-28 auth scenarios: ${all.length - failed.length} of ${all.length} pass`);
if (failed.length > 0) {
  console.error(`auth scenarios failed: ${failed.join(', ')} (details in ${out})`);
  process.exit(1);
}
