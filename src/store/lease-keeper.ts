/**
 * The lease of the `toolcell_scripts` rows this process runs (background scripts, 2026 tasks;
 * docs/durable.md) and the order of each row's writes. All {@link Lease}s of one store object
 * with the same terms share one owner name, one timer and one renewal statement every third of
 * the lease ({@link import('./bounds.ts').SCRIPT_LEASE_MS}); other terms get their own, since
 * the statement gives every row of an owner one expiry. A held id the statement did not renew
 * (it returns the ids it renewed) was ended elsewhere or is gone: its `missing` callback decides.
 * Writes of one id are chained, so a row's end is never overwritten by an earlier status; a
 * failed write or renewal is logged, never thrown.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DurableStore, StoredScript } from './types.ts';

/** One owner, its leases and its renewal timer. */
interface Keeper {
  owner: string;
  leases: Set<Lease>;
  timer?: NodeJS.Timeout | undefined;
  renewing: boolean;
}

/** Keepers by store object, then by `leaseMs/keepMs`. */
const keepers = new WeakMap<DurableStore, Map<string, Keeper>>();

/** One holder's share of its store's keeper: the ids it holds and its chained writes. */
export class Lease {
  /** This process, as the rows name their owner (`host/pid/random`, shared by the keeper's leases). */
  readonly owner: string;
  private readonly keeper: Keeper;
  private readonly held = new Map<string, ((id: string) => Promise<void>) | undefined>();
  private readonly chains = new Map<string, Promise<boolean>>();

  /** `leaseMs`: what a renewal gives; `keepMs`: how long past its lease a running row is kept (a lost row is readable that long). */
  constructor(private readonly store: DurableStore, private readonly leaseMs: number, private readonly keepMs: number, private readonly logger: Logger, private readonly label: string) {
    const byTerms = keepers.get(store) ?? new Map<string, Keeper>();
    keepers.set(store, byTerms);
    this.keeper = byTerms.get(`${leaseMs}/${keepMs}`) ?? { owner: instanceOwner(), leases: new Set(), renewing: false };
    byTerms.set(`${leaseMs}/${keepMs}`, this.keeper);
    this.keeper.leases.add(this);
    this.owner = this.keeper.owner;
  }

  /** The lease and expiry of a running row written now. */
  until(now = Date.now()): { leaseUntil: number; expiresAt: number } {
    return { leaseUntil: now + this.leaseMs, expiresAt: now + this.leaseMs + this.keepMs };
  }

  /** Renews `id` from now on; `missing` runs when a renewal did not find it running. */
  hold(id: string, missing?: (id: string) => Promise<void>): void {
    this.held.set(id, missing);
    this.tick();
  }

  /** Stops renewing `id` (it ended, or is parked). */
  release(id: string): void {
    if (this.held.delete(id)) this.tick();
  }

  /** Runs `step` after `id`'s earlier writes; resolves false when it returned false or failed (logged). */
  write(id: string, step: () => Promise<boolean | void>): Promise<boolean> {
    const next = (this.chains.get(id) ?? Promise.resolve(true)).then(step).then((done) => done !== false, (error: unknown) => {
      this.logger.warn({ err: error, store: this.store.kind, id }, `${this.label}: the store could not be written; it is answerable only at this instance`);
      return false;
    });
    this.chains.set(id, next);
    void next.then(() => this.chains.get(id) === next && this.chains.delete(id));
    return next;
  }

  /** Stops renewing this lease's ids and waits for its pending writes (the store closes after). */
  async close(): Promise<void> {
    this.held.clear();
    this.tick();
    this.keeper.leases.delete(this);
    await Promise.all(this.chains.values());
  }

  /** Runs the keeper's timer while any of its leases holds an id, and only then. */
  private tick(): void {
    const keeper = this.keeper;
    if (![...keeper.leases].some((lease) => lease.held.size > 0)) {
      clearInterval(keeper.timer);
      keeper.timer = undefined;
    } else if (keeper.timer === undefined) {
      keeper.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
      keeper.timer.unref();
    }
  }

  /** One statement for every running row of the owner; then each lease's held ids it did not renew. */
  private async renew(): Promise<void> {
    const keeper = this.keeper;
    if (keeper.renewing) return;
    keeper.renewing = true;
    // Only ids held before the statement: one held since may be missing from it without having ended.
    const checked = [...keeper.leases].filter((lease) => lease.held.size > 0).map((lease) => [lease, [...lease.held.keys()]] as const);
    try {
      const { leaseUntil, expiresAt } = this.until();
      const renewed = new Set(await this.store.renewScripts(keeper.owner, leaseUntil, expiresAt));
      for (const [lease, ids] of checked) for (const id of ids) if (!renewed.has(id)) await lease.held.get(id)?.(id);
    } catch (error) {
      for (const [lease] of checked) lease.logger.warn({ err: error, store: this.store.kind }, `${lease.label}: the lease could not be renewed; other instances may report them lost`);
    } finally {
      keeper.renewing = false;
    }
  }
}

/** Whether a running row's instance stopped: its lease ran out, or its process on this machine is gone. */
export function leaseLost(row: StoredScript): boolean {
  return row.leaseUntil <= Date.now() || ownerGone(row.owner);
}

/** A name for rows this process owns (`host/pid/random`): what {@link ownerGone} reads back. */
export function instanceOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(6).toString('base64url')}`;
}

/**
 * Whether a row's owner (named by {@link instanceOwner}) is a process of this machine that no
 * longer exists (restart in place); another machine's owner is judged by its lease only.
 */
export function ownerGone(owner: string): boolean {
  const [host, pid] = owner.split('/');
  const n = Number(pid);
  if (host !== hostname() || !Number.isSafeInteger(n) || n <= 0 || n === process.pid) return false;
  try {
    process.kill(n, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH says it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
