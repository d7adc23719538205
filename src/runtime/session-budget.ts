/**
 * Which kept sessions go when their budget is exceeded: fair across tenants, least recently used
 * within. Used for the host's byte budget of QuickJS sessions between runs (kept VMs and parked
 * images: js/engines/quickjs/pool.ts) and for the cap on warm Python interpreters (each counted
 * as 1: src/code-execution/runners.ts).
 *
 * Tenants: a conversation's tenant is its id up to its first '/', else the whole id. `serve`
 * names a session's conversations `<session's conversation>/<name>` (src/serve/session.ts), so
 * each serve client is one tenant however many conversations it names. The rule: while the
 * sessions are over budget, the least recently used session among the tenants holding more
 * than an equal share (budget ÷ tenants holding sessions) goes. A tenant within its share loses
 * nothing while another is over its own: two hundred one-run conversations of one tenant evict
 * that tenant's own sessions, not another's kept one. A tenant alone may use the whole budget.
 */

/**
 * Default budget, in MiB: 256. A VM's memory is at most heapMb + 8 MiB (vm.mjs), 136 MiB at the
 * default heapMb, so one session at that size fits beside hundreds of ordinary ones (a fresh
 * session's parked image is ~0.4 MB, a few MB once used). Counted in sessions before (32 per
 * thread, up to 256 on a 4-core host), three fragmenting conversations held ~1 GiB.
 */
export const DEFAULT_SESSION_BUDGET_MB = 256;

/** The tenant a conversation belongs to: its id up to the first '/', else the whole id. */
export function tenantOf(conversation: string): string {
  const slash = conversation.indexOf('/');
  return slash < 0 ? conversation : conversation.slice(0, slash);
}

/** A session the budget may evict: its conversation, its cost (bytes, or 1) and when it last ran. */
export interface HeldSession {
  name: string;
  bytes: number;
  lastUsed: number;
  /** In use: it counts for its tenant and the total, but is never chosen. */
  pinned?: boolean;
}

/**
 * The sessions to evict so that the rest fit in `budget` bytes (see the file's header for the
 * rule), in the order they go. O(sessions × evictions); evictions are few per call since the
 * budget is enforced each time a session is kept.
 */
export function overBudget(held: readonly HeldSession[], budget: number): string[] {
  let total = 0;
  const perTenant = new Map<string, number>();
  for (const s of held) {
    total += s.bytes;
    const t = tenantOf(s.name);
    perTenant.set(t, (perTenant.get(t) ?? 0) + s.bytes);
  }
  const victims: string[] = [];
  const gone = new Set<HeldSession>();
  while (total > budget) {
    const share = budget / perTenant.size;
    let victim: HeldSession | undefined;
    for (const s of held) {
      if (s.pinned === true || gone.has(s) || perTenant.get(tenantOf(s.name))! <= share) continue;
      if (victim === undefined || s.lastUsed < victim.lastUsed) victim = s;
    }
    if (victim === undefined) break; // only sessions in use are left to the tenants over their share
    gone.add(victim);
    victims.push(victim.name);
    total -= victim.bytes;
    const t = tenantOf(victim.name);
    const left = perTenant.get(t)! - victim.bytes;
    if (left > 0) perTenant.set(t, left);
    else perTenant.delete(t);
  }
  return victims;
}
