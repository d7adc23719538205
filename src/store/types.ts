/**
 * The one interface between the host and its store: paused runs (a `code_execution` run waiting
 * for a person's answer, with the journal it needs to continue by replay), each taken at most
 * once. Implementations: memory.ts (tests, one process), sqlite.ts (one machine), postgres.ts
 * (several hosts on one database). What a row holds is opaque text here (journal.ts writes and
 * checks it), so a store never interprets a run and the run's format never depends on the store.
 */

/** A run waiting for a person, as the store keeps it. */
export interface StoredRun {
  /** The key the client resumes it by (serve: the `requestState` it handed out). */
  id: string;
  /**
   * What the resuming request must repeat (serve: the request's method and params, canonical):
   * the run continues only for the very request that was paused.
   */
  binding: string;
  /** The run record (journal.ts), as JSON text. */
  data: string;
  /** `Date.now()` past which the run can no longer be taken. */
  expiresAt: number;
}

/**
 * A background script as the store keeps it (code-execution/background/stored.ts): written when
 * its call answers `running`, its lease renewed by the instance running it, its outcome written
 * when it ends, so `wait`/`status` at another instance (same conversation) can answer.
 */
export interface StoredScript {
  /** Its `scriptId`. */
  id: string;
  /** The conversation that started it: only a lookup from that conversation may read the row. */
  conversation: string;
  /** The instance running it (`hostname/pid/random`). */
  owner: string;
  /** `running`, or how it ended. */
  state: 'running' | 'completed' | 'cancelled';
  /** Running: its time limit, as JSON; ended: its result (a ToolResult), as JSON. */
  data: string;
  /** `Date.now()` past which a running script whose owner did not renew the lease is reported lost. */
  leaseUntil: number;
  /** `Date.now()` past which the row is swept. */
  expiresAt: number;
}

/**
 * A conversation-wide approval grant as the store keeps it (code-execution/stored-grants.ts): one
 * row per conversation and tool, so that every instance sharing the store honours it, and a
 * revoke at any of them ends it for all.
 */
export interface StoredGrant {
  /** The conversation it was granted in: only a load for that conversation reads it. */
  conversation: string;
  /** The tool it approves. */
  tool: string;
  /** `Date.now()` when it was granted. */
  grantedAt: number;
  /** The `code_execution` call whose up-front request granted it. */
  grantedFor: string;
  /** `Date.now()` past which it no longer holds (and is swept). */
  expiresAt: number;
}

/**
 * Taking a run: `claimed` hands it out once — the compare-and-set from `paused` to `claimed`
 * succeeds for one caller only, whichever instance it runs in. Otherwise why not: never stored
 * (or deleted), already taken, or expired.
 */
export type ClaimOutcome =
  | { claimed: true; run: StoredRun }
  | { claimed: false; reason: 'unknown' | 'taken' | 'expired' };

/** A store of paused runs. Every method is bounded in time by its implementation (see each file). */
export interface DurableStore {
  /** `memory`, `sqlite` or `postgres`. */
  readonly kind: string;
  /**
   * Stores a paused run. Throws {@link StoreFullError} when the store holds
   * {@link import('./bounds.ts').MAX_STORED_RUNS} paused runs already, and on a duplicate id.
   * Expired rows are swept first.
   */
  putRun(run: StoredRun): Promise<void>;
  /**
   * Takes the run `id` for `owner` (an instance's name, for the record): succeeds at most once
   * over every instance sharing the store.
   */
  claimRun(id: string, owner: string): Promise<ClaimOutcome>;
  /** Forgets the run `id` (taken and finished, or refused); no error when it is not there. */
  deleteRun(id: string): Promise<void>;
  /** How many runs wait now (tests, bounds). */
  countPaused(): Promise<number>;
  /**
   * The learned result shapes (code-execution/learned-shapes.ts) saved so far, by tool: opaque
   * JSON text of a shape (never a value), at most {@link import('./bounds.ts').MAX_STORED_SHAPE_TOOLS} tools.
   */
  loadShapes(): Promise<Record<string, string>>;
  /**
   * Saves (replaces) the shapes of the tools given, in one write; past the tool bound the tools
   * saved longest ago are dropped.
   */
  saveShapes(shapes: Record<string, string>): Promise<void>;
  /**
   * Writes (inserts or replaces) a background script's row. Expired rows are swept first; throws
   * {@link StoreFullError} when a new row would pass {@link import('./bounds.ts').MAX_STORED_SCRIPTS}.
   */
  putScript(script: StoredScript): Promise<void>;
  /**
   * Extends the lease (and expiry) of every running script of `owner`, in one statement, and
   * returns the ids it renewed: a row of `owner` missing from them is no longer running (another
   * instance cancelled it, {@link DurableStore.replaceRunningScript}) or is gone.
   */
  renewScripts(owner: string, leaseUntil: number, expiresAt: number): Promise<string[]>;
  /**
   * Replaces the row `script.id` only while it is `running` and belongs to `script.conversation`
   * (one compare-and-set, whichever instance writes): returns whether it did. The first end
   * wins: once a row ended (its own instance's outcome, or another instance's cancel), no later
   * write through this method changes it.
   */
  replaceRunningScript(script: StoredScript): Promise<boolean>;
  /** The row of script `id`, if stored and not expired. */
  getScript(id: string): Promise<StoredScript | undefined>;
  /** Forgets script `id`; no error when it is not there. */
  deleteScript(id: string): Promise<void>;
  /**
   * Writes (inserts or replaces) grants of `conversation`, all or none. Expired rows are swept
   * first; throws {@link StoreFullError} when the new rows would pass
   * {@link import('./bounds.ts').MAX_GRANTS_PER_CONVERSATION} for the conversation or
   * {@link import('./bounds.ts').MAX_STORED_GRANTS} for the store.
   */
  putGrants(conversation: string, grants: readonly Omit<StoredGrant, 'conversation'>[]): Promise<void>;
  /**
   * The unexpired grants of `conversation` (and of no other), oldest first, at most
   * {@link import('./bounds.ts').MAX_GRANTS_PER_CONVERSATION}: one bounded read.
   */
  loadGrants(conversation: string): Promise<StoredGrant[]>;
  /** Deletes the grant of `tool` in `conversation`, or all of the conversation's without `tool`; returns how many rows went. */
  deleteGrants(conversation: string, tool?: string): Promise<number>;
  /** Releases the file or the connection pool. */
  close(): Promise<void>;
}

/** The store holds as many paused runs as it may: the run waits in memory instead (not durably). */
export class StoreFullError extends Error {
  override readonly name = 'StoreFullError';
}

/** The store's package is not installed, or its URL is not one toolcell knows. */
export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
}
