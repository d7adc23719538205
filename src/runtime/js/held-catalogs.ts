/**
 * Which tool catalogs (binding plans, see src/runtime/catalog.ts) one sandbox process holds,
 * as the host has told it: a run of a catalog the process holds is sent its id alone. The host
 * decides what the process keeps — a few catalogs, least recently used dropped, named in the
 * next run frame as `forget` — so the two never disagree and the process's memory stays bounded.
 */

/** Catalogs a process keeps at most: registry versions in use at once, times the languages. */
const MAX_HELD = 8;

export class HeldCatalogs {
  /** Least recently used first. */
  private readonly held = new Set<number>();

  /** For a run of catalog `id`: whether its frame must carry the catalog, and what the process may drop. */
  use(id: number): { send: boolean; forget: number[] } {
    const send = !this.held.delete(id);
    this.held.add(id);
    const forget: number[] = [];
    for (const old of this.held) {
      if (this.held.size <= MAX_HELD) break;
      this.held.delete(old);
      forget.push(old);
    }
    return { send, forget };
  }
}
