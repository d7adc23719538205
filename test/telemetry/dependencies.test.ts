/**
 * The dependency rules of the telemetry room, checked on the sources: the library loads
 * `@opentelemetry/api` only, and only from src/telemetry/; the SDK and the exporters (optional
 * peers) are never imported statically by anything: otlp.ts loads them with dynamic imports
 * when an export starts, and serve loads the telemetry room on demand.
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

/** Every `import('x')` with a literal specifier. */
function dynamicImports(text: string): string[] {
  return [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

test('only src/telemetry/ loads OpenTelemetry, the SDK only by a dynamic import in otlp.ts, and nothing outside the room reaches it statically', () => {
  const src = join(REPO_ROOT, 'src');
  for (const file of sources(src)) {
    const rel = relative(src, file);
    const imports = staticImports(readFileSync(file, 'utf8'));
    const otel = imports.filter((i) => i.startsWith('@opentelemetry/'));
    if (!rel.startsWith('telemetry/')) assert.deepEqual(otel, [], `${rel} loads OpenTelemetry`);
    else assert.deepEqual(otel.filter((i) => i !== '@opentelemetry/api'), [], `${rel} loads more than the API statically`);
    const sdk = dynamicImports(readFileSync(file, 'utf8')).filter((i) => i.startsWith('@opentelemetry/') && i !== '@opentelemetry/api');
    if (rel !== 'telemetry/otlp.ts') assert.deepEqual(sdk, [], `${rel} loads the SDK`);
    if (!rel.startsWith('telemetry/')) assert.ok(!imports.some((i) => i.includes('telemetry/')), `${rel} imports the telemetry room statically`);
  }
  assert.match(readFileSync(join(src, 'serve', 'run.ts'), 'utf8'), /await import\('\.\.\/telemetry\/serve-telemetry\.ts'\)/, 'serve loads telemetry on demand');
  assert.ok(!readFileSync(join(src, 'index.ts'), 'utf8').includes('telemetry'), "the main entry does not reach the telemetry room (it is 'toolcell/telemetry')");
});

test('the package declares the API, the SDK and the exporters as optional peers (dev dependencies for the tests) and exports the telemetry entry', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  const otlp = readFileSync(join(REPO_ROOT, 'src', 'telemetry', 'otlp.ts'), 'utf8');
  const loaded = new Set([...dynamicImports(otlp).filter((i) => i.startsWith('@opentelemetry/')), '@opentelemetry/api']);
  for (const name of loaded) {
    assert.ok(pkg.peerDependencies[name], `${name} is a peer`);
    assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
    assert.ok(pkg.devDependencies[name], `${name} is installed for the tests`);
    assert.equal(pkg.dependencies[name], undefined, `${name} is not installed for every user`);
  }
  assert.deepEqual(pkg.exports['./telemetry'], { types: './dist/telemetry/index.d.ts', 'toolcell-source': './src/telemetry/index.ts', default: './dist/telemetry/index.js' });
});
