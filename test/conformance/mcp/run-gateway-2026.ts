/**
 * Gateway conformance for MCP 2026-07-28: the official suite's 0.2.0 pre-release (pinned in
 * suite/package.json as `conformance-2026`) runs its server scenarios through
 * `toolcell serve --http` in front of a backend of each era:
 * - a **2025 backend** (reference-server.ts, SDK v1): the suite runs against it alone at
 *   `--spec-version 2025-11-25` (it has no 2026 face), and through serve at 2026-07-28, so what is
 *   measured is serve translating a 2025 backend for a 2026 client. Shared scenarios must score
 *   within {@link MAX_GAP} checks of the backend alone; 2026-only ones must pass, except those in
 *   {@link NEEDS_2026_BACKEND};
 * - a **2026 backend** (reference-server-2026.ts, SDK v2): the suite runs against it alone and
 *   through serve, both at 2026-07-28, and serve must score within {@link MAX_GAP} checks of it
 *   over every scenario — its own `input_required` results (keys, rounds, sealed state), its
 *   client-capability error, its `Mcp-Param` headers pass through serve.
 * Prints the tables.
 *
 * Usage: npm run conformance:gateway-2026
 */
import { runMain, runSuite, startBackend, startServe, type SuiteRun } from './gateway-harness.ts';
import { SUITE_2026, requireSuite } from './suite-location.ts';

requireSuite();
const MAX_GAP = 2;

/**
 * 2026-only scenarios whose checks call tools that only a 2026 backend can offer: exact
 * `inputRequests` keys and `requestState` of the backend's own choosing (input-required-*),
 * tools annotated with `x-mcp-header` (http-custom-header-server-validation), and the
 * `test_missing_capability` probe (two checks of server-stateless). serve passes a 2025
 * backend's elicitation through as `input_required`, with keys of its own.
 */
const NEEDS_2026_BACKEND = new Set([
  'server-stateless',
  'http-custom-header-server-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
]);
/** Most checks of server-stateless that may fail for want of `test_missing_capability`. */
const STATELESS_MAX_FAILED = 2;

const score = (s: { passed: number; failed: number } | undefined) => (s ? `${s.passed}/${s.passed + s.failed}` : '-');

/** Serve in front of the 2025 backend, for 2026 clients. */
function compare2025(alone: SuiteRun, through: SuiteRun, problems: string[]): void {
  let alonePassed = 0;
  let throughPassed = 0;
  console.log('2025 backend: scenario                          backend alone (2025)   through serve (2026)');
  for (const [name, s] of through.scenarios) {
    const before = alone.scenarios.get(name);
    if (before) {
      alonePassed += before.passed;
      throughPassed += s.passed;
      console.log(`${name.padEnd(48)}${score(before).padEnd(23)}${score(s)}`);
      continue;
    }
    console.log(`${name.padEnd(48)}${'(2026 only)'.padEnd(23)}${score(s)}`);
    if (s.failed === 0) continue;
    if (!NEEDS_2026_BACKEND.has(name)) problems.push(`2025 backend, ${name}: ${s.failed} check(s) failed`);
    else if (name === 'server-stateless' && s.failed > STATELESS_MAX_FAILED) problems.push(`2025 backend, ${name}: ${s.failed} checks failed (at most ${STATELESS_MAX_FAILED} for want of test_missing_capability)`);
  }
  const gap = alonePassed - throughPassed;
  console.log(`2025 backend, shared scenarios: alone ${alonePassed} passed, through serve ${throughPassed} passed; gap ${gap} (at most ${MAX_GAP})`);
  if (gap > MAX_GAP) problems.push(`2025 backend: gap of ${gap} checks on the shared scenarios`);
}

/** Serve in front of the 2026 backend: every scenario, both at 2026-07-28. */
function compare2026(alone: SuiteRun, through: SuiteRun, problems: string[]): void {
  console.log('2026 backend: scenario                          backend alone (2026)   through serve (2026)');
  for (const name of new Set([...alone.scenarios.keys(), ...through.scenarios.keys()])) {
    console.log(`${name.padEnd(48)}${score(alone.scenarios.get(name)).padEnd(23)}${score(through.scenarios.get(name))}`);
  }
  const gap = alone.passed - through.passed;
  console.log(`2026 backend: alone ${alone.passed} passed, ${alone.failed} failed; through serve ${through.passed} passed, ${through.failed} failed; gap ${gap} (at most ${MAX_GAP})`);
  if (through.failures.length > 0) console.log(`  failed through serve: ${through.failures.join('; ')}`);
  if (gap > MAX_GAP) problems.push(`2026 backend: gap of ${gap} checks`);
}

runMain(async () => {
  const problems: string[] = [];
  const only = process.argv[2];
  if (only !== '2026') {
    const backend = await startBackend('reference-server.ts');
    const serve = await startServe(backend);
    const alone = await runSuite(SUITE_2026, backend, 'reference server alone, 2025-11-25', '2025-11-25');
    const through = await runSuite(SUITE_2026, serve, 'through toolcell serve, 2026-07-28', '2026-07-28');
    compare2025(alone, through, problems);
  }
  if (only !== '2025') {
    const backend = await startBackend('reference-server-2026.ts');
    const serve = await startServe(backend, 'auto');
    const alone = await runSuite(SUITE_2026, backend, '2026 reference server alone', '2026-07-28');
    const through = await runSuite(SUITE_2026, serve, '2026 backend through toolcell serve', '2026-07-28');
    compare2026(alone, through, problems);
  }
  for (const p of problems) console.error(`FAIL ${p}`);
  return problems.length > 0 ? 1 : 0;
});
