/**
 * Importing one entry point loads only its own framework: `toolcell` loads none, and each of
 * `toolcell/ai-sdk`, `toolcell/openai-agents`, `toolcell/langchain` loads its framework and no
 * other; `toolcell/anthropic` (types only) loads none. Every import runs in a fresh node process (this checkout, where all three frameworks
 * are installed as devDependencies, so a stray import would succeed and be seen) with a
 * module-resolution hook recording every URL the ESM loader resolves, plus the CommonJS cache
 * for modules that CommonJS packages require past the hooks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, sh } from '../helpers/pack-once.ts';

const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + '\\n');
  return resolved;
}
`;
const REGISTER = `
import { register } from 'node:module';
register('./record-hooks.mjs', import.meta.url, { data: { out: process.env.LOADED_OUT } });
`;

/** Where each framework's modules live (its own packages and the ones only it brings in). */
const FRAMEWORKS = {
  ai: /\/node_modules\/(?:ai|@ai-sdk\/[^/]+)\//,
  '@openai/agents': /\/node_modules\/(?:@openai\/agents[^/]*|openai)\//,
  '@langchain/core': /\/node_modules\/(?:@langchain\/[^/]+|langsmith)\//,
  '@anthropic-ai/sdk': /\/node_modules\/@anthropic-ai\/sdk\//,
} as const;
type Framework = keyof typeof FRAMEWORKS;

const ENTRIES: Array<{ entry: string; loads: Framework[] }> = [
  { entry: 'toolcell', loads: [] },
  { entry: 'toolcell/ai-sdk', loads: ['ai'] },
  { entry: 'toolcell/openai-agents', loads: ['@openai/agents'] },
  { entry: 'toolcell/langchain', loads: ['@langchain/core'] },
  // Types only: the runner passes its client; the adapter needs none of the SDK at run time.
  { entry: 'toolcell/anthropic', loads: [] },
];

describe('an entry point loads only its own framework', { concurrency: true }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-isolation-'));
  writeFileSync(join(dir, 'record-hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'record-register.mjs'), REGISTER);
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const { entry, loads } of ENTRIES) {
    it(`import('${entry}') loads ${loads.length === 0 ? 'no framework' : `${loads.join(', ')} and no other framework`}`, async (t) => {
      const out = join(dir, `${entry.replace(/\W/g, '-')}.txt`);
      writeFileSync(out, '');
      // The package's own name resolves to this checkout's sources under the toolcell-source condition.
      const program = `await import(${JSON.stringify(entry)});
const { createRequire } = await import('node:module');
const { appendFileSync } = await import('node:fs');
appendFileSync(process.env.LOADED_OUT, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');`;
      await sh(
        process.execPath,
        ['--conditions=toolcell-source', '--import', 'tsx', '--import', join(dir, 'record-register.mjs'), '--input-type=module', '-e', program],
        ROOT,
        { signal: t.signal, env: { ...process.env, NODE_OPTIONS: '', LOADED_OUT: out } },
      );
      const loaded = readFileSync(out, 'utf8').split('\n').filter(Boolean);
      assert.ok(loaded.some((u) => u.includes('/src/index.ts') || u.includes('/src/adapters/')), `the hook saw toolcell load: ${loaded.slice(0, 3).join(', ')}`);
      const seen = (Object.keys(FRAMEWORKS) as Framework[]).filter((f) => loaded.some((u) => FRAMEWORKS[f].test(u)));
      assert.deepEqual(seen, loads);
    });
  }
});
