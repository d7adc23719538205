/**
 * Redaction by value: toolcell's own rules (src/lifecycle/secret-values.ts) against a maintained
 * rule set, secretlint's recommended preset (`npm run bench:redaction`). Issue 19 asked for a
 * maintained set over hand-written patterns; this measures what one costs on the observer path.
 *
 * Both run on the same inputs in the same process: a tool call's arguments with no secret
 * trigger, the same with a secret, and a 20-line `code_execution` script with two secrets.
 * Per call: boundInput (what observers get today: serialize, key-based and value redaction),
 * toolcell's value rules alone, and secretlint's `lintSource` with the preset (asynchronous:
 * it returns a promise, and finding a secret is all it does; replacing it would cost more).
 * Then coverage: which of test/security/value-redaction.test.ts's cases each one catches.
 *
 * The last line is one JSON object with the figures.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { boundInput } from '../src/lifecycle/input-bound.ts';
import { redactSecretsInText } from '../src/lifecycle/secret-values.ts';

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

// Coverage on the attack cases of value-redaction.test.ts whose secret sits inside a value.
const cases: [string, string][] = [
  ['URL query token', `https://api.example.com/v1/items?page=2&access_token=${S}`],
  ['URL credentials', `postgres://admin:${S}@db.internal:5432/app`],
  ['curl bearer header', `curl -H 'Authorization: Bearer ${S}' https://api.example.com`],
  ['export assignment', `export GITHUB_TOKEN=${S} && gh repo list`],
  ['inline env assignment', `DB_PASSWORD='${S}' ./migrate`],
  ['form body', `user=alice&password=${S}&remember=1`],
  ['JSON text in a string', `{"user":"alice","client_secret":"${S}"}`],
  ['PEM block', `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${S}\n-----END RSA PRIVATE KEY-----`],
  ['JWT', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${S}`],
  ['GitHub token prefix', `use ghp_${S}${S.slice(0, 16)} for this`],
  ['AWS access key id', 'key AKIAIOSFODNN7EXAMPLE here'],
  ['Anthropic key in code', `const k = "sk-ant-api03-${S}${S}";`],
];
const caught = { toolcell: [] as string[], secretlint: [] as string[] };
for (const [name, text] of cases) {
  if (redactSecretsInText(text) !== text) caught.toolcell.push(name);
  if ((await secretlintFinds(text)) > 0) caught.secretlint.push(name);
}
console.log(`coverage of ${cases.length} in-value cases: toolcell ${caught.toolcell.length}, secretlint preset ${caught.secretlint.length} (${caught.secretlint.join(', ')})`);
console.log(JSON.stringify({ bench: 'redaction-rules', figures, coverage: { cases: cases.length, toolcell: caught.toolcell.length, secretlint: caught.secretlint.length, secretlintCaught: caught.secretlint } }));
