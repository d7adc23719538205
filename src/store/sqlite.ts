/**
 * The embedded store: one SQLite file (better-sqlite3 12, an optional peer loaded only when a
 * `sqlite:` store is configured). Several processes on one machine may share the file (WAL
 * mode); taking a run is one `UPDATE … WHERE state = 'paused'`, which SQLite serializes, so it
 * succeeds once. Statements are synchronous and small (one row, at most the journal bound of
 * bytes); a locked file is waited for at most {@link SQLITE_BUSY_TIMEOUT_MS}.
 */
import { createRequire } from 'node:module';
import { MAX_GRANTS_PER_CONVERSATION, MAX_STORED_GRANTS, MAX_STORED_RUNS, MAX_STORED_SCRIPTS, MAX_STORED_SHAPE_TOOLS } from './bounds.ts';
import { StoreConfigError, StoreFullError, type ClaimOutcome, type DurableStore, type StoredGrant, type StoredRun, type StoredScript } from './types.ts';

/** Longest wait for another process's write lock on the file before a statement fails. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

type Database = import('better-sqlite3').Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS toolcell_runs (
  id TEXT PRIMARY KEY,
  binding TEXT NOT NULL,
  data TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_shapes (
  tool TEXT PRIMARY KEY,
  shape TEXT NOT NULL,
  saved_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_scripts (
  id TEXT PRIMARY KEY,
  conversation TEXT NOT NULL,
  owner TEXT NOT NULL,
  state TEXT NOT NULL,
  data TEXT NOT NULL,
  lease_until INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_grants (
  conversation TEXT NOT NULL,
  tool TEXT NOT NULL,
  granted_at INTEGER NOT NULL,
  granted_for TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (conversation, tool)
)`;

/** Loads better-sqlite3, or says which package to install. */
function loadDriver(): typeof import('better-sqlite3') {
  const require = createRequire(import.meta.url);
  try {
    return require('better-sqlite3') as typeof import('better-sqlite3');
  } catch (error) {
    throw new StoreConfigError(`the SQLite store needs the package better-sqlite3 (12.x): npm install better-sqlite3@12 (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

export class SqliteStore implements DurableStore {
  readonly kind = 'sqlite';
  private readonly db: Database;

  /** Opens (creating when absent) the database file at `path`. */
  constructor(readonly path: string, private readonly maxRuns = MAX_STORED_RUNS, private readonly maxShapeTools = MAX_STORED_SHAPE_TOOLS, private readonly maxScripts = MAX_STORED_SCRIPTS, private readonly maxGrants = MAX_STORED_GRANTS, private readonly maxGrantsPerConversation = MAX_GRANTS_PER_CONVERSATION) {
    const Driver = loadDriver();
    this.db = new Driver(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  async putRun(run: StoredRun): Promise<void> {
    const now = Date.now();
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM toolcell_runs WHERE expires_at <= ?').run(now);
      const { n } = this.db.prepare("SELECT count(*) AS n FROM toolcell_runs WHERE state = 'paused'").get() as { n: number };
      if (n >= this.maxRuns) throw new StoreFullError(`the store holds ${n} paused runs already (its bound)`);
      this.db.prepare("INSERT INTO toolcell_runs (id, binding, data, state, created_at, expires_at) VALUES (?, ?, ?, 'paused', ?, ?)")
        .run(run.id, run.binding, run.data, now, run.expiresAt);
    }).immediate();
  }

  async claimRun(id: string, owner: string): Promise<ClaimOutcome> {
    const now = Date.now();
    const row = this.db.prepare("UPDATE toolcell_runs SET state = 'claimed', owner = ? WHERE id = ? AND state = 'paused' AND expires_at > ? RETURNING binding, data, expires_at")
      .get(owner, id, now) as { binding: string; data: string; expires_at: number } | undefined;
    if (row) return { claimed: true, run: { id, binding: row.binding, data: row.data, expiresAt: row.expires_at } };
    const seen = this.db.prepare('SELECT state, expires_at FROM toolcell_runs WHERE id = ?').get(id) as { state: string; expires_at: number } | undefined;
    if (!seen) return { claimed: false, reason: 'unknown' };
    return { claimed: false, reason: seen.state !== 'paused' ? 'taken' : 'expired' };
  }

  async deleteRun(id: string): Promise<void> {
    this.db.prepare('DELETE FROM toolcell_runs WHERE id = ?').run(id);
  }

  async countPaused(): Promise<number> {
    return (this.db.prepare("SELECT count(*) AS n FROM toolcell_runs WHERE state = 'paused'").get() as { n: number }).n;
  }

  /** At most the tool bound of rows, each at most MAX_STORED_SHAPE_CHARS (saveShapes): one bounded read. */
  async loadShapes(): Promise<Record<string, string>> {
    const rows = this.db.prepare('SELECT tool, shape FROM toolcell_shapes ORDER BY saved_at DESC, tool LIMIT ?').all(this.maxShapeTools) as { tool: string; shape: string }[];
    return Object.fromEntries(rows.map((r) => [r.tool, r.shape]));
  }

  async saveShapes(shapes: Record<string, string>): Promise<void> {
    const now = Date.now();
    this.db.transaction(() => {
      const put = this.db.prepare('INSERT INTO toolcell_shapes (tool, shape, saved_at) VALUES (?, ?, ?) ON CONFLICT (tool) DO UPDATE SET shape = excluded.shape, saved_at = excluded.saved_at');
      for (const [tool, shape] of Object.entries(shapes)) put.run(tool, shape, now);
      this.db.prepare('DELETE FROM toolcell_shapes WHERE tool NOT IN (SELECT tool FROM toolcell_shapes ORDER BY saved_at DESC, tool LIMIT ?)').run(this.maxShapeTools);
    }).immediate();
  }

  async putScript(script: StoredScript): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM toolcell_scripts WHERE expires_at <= ?').run(Date.now());
      const exists = this.db.prepare('SELECT 1 FROM toolcell_scripts WHERE id = ?').get(script.id) !== undefined;
      const { n } = this.db.prepare('SELECT count(*) AS n FROM toolcell_scripts').get() as { n: number };
      if (!exists && n >= this.maxScripts) throw new StoreFullError(`the store holds ${n} background scripts already (its bound)`);
      this.db.prepare('INSERT INTO toolcell_scripts (id, conversation, owner, state, data, lease_until, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET conversation = excluded.conversation, owner = excluded.owner, state = excluded.state, data = excluded.data, lease_until = excluded.lease_until, expires_at = excluded.expires_at')
        .run(script.id, script.conversation, script.owner, script.state, script.data, script.leaseUntil, script.expiresAt);
    }).immediate();
  }

  async renewScripts(owner: string, leaseUntil: number, expiresAt: number): Promise<string[]> {
    const rows = this.db.prepare("UPDATE toolcell_scripts SET lease_until = ?, expires_at = ? WHERE owner = ? AND state = 'running' RETURNING id").all(leaseUntil, expiresAt, owner) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async replaceRunningScript(script: StoredScript): Promise<boolean> {
    const { changes } = this.db.prepare("UPDATE toolcell_scripts SET owner = ?, state = ?, data = ?, lease_until = ?, expires_at = ? WHERE id = ? AND conversation = ? AND state = 'running' AND expires_at > ?")
      .run(script.owner, script.state, script.data, script.leaseUntil, script.expiresAt, script.id, script.conversation, Date.now());
    return changes === 1;
  }

  async getScript(id: string): Promise<StoredScript | undefined> {
    const row = this.db.prepare('SELECT conversation, owner, state, data, lease_until, expires_at FROM toolcell_scripts WHERE id = ? AND expires_at > ?').get(id, Date.now()) as
      { conversation: string; owner: string; state: StoredScript['state']; data: string; lease_until: number; expires_at: number } | undefined;
    return row && { id, conversation: row.conversation, owner: row.owner, state: row.state, data: row.data, leaseUntil: row.lease_until, expiresAt: row.expires_at };
  }

  async deleteScript(id: string): Promise<void> {
    this.db.prepare('DELETE FROM toolcell_scripts WHERE id = ?').run(id);
  }

  async putGrants(conversation: string, grants: readonly Omit<StoredGrant, 'conversation'>[]): Promise<void> {
    if (grants.length === 0) return;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM toolcell_grants WHERE expires_at <= ?').run(Date.now());
      const exists = this.db.prepare('SELECT 1 FROM toolcell_grants WHERE conversation = ? AND tool = ?');
      const added = new Set(grants.map((g) => g.tool).filter((tool) => exists.get(conversation, tool) === undefined)).size;
      const { mine } = this.db.prepare('SELECT count(*) AS mine FROM toolcell_grants WHERE conversation = ?').get(conversation) as { mine: number };
      if (mine + added > this.maxGrantsPerConversation) throw new StoreFullError(`the conversation holds ${mine} grants already (its bound)`);
      const { n } = this.db.prepare('SELECT count(*) AS n FROM toolcell_grants').get() as { n: number };
      if (n + added > this.maxGrants) throw new StoreFullError(`the store holds ${n} grants already (its bound)`);
      const put = this.db.prepare('INSERT INTO toolcell_grants (conversation, tool, granted_at, granted_for, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation, tool) DO UPDATE SET granted_at = excluded.granted_at, granted_for = excluded.granted_for, expires_at = excluded.expires_at');
      for (const grant of grants) put.run(conversation, grant.tool, grant.grantedAt, grant.grantedFor, grant.expiresAt);
    }).immediate();
  }

  async loadGrants(conversation: string): Promise<StoredGrant[]> {
    const rows = this.db.prepare('SELECT tool, granted_at, granted_for, expires_at FROM toolcell_grants WHERE conversation = ? AND expires_at > ? ORDER BY granted_at, tool LIMIT ?')
      .all(conversation, Date.now(), this.maxGrantsPerConversation) as { tool: string; granted_at: number; granted_for: string; expires_at: number }[];
    return rows.map((r) => ({ conversation, tool: r.tool, grantedAt: r.granted_at, grantedFor: r.granted_for, expiresAt: r.expires_at }));
  }

  async deleteGrants(conversation: string, tool?: string): Promise<number> {
    const { changes } = tool === undefined
      ? this.db.prepare('DELETE FROM toolcell_grants WHERE conversation = ?').run(conversation)
      : this.db.prepare('DELETE FROM toolcell_grants WHERE conversation = ? AND tool = ?').run(conversation, tool);
    return changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
