/**
 * Turns a script as a model wrote it into one the runtimes run, and names every change made,
 * so the result envelope can tell the model what happened (`normalized`). Each step is a
 * pure function in the runtime room; this file only orders them per language.
 */
import { stripFence } from '../runtime/js/normalize/fence.ts';
import { callLoneFunction } from '../runtime/js/normalize/lone-function.ts';
import type { ScriptLanguage } from './options.ts';

/** A normalization applied to a script, as reported in the envelope's `normalized`. */
export type Normalization = 'fence' | 'function';

/** The script to run and the normalizations that produced it (empty when it runs as written). */
export interface NormalizedScript {
  code: string;
  normalized: Normalization[];
}

/** Applies the normalizations that fit `language`; code that needs none is returned unchanged. */
export function normalizeScript(code: string, language: ScriptLanguage): NormalizedScript {
  const normalized: Normalization[] = [];
  const unfenced = stripFence(code, language);
  if (unfenced !== undefined) {
    code = unfenced;
    normalized.push('fence');
  }
  if (language === 'javascript') {
    const called = callLoneFunction(code);
    if (called !== undefined) {
      code = called;
      normalized.push('function');
    }
  }
  return { code, normalized };
}
