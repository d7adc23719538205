/** Telling which request a dropped, oversized line answered, from its two ends only. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OversizedLine } from '../../src/mcpl/transports/oversized-line.ts';

function line(text: string, chunk = 1000): OversizedLine {
  const bytes = Buffer.from(text);
  const kept = new OversizedLine([bytes.subarray(0, chunk)]);
  for (let at = chunk; at < bytes.length; at += chunk) kept.add(bytes.subarray(at, at + chunk));
  return kept;
}

const big = 'x'.repeat(50_000);

test('the SDK order ({result,…,jsonrpc,id}) is read from the tail; id-first orders from the head', () => {
  const sdk = line(`{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":7}`);
  assert.equal(sdk.responseId(), 7);
  assert.equal(sdk.bytes, Buffer.byteLength(`{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":7}`));
  assert.equal(line(`{"jsonrpc":"2.0","id":"a\\"b","result":{"text":"${big}"}}`).responseId(), 'a"b');
  assert.equal(line(`{"id":12,"error":{"code":1,"message":"${big}"}}`).responseId(), 12);
});

test('requests, notifications and nested ids are never taken for a response', () => {
  assert.equal(line(`{"method":"sampling/createMessage","params":{"x":"${big}"},"jsonrpc":"2.0","id":3}`).responseId(), undefined);
  assert.equal(line(`{"jsonrpc":"2.0","id":3,"method":"x","params":{"x":"${big}"}}`).responseId(), undefined);
  // The tail's last "id" belongs to a nested object, and the top level had none to find.
  assert.equal(line(`{"result":{"items":[{"v":"${big}","id":9}]}}`).responseId(), undefined);
  assert.equal(line(`not json at all ${big}`).responseId(), undefined);
});
