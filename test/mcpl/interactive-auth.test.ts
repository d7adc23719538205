/** The interactive provider's wait for the redirect: bounded by `authorizationTimeoutMs`, then it fails saying so. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InteractiveAuthProvider } from '../../src/index.ts';

test('waitForAuthorizationCode fails after authorizationTimeoutMs when nobody comes back', async () => {
  const provider = await InteractiveAuthProvider.start({ authorizationTimeoutMs: 1000 });
  try {
    await assert.rejects(provider.waitForAuthorizationCode(), /nobody authorized within 1000 ms/);
  } finally {
    await provider.close();
  }
});
