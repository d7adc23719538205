/**
 * Redaction by value: toolcell's rules (src/lifecycle/secret-rules.ts, derived from secretlint's
 * recommended preset) against that preset's own engine (`npm run bench:redaction`): what each
 * costs on the observer path, what a value with no secret costs, and coverage on the corpus of
 * test/lifecycle/redaction-corpus.ts (issue 42: 29 in-value spellings and one sample per
 * preset rule, each one the preset itself flags).
 *
 * Both run on the same inputs in the same process: a tool call's arguments with no secret
 * trigger, the same with a secret, and a 20-line `code_execution` script with two secrets.
 * Per call: boundInput (what observers get today: serialize, key-based and value redaction),
 * toolcell's value rules alone, and secretlint's `lintSource` with the preset (asynchronous:
 * it returns a promise, and finding a secret is all it does; replacing it would cost more).
 * Then the cost per value with no secret, and coverage.
 *
 * The last line is one JSON object with the figures.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { boundInput } from '../src/lifecycle/input-bound.ts';
import { redactSecretsInText } from '../src/lifecycle/secret-values.ts';
import { CORPUS, PRESET_SAMPLES } from '../test/lifecycle/redaction-corpus.ts';

const S = 'Zq8vN3xR7tLm2KpW9yB4';
const plain = { path: '/srv/app/README.md', query: 'how are releases tagged', limit: 20 };
const secret = { command: `curl -H 'Authorization: Bearer ${S}' https://api.example.com/v1/items?page=2` };
const code = {
  code: [
    'const items = await tools.list_items({ page: 1 });',
    ...Array.from({ length: 16 }, (_, i) => `const r${i} = await tools.fetch({ url: "https://x.test/items/${i}" });`),
    `const r = await tools.fetch({ url: "https://x.test/?api_key=${S}" });`,
    `const k = "ghp_${S}${S.slice(0, 16)}";`,
    'return { items, r, k };',
  ].join('\n'),
};

const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] };
async function secretlintFinds(text: string): Promise<number> {
  const result = await lintSource({ source: { content: text, filePath: '/input.txt', ext: '.txt', contentType: 'text' }, options: { config } });
  return result.messages.length;
}

function timeSync(fn: () => void, ms = 700): number {
  for (let i = 0; i < 200; i++) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    now = performance.now();
  }
  return ((now - start) * 1e6) / n;
}

async function timeAsync(fn: () => Promise<unknown>, ms = 700): Promise<number> {
  for (let i = 0; i < 50; i++) await fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    now = performance.now();
  }
  return ((now - start) * 1e6) / n;
}

const figures: Record<string, { boundInputNs: number; toolcellRulesNs: number; secretlintNs: number; ratio: number }> = {};
for (const [name, input] of Object.entries({ plain, secret, code })) {
  const json = JSON.stringify(input);
  const boundInputNs = timeSync(() => boundInput(input));
  const toolcellRulesNs = timeSync(() => redactSecretsInText(json));
  const secretlintNs = await timeAsync(() => secretlintFinds(json));
  figures[name] = { boundInputNs: Math.round(boundInputNs), toolcellRulesNs: Math.round(toolcellRulesNs), secretlintNs: Math.round(secretlintNs), ratio: Number((secretlintNs / boundInputNs).toFixed(1)) };
  console.log(`${name.padEnd(7)} boundInput ${(boundInputNs / 1000).toFixed(2)} µs · toolcell value rules ${(toolcellRulesNs / 1000).toFixed(2)} µs · secretlint preset ${(secretlintNs / 1000).toFixed(1)} µs (${figures[name]!.ratio}× boundInput)`);
}

// Cost per value with no secret: what every call with ordinary arguments pays (the keyword
// pre-check misses, nothing else runs). Best of several rounds: the machine is shared.
const prose = 'The quarterly report is attached; please review the figures before the meeting on Thursday and send comments.';
const noSecret: Record<string, number> = {};
for (let round = 0; round < 7; round++) {
  for (const [name, fn] of Object.entries({ boundInputPlain: () => boundInput(plain), textProse: () => redactSecretsInText(prose), textPlainJson: () => redactSecretsInText(JSON.stringify(plain)) })) {
    noSecret[name] = Math.min(noSecret[name] ?? Infinity, Math.round(timeSync(fn, 150)));
  }
}
console.log(`no secret: boundInput(plain arguments) ${(noSecret.boundInputPlain! / 1000).toFixed(2)} µs · value rules on 107 characters of prose ${(noSecret.textProse! / 1000).toFixed(2)} µs (best of 7)`);

// Coverage on the corpus (test/lifecycle/redaction-corpus.ts): the 29 in-value spellings, and
// one sample per rule of secretlint's preset. toolcell: the secret texts are gone after
// boundInput (observers, span capture) / redactSecretsInText (status, logs); secretlint: it
// reports at least one finding.
const caught = { toolcell: [] as string[], secretlint: [] as string[] };
for (const c of CORPUS) {
  const bounded = boundInput(c.input);
  if (bounded.ok && !c.secrets.some((secret) => bounded.json.includes(secret))) caught.toolcell.push(c.name);
  if ((await secretlintFinds(JSON.stringify(c.input))) > 0) caught.secretlint.push(c.name);
}
const missed = CORPUS.filter((c) => !caught.toolcell.includes(c.name)).map((c) => c.name);
console.log(`corpus, ${CORPUS.length} in-value spellings: toolcell ${caught.toolcell.length}${missed.length ? ` (missed: ${missed.join(', ')})` : ''}, secretlint preset ${caught.secretlint.length}`);
let presetFlagged = 0;
let presetMasked = 0;
const presetMissed: string[] = [];
for (const sample of PRESET_SAMPLES) {
  const linted = await lintSource({ source: { content: sample.text, filePath: '/input.txt', ext: '.txt', contentType: 'text' }, options: { config } });
  if (linted.messages.length === 0) continue;
  presetFlagged += 1;
  const redacted = redactSecretsInText(sample.text);
  if (linted.messages.every((m) => !redacted.includes(sample.text.slice(m.range[0], m.range[1])))) presetMasked += 1;
  else presetMissed.push(sample.rule);
}
console.log(`secretlint preset samples: ${presetFlagged} of ${PRESET_SAMPLES.length} flagged by the preset, ${presetMasked} of them masked by toolcell${presetMissed.length ? ` (missed: ${presetMissed.join(', ')})` : ''}`);
console.log(JSON.stringify({
  bench: 'redaction-rules',
  figures,
  noSecretNs: noSecret,
  coverage: { corpus: CORPUS.length, toolcell: caught.toolcell.length, secretlint: caught.secretlint.length, toolcellMissed: missed, presetSamples: PRESET_SAMPLES.length, presetFlagged, presetMasked },
}));
