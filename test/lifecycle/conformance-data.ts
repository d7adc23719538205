/**
 * Loads the frozen MCPL conformance vectors for unit tests, from the copy the repository keeps
 * (`test/conformance/vectors/`, or `TOOLCELL_CONFORMANCE_DIR`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { conformanceDir as locate } from '../conformance/shared.ts';

/** The conformance data folder. */
export const conformanceDir = locate();

/** Parses one JSON file of the conformance folder. */
export function loadConformance<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(conformanceDir, file), 'utf8')) as T;
}

/** The `{"$fixture":"object-utf8-bytes","bytes":N}` value: `{data: "xx…"}` serializing to exactly N bytes. */
export function objectOfUtf8Bytes(bytes: number): { data: string } {
  const overhead = JSON.stringify({ data: '' }).length;
  return { data: 'x'.repeat(bytes - overhead) };
}
