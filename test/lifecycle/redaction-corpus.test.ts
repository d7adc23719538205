/**
 * The redaction corpus (issue 42.2) through the one path everything leaving the host takes:
 * boundInput for arguments (observers, span content capture), redactSecretsInText for text
 * (span status, events, logs). Fifteen of the 29 spellings reached observers before; each
 * preset sample must be one secretlint's recommended preset flags, and be masked here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { boundInput } from '../../src/lifecycle/input-bound.ts';
import { isCredentialKey } from '../../src/lifecycle/credentials.ts';
import { maskRecognizedSecrets, redactSecretsInText } from '../../src/lifecycle/secret-values.ts';
import { CORPUS, PRESET_SAMPLES } from './redaction-corpus.ts';

test('the corpus holds the 29 spellings, 15 of them the ones that got through', () => {
  assert.equal(CORPUS.length, 29);
  assert.equal(CORPUS.filter((c) => c.missedBefore).length, 15);
});

for (const c of CORPUS) {
  test(`redacted for observers and span capture: ${c.name}`, () => {
    const bounded = boundInput(c.input);
    assert.equal(bounded.ok, true, JSON.stringify(bounded));
    const json = (bounded as { json: string }).json;
    for (const secret of c.secrets) assert.ok(!json.includes(secret), `${c.name}: ${json}`);
    assert.equal((bounded as { altered: boolean }).altered, true);
  });
  // A lone string under an innocent name is also text a thrown message or a log line can hold.
  const only = Object.values(c.input);
  if (only.length === 1 && typeof only[0] === 'string' && !isCredentialKey(Object.keys(c.input)[0]!)) {
    test(`redacted as text (span status, events, logs): ${c.name}`, () => {
      const text = redactSecretsInText(`tool failed: ${only[0] as string}`);
      for (const secret of c.secrets) assert.ok(!text.includes(secret), `${c.name}: ${text}`);
      assert.match(text, /^tool failed: /);
    });
  }
}

const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] };

for (const sample of PRESET_SAMPLES) {
  test(`secretlint preset sample masked: ${sample.rule}`, async () => {
    const linted = await lintSource({ source: { content: sample.text, filePath: '/input.txt', ext: '.txt', contentType: 'text' }, options: { config } });
    assert.ok(linted.messages.length > 0, `the preset does not flag the ${sample.rule} sample`);
    const flagged = linted.messages.map((m) => sample.text.slice(m.range[0], m.range[1]));
    const redacted = redactSecretsInText(sample.text);
    for (const secret of flagged) assert.ok(!redacted.includes(secret), `${sample.rule}: ${redacted}`);
    if (!sample.context) {
      const masked = maskRecognizedSecrets(sample.text);
      assert.ok(masked.masked.length > 0, `${sample.rule}: no value rule recognized it`);
      for (const secret of flagged) assert.ok(!masked.text.includes(secret), `${sample.rule}: ${masked.text}`);
    }
  });
}
