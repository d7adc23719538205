/**
 * The dependency rules of the telemetry room, checked on the sources: the library loads
 * `@opentelemetry/api` only, and only from src/telemetry/; the SDK and the exporter are loaded
 * by otlp.ts alone, which nothing imports statically (serve loads it on demand).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../helpers/peers.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Static (value) imports of a file: `import … from 'x'`, not `import type`, not `import('x')`. */
function staticImports(text: string): string[] {
  return [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
}

test('only src/telemetry/ loads OpenTelemetry, only otlp.ts loads the SDK, and nothing loads otlp.ts statically', () => {
  const src = join(REPO_ROOT, 'src');
  for (const file of sources(src)) {
    const rel = relative(src, file);
    const imports = staticImports(readFileSync(file, 'utf8'));
    const otel = imports.filter((i) => i.startsWith('@opentelemetry/'));
    if (!rel.startsWith('telemetry/')) assert.deepEqual(otel, [], `${rel} loads OpenTelemetry`);
    else if (rel !== 'telemetry/otlp.ts') assert.deepEqual(otel.filter((i) => i !== '@opentelemetry/api'), [], `${rel} loads more than the API`);
    if (rel !== 'telemetry/serve-telemetry.ts') assert.ok(!imports.some((i) => i.endsWith('/otlp.ts') || i === './otlp.ts'), `${rel} imports otlp.ts statically`);
    if (!rel.startsWith('telemetry/')) assert.ok(!imports.some((i) => i.includes('telemetry/')), `${rel} imports the telemetry room statically`);
  }
  assert.match(readFileSync(join(src, 'serve', 'run.ts'), 'utf8'), /await import\('\.\.\/telemetry\/serve-telemetry\.ts'\)/, 'serve loads telemetry on demand');
  assert.ok(!readFileSync(join(src, 'index.ts'), 'utf8').includes('telemetry'), "the main entry does not reach the telemetry room (it is 'toolcell/telemetry')");
});

test('the package declares the API as an optional peer and exports the telemetry entry', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  assert.ok(pkg.peerDependencies['@opentelemetry/api']);
  assert.equal(pkg.peerDependenciesMeta['@opentelemetry/api'].optional, true);
  assert.ok(pkg.devDependencies['@opentelemetry/api']);
  assert.deepEqual(pkg.exports['./telemetry'], { types: './dist/telemetry/index.d.ts', 'toolcell-source': './src/telemetry/index.ts', default: './dist/telemetry/index.js' });
});
