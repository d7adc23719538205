/**
 * Locates and loads the frozen MCPL conformance vectors for unit tests. The folder sits next
 * to the repository (`../shared/mcpl-conformance`); `TOOLCELL_CONFORMANCE_DIR` overrides it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The conformance data folder. */
export const conformanceDir = process.env.TOOLCELL_CONFORMANCE_DIR ?? path.resolve(repoRoot, '..', 'shared', 'mcpl-conformance');

/** Parses one JSON file of the conformance folder. */
export function loadConformance<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(conformanceDir, file), 'utf8')) as T;
}

/** The `{"$fixture":"object-utf8-bytes","bytes":N}` value: `{data: "xx…"}` serializing to exactly N bytes. */
export function objectOfUtf8Bytes(bytes: number): { data: string } {
  const overhead = JSON.stringify({ data: '' }).length;
  return { data: 'x'.repeat(bytes - overhead) };
}
