/**
 * Per-item values derived from a list of objects that changes a little at a time (the host's
 * tools: one added, one server re-listed), kept from one build to the next so that a build
 * derives and looks up only what changed (issue 46 item 5).
 *
 * A build walks the new list beside the previous one, comparing objects by identity: an item
 * that sits where the walk expects it takes its value from the previous build with no hashing
 * at all. Only an item that is not where expected is looked up by object (a WeakMap), and only
 * one never seen is derived. Previous items the walk skipped over are checked once to report
 * them as dropped. So after one tool is added to 10,000, a build costs one derivation, a
 * handful of lookups and one pass of identity comparisons (~0.1 ms), where a WeakMap lookup
 * per tool cost ~0.5 ms and each of the ten or so such passes a listing made added up to a
 * 20–50 ms step of the event loop.
 *
 * Held weakly: an item that is gone from every list leaves with its value.
 */

/** One item's kept value and where the previous build saw it. */
interface Slot<K, V> {
  /** The item itself: the walk compares against the previous build's items (a caller may have changed its array in place since). */
  readonly item: K;
  value: V;
  /** Index in the build that last saw it (-2 once reported dropped). */
  at: number;
  /** That build's number. */
  seen: number;
}

/** What one {@link IdentityWalk.build} returns. */
export interface WalkResult<V> {
  /** One value per item, in the list's order. */
  readonly values: V[];
  /** Values of items that were not in the previous build (new, or back after an absence). */
  readonly added: V[];
  /** Values of items of the previous build that are not in this one. */
  readonly dropped: V[];
}

export class IdentityWalk<K extends object, V> {
  private readonly slots = new WeakMap<K, Slot<K, V>>();
  private kept: Slot<K, V>[] = [];
  private builds = 0;
  /**
   * The previous build's work beyond the identity comparisons: items looked up by object or
   * derived, and skipped previous items checked. Tests pin that it follows the size of the
   * change, not of the list.
   */
  lastWork = 0;
  /** Items derived anew since this walk was made. */
  derived = 0;

  constructor(private readonly derive: (item: K) => V) {}

  /** The values for `items`, derived only for items never seen before. */
  build(items: readonly K[]): WalkResult<V> {
    const build = ++this.builds;
    const prevSlots = this.kept;
    const values = new Array<V>(items.length);
    const slots = new Array<Slot<K, V>>(items.length);
    const added: V[] = [];
    // Previous slots the walk jumped over or never reached: the only ones that can have left.
    const skipped: Slot<K, V>[] = [];
    let work = 0;
    let j = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      let slot: Slot<K, V> | undefined;
      if (j < prevSlots.length && prevSlots[j]!.item === item) {
        slot = prevSlots[j++]!;
      } else {
        work += 1;
        slot = this.slots.get(item);
        if (slot === undefined) {
          slot = { item, value: this.derive(item), at: -1, seen: 0 };
          this.slots.set(item, slot);
          this.derived += 1;
          added.push(slot.value);
        } else if (slot.seen < build - 1) {
          added.push(slot.value);
        } else if (slot.seen === build - 1 && slot.at >= j) {
          // Seen last time further on: the items in between were removed (or moved later).
          for (let k = j; k < slot.at; k++) skipped.push(prevSlots[k]!);
          j = slot.at + 1;
        }
      }
      slot.at = i;
      slot.seen = build;
      values[i] = slot.value;
      slots[i] = slot;
    }
    for (let k = j; k < prevSlots.length; k++) skipped.push(prevSlots[k]!);
    const dropped: V[] = [];
    for (const slot of skipped) {
      // `at` -2: reported already (an item listed twice last time is skipped twice).
      if (slot.seen === build || slot.at === -2) continue;
      dropped.push(slot.value);
      slot.at = -2;
    }
    this.lastWork = work + skipped.length;
    this.kept = slots;
    return { values, added, dropped };
  }
}
