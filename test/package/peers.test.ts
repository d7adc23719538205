/**
 * Optional peers never block an install. The packed tarball goes into empty projects that
 * already hold OpenTelemetry packages, as a user's project would:
 *
 * - one with `@opentelemetry/exporter-trace-otlp-http@0.203.0` (what an older tracing setup, or
 *   a framework, brings): `npm install <tarball>` must succeed without `--legacy-peer-deps` —
 *   it failed with ERESOLVE while toolcell asked for `@opentelemetry/resources@^2.12.1` — and
 *   print no warning that toolcell's own manifest causes (a peer conflict, an install script,
 *   toolcell's engines);
 * - the lowest and the highest versions toolcell's peer ranges accept (the 0.200 / 2.0.0 line
 *   and this repository's devDependency ranges): `startOtlpExport` from `toolcell/telemetry`
 *   exports a span and a metric to a local OTLP/HTTP receiver, so the ranges name versions
 *   toolcell works with, not only versions npm accepts.
 *
 * Each project is made fresh (the point is what npm resolves), from the npm cache where it can.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packedTarball, ROOT, sh } from '../helpers/pack-once.ts';

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };
const INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

const OTEL = ['@opentelemetry/api', '@opentelemetry/resources', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-metrics-otlp-http'] as const;
/**
 * The lowest of each peer range: the OpenTelemetry JS 2.0 line (resourceFromAttributes, the
 * providers' constructor options). The API at 1.9.0, the lowest sdk-metrics 2.0.0 accepts
 * (toolcell's own `^1.7.0` is for embedders that bring only the API).
 */
const LOWEST: Record<(typeof OTEL)[number], string> = {
  '@opentelemetry/api': '1.9.0',
  '@opentelemetry/resources': '2.0.0',
  '@opentelemetry/sdk-trace-node': '2.0.0',
  '@opentelemetry/exporter-trace-otlp-http': '0.200.0',
  '@opentelemetry/sdk-metrics': '2.0.0',
  '@opentelemetry/exporter-metrics-otlp-http': '0.200.0',
};

/** A plain-node script: a local OTLP/HTTP receiver, then one span and one metric exported to it. */
const EXPORT_CHECK = `
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { startOtlpExport } from 'toolcell/telemetry';
const seen = {};
const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk) => { bytes += chunk.length; });
  req.on('end', () => { seen[req.url] = (seen[req.url] ?? 0) + bytes; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = 'http://127.0.0.1:' + server.address().port;
const otlp = await startOtlpExport({ url, serviceName: 'peer-range-check', register: false });
otlp.tracerProvider.getTracer('check').startSpan('one span').end();
otlp.meterProvider.getMeter('check').createCounter('one_counter').add(1);
await otlp.flush();
await otlp.shutdown();
server.close();
const versions = {};
// Read from node_modules: not every package exports its package.json.
for (const name of ${JSON.stringify(OTEL)}) versions[name] = JSON.parse(readFileSync('node_modules/' + name + '/package.json', 'utf8')).version;
console.log(JSON.stringify({ seen, versions }));
`;

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function emptyProject(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `toolcell-peers-${label}-`));
  made.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `peers-${label}`, version: '1.0.0', private: true, type: 'module' }));
  return dir;
}

/**
 * npm's warning lines that toolcell's own manifest causes: any peer conflict, an install script
 * of toolcell's, toolcell's engines. (Other packages' own warnings — protobufjs's postinstall,
 * which the 0.203 exporter brings, or amaro's engines — are theirs.)
 */
function toolcellWarnings(stderr: string): string[] {
  const lines = stderr.split('\n');
  return lines.filter((line, i) => {
    if (/ERESOLVE|peer dep|overriding peer/i.test(line)) return true;
    if (/install-scripts/.test(line) && /\btoolcell@/.test(line)) return true;
    // An EBADENGINE block names its package on the next line.
    return /EBADENGINE Unsupported engine/.test(line) && /package: 'toolcell@/.test(lines[i + 1] ?? '');
  });
}

describe('optional OpenTelemetry peers', { concurrency: true }, () => {
  it('a project with @opentelemetry/exporter-trace-otlp-http@0.203.0 installs toolcell without --legacy-peer-deps, and no warning comes from toolcell', async (t) => {
    const tarball = await packedTarball({ signal: t.signal });
    const dir = emptyProject('otel203');
    await sh('npm', [...INSTALL, '@opentelemetry/exporter-trace-otlp-http@0.203.0'], dir, { signal: t.signal });
    const { stderr } = await sh('npm', [...INSTALL, tarball], dir, { signal: t.signal });
    assert.deepEqual(toolcellWarnings(stderr), [], stderr);
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', "const m = await import('toolcell'); console.log(typeof m.ToolHost)"], dir, { signal: t.signal });
    assert.equal(stdout.trim(), 'function');
  });

  for (const [label, versions] of [
    ['lowest', OTEL.map((name) => `${name}@${LOWEST[name]}`)],
    ['highest', OTEL.map((name) => `${name}@${MANIFEST.devDependencies[name]!}`)],
  ] as const) {
    it(`startOtlpExport exports a span and a metric with the ${label} versions the peer ranges accept`, async (t) => {
      const tarball = await packedTarball({ signal: t.signal });
      const dir = emptyProject(label);
      const { stderr } = await sh('npm', [...INSTALL, tarball, ...versions], dir, { signal: t.signal });
      assert.deepEqual(toolcellWarnings(stderr), [], stderr);
      writeFileSync(join(dir, 'export-check.mjs'), EXPORT_CHECK);
      const { stdout } = await sh(process.execPath, ['export-check.mjs'], dir, { signal: t.signal });
      const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { seen: Record<string, number>; versions: Record<string, string> };
      if (label === 'lowest') assert.deepEqual(report.versions, LOWEST);
      assert.ok((report.seen['/v1/traces'] ?? 0) > 0, `a span reached the receiver: ${JSON.stringify(report)}`);
      assert.ok((report.seen['/v1/metrics'] ?? 0) > 0, `a metric reached the receiver: ${JSON.stringify(report)}`);
    });
  }

  it('every OpenTelemetry peer range admits the lowest version tested here', () => {
    // The peer ranges and LOWEST must move together: a range raised above it is untested.
    // semver is npm's own range logic (present through the dev toolchain).
    const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
    for (const name of OTEL) assert.ok(semver.satisfies(LOWEST[name], MANIFEST.peerDependencies[name]!), `${name}@${LOWEST[name]} is within ${MANIFEST.peerDependencies[name]}`);
  });
});
