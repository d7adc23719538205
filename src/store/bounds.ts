/**
 * What one durable run may put in the store, and how long it stays. Each bound is enforced where
 * it is named (journal.ts for a run's journal, the stores for their row count) and listed in
 * docs/security.md.
 */

/** Most inner calls one run's journal keeps; past it the run is not made durable (it waits in memory as without a store). */
export const MAX_JOURNAL_ENTRIES = 10_000;

/** Most bytes of one run's journal (results as JSON); past it the run is not made durable. */
export const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

/** Most paused runs one store holds at once, over all instances and clients; past it a pause stays in memory. */
export const MAX_STORED_RUNS = 10_000;

/** How long a paused run waits in the store for the client's answer (a person may answer tomorrow). */
export const DURABLE_RUN_TTL_MS = 24 * 60 * 60_000;

/**
 * Longest wait, at a pause, for the script's other calls already running to end so that their
 * results go into the journal; one still running then is journaled as in flight (its outcome
 * unknown: the resumed script gets an error for it, it is never run again).
 */
export const DURABLE_SETTLE_MS = 30_000;

/**
 * Most tools whose learned result shape one store keeps (each shape is already at most
 * MAX_LEARNED_SCHEMA_CHARS-bounded, code-execution/learned-shapes.ts); past it the tools saved
 * longest ago are dropped.
 */
export const MAX_STORED_SHAPE_TOOLS = 2_000;

/** Most characters of one stored shape; a longer row is neither saved nor loaded. */
export const MAX_STORED_SHAPE_CHARS = 64 * 1024;

/**
 * Most clock reads one run's journal keeps (Date.now / time.time and friends, 8 bytes each as
 * numbers, about 2 MB of JSON at most); past it the run is not made durable.
 */
export const MAX_CLOCK_READS = 100_000;

/** Most background-script rows one store holds (running and ended, over all instances); past it a script is kept only in its instance's memory. */
export const MAX_STORED_SCRIPTS = 10_000;

/**
 * Most bytes of one background script's stored result (its JSON); a larger result is stored as
 * a note saying it was kept only at the instance that ran it.
 */
export const MAX_STORED_SCRIPT_BYTES = 4 * 1024 * 1024;

/**
 * How long a running background script's row stays valid without its instance renewing it
 * (renewed every third of it); past it, another instance reports the script lost: 30 s.
 */
export const SCRIPT_LEASE_MS = 30_000;

/**
 * Most conversation-wide approval grants ("for this conversation") one conversation keeps in the
 * store, one row per tool: a grant past it is not stored (it holds for its own run only), and a
 * load reads at most this many rows.
 */
export const MAX_GRANTS_PER_CONVERSATION = 1_000;

/** Most grant rows one store holds, over all conversations and instances; past it a grant is not stored (it holds for its own run only). */
export const MAX_STORED_GRANTS = 100_000;

/**
 * Most characters of a stored grant's conversation id, tool name or granting call id; a grant
 * with a longer one is not stored (it holds for its own run only), and a longer row is not loaded.
 */
export const MAX_GRANT_KEY_CHARS = 1_024;

/**
 * How long a stored grant lasts unless revoked or its conversation ended: a week. Past it the
 * store forgets it (swept at the next grant write) and the tool is asked for again.
 */
export const STORED_GRANT_TTL_MS = 7 * 24 * 60 * 60_000;
