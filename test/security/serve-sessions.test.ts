/**
 * `serve` sessions own their conversations. An HTTP session B that named session A's
 * conversation in `_meta["agent-framework/conversationId"]` used to read and write A's script
 * state, ride A's approvals and hold A's conversation busy, and A's conversation id embedded its
 * `Mcp-Session-Id`, sent to every observer and logged. Now a named conversation lives inside
 * the naming session (namespaced), and conversation ids are opaque: derived from nothing a
 * client can present.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectClient, serveFixtureHost } from '../serve/fixture-host.ts';

const meta = (conversationId: string) => ({ _meta: { 'agent-framework/conversationId': conversationId } });

test("a session naming another session's conversation gets its own, and no conversation id reveals a session id", async () => {
  const served = await serveFixtureHost({ rendezvousOf: 1 });
  const a = await connectClient(served.serving.url);
  const b = await connectClient(served.serving.url);
  try {
    // A keeps a secret in its default conversation and in one it names.
    const whoA = await a.client.callTool({ name: 'code_execution', arguments: { code: 'globalThis.secret = "A"; return await tools.rendezvous({})' } });
    const conversationA = (whoA.structuredContent as { value: string }).value;
    await a.client.callTool({ name: 'code_execution', arguments: { code: 'globalThis.secret = "A-work"; return 1' }, ...meta('work') });
    assert.ok(!conversationA.includes(a.transport.sessionId!), `conversation id ${conversationA} reveals the session id`);
    for (const e of served.events) {
      for (const id of [a.transport.sessionId!, b.transport.sessionId!]) assert.ok(!JSON.stringify(e).includes(id), 'an observer sees a session id');
    }
    // B names A's conversation, by its full id and by the name A used.
    for (const named of [conversationA, 'work']) {
      const read = await b.client.callTool({
        name: 'code_execution',
        arguments: { code: 'const seen = globalThis.secret; globalThis.secret = "B"; return { seen: seen ?? null, conv: await tools.rendezvous({}) }' },
        ...meta(named),
      });
      const value = (read.structuredContent as { value: { seen: string | null; conv: string } }).value;
      assert.equal(value.seen, null, `B read A's state through ${named}`);
      assert.notEqual(value.conv, conversationA);
    }
    // A's state is as A left it.
    const again = await a.client.callTool({ name: 'code_execution', arguments: { code: 'return globalThis.secret' } });
    assert.equal((again.structuredContent as { value: string }).value, 'A');
    const work = await a.client.callTool({ name: 'code_execution', arguments: { code: 'return globalThis.secret' }, ...meta('work') });
    assert.equal((work.structuredContent as { value: string }).value, 'A-work');
  } finally {
    await Promise.all([a.client.close(), b.client.close()]);
    await served.close();
  }
});

test("a session naming another session's conversation never reads or writes its Python state", async () => {
  const served = await serveFixtureHost({ rendezvousOf: 1, languages: ['javascript', 'python'] });
  const a = await connectClient(served.serving.url);
  const b = await connectClient(served.serving.url);
  const py = (code: string) => ({ name: 'code_execution', arguments: { code, language: 'python' } });
  const valueOf = (r: unknown) => (r as { structuredContent: { value: unknown } }).structuredContent.value;
  try {
    // A keeps a secret in its default conversation's interpreter and in one it names.
    const conversationA = valueOf(await a.client.callTool(py('secret = "A"\nawait tools.rendezvous({})'))) as string;
    assert.equal(typeof conversationA, 'string');
    await a.client.callTool({ ...py('secret = "A-work"\n1'), ...meta('work') });
    // B names A's conversation, by its full id and by the name A used, and writes where it reads.
    for (const named of [conversationA, 'work']) {
      const read = await b.client.callTool({ ...py('seen = globals().get("secret")\nsecret = "B"\n{"seen": seen, "conv": await tools.rendezvous({})}'), ...meta(named) });
      const value = valueOf(read) as { seen: string | null; conv: string };
      assert.ok(value, JSON.stringify(read));
      assert.equal(value.seen, null, `B read A's Python state through ${named}`);
      assert.notEqual(value.conv, conversationA);
    }
    // A's interpreters hold what A left in them.
    assert.equal(valueOf(await a.client.callTool(py('secret'))), 'A');
    assert.equal(valueOf(await a.client.callTool({ ...py('secret'), ...meta('work') })), 'A-work');
  } finally {
    await Promise.all([a.client.close(), b.client.close()]);
    await served.close();
  }
});
