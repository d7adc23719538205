/**
 * The identity walk (src/host/identity-walk.ts) that listings and code_execution's description
 * use to find what changed in a list of tools (issue 46 item 5): pinned by counting work, not
 * by a clock — each change costs lookups in proportion to its size, never to the list's, and
 * the values, added and dropped items are those a build from nothing would give.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdentityWalk } from '../../src/host/identity-walk.ts';

interface Item {
  id: number;
}

function walkOf() {
  const walk = new IdentityWalk<Item, string>((item) => `v${item.id}`);
  const build = (items: readonly Item[]) => {
    const { values, added, dropped } = walk.build(items);
    assert.deepEqual(values, items.map((i) => `v${i.id}`));
    return { added: [...added].sort(), dropped: [...dropped].sort(), work: walk.lastWork };
  };
  return { walk, build };
}

test('one change to 10,000 items costs a few lookups, and says what changed', () => {
  const { walk, build } = walkOf();
  const items = Array.from({ length: 10_000 }, (_, id) => ({ id }));
  assert.equal(build(items).work, 10_000);
  assert.equal(walk.derived, 10_000);
  // The list is changed in place: the walk compares with what it saw, not with the array.
  items.push({ id: 10_000 });
  assert.deepEqual(build(items), { added: ['v10000'], dropped: [], work: 1 });
  const [removed] = items.splice(5_000, 1);
  assert.deepEqual(build(items), { added: [], dropped: [`v${removed!.id}`], work: 2 });
  items[42] = { id: 20_000 };
  assert.deepEqual(build(items), { added: ['v20000'], dropped: ['v42'], work: 3 });
  // A copy with nothing changed: no lookup at all.
  assert.deepEqual(build([...items]), { added: [], dropped: [], work: 0 });
  assert.equal(walk.derived, 10_002);
});

test('a removed run of items, one back after an absence, a reorder and a duplicate all come out right', () => {
  const { walk, build } = walkOf();
  const items = Array.from({ length: 50 }, (_, id) => ({ id }));
  build(items);
  const gone = items.splice(10, 20);
  assert.deepEqual(build(items), { added: [], dropped: gone.map((i) => `v${i.id}`).sort(), work: 21 });
  // Back after an absence: added again, not derived again.
  items.push(gone[0]!);
  assert.deepEqual(build(items), { added: ['v10'], dropped: [], work: 1 });
  assert.equal(walk.derived, 50);
  // Reversed: every item is looked up (nothing is where it was), none added or dropped.
  const reversed = [...items].reverse();
  const reorder = build(reversed);
  assert.deepEqual([reorder.added, reorder.dropped], [[], []]);
  // The same object twice is one item seen twice: neither added nor dropped.
  assert.deepEqual(build([...reversed, reversed[0]!]), { added: [], dropped: [], work: 1 });
  assert.equal(build([]).dropped.length, 31);
});
