/**
 * The shared store: a PostgreSQL database (`pg` 8, an optional peer loaded only when a
 * `postgres://` store is configured), for several `toolcell serve` instances behind one load
 * balancer. Taking a run is one `UPDATE … WHERE state = 'paused' RETURNING`: PostgreSQL's row
 * lock makes it succeed for one instance only. Bounded: at most {@link PG_POOL_SIZE}
 * connections, {@link PG_CONNECT_TIMEOUT_MS} to connect, {@link PG_STATEMENT_TIMEOUT_MS} per
 * statement.
 */
import { createRequire } from 'node:module';
import { MAX_GRANTS_PER_CONVERSATION, MAX_STORED_GRANTS, MAX_STORED_RUNS, MAX_STORED_SCRIPTS, MAX_STORED_SHAPE_TOOLS } from './bounds.ts';
import { StoreConfigError, StoreFullError, type ClaimOutcome, type DurableStore, type StoredGrant, type StoredRun, type StoredScript } from './types.ts';

/** Connections one instance opens to the database at most. */
export const PG_POOL_SIZE = 4;
/** Longest wait for a connection. */
export const PG_CONNECT_TIMEOUT_MS = 10_000;
/** Longest a statement may run before the server cancels it. */
export const PG_STATEMENT_TIMEOUT_MS = 10_000;

type Pool = import('pg').Pool;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS toolcell_runs (
  id TEXT PRIMARY KEY,
  binding TEXT NOT NULL,
  data TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_shapes (
  tool TEXT PRIMARY KEY,
  shape TEXT NOT NULL,
  saved_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_scripts (
  id TEXT PRIMARY KEY,
  conversation TEXT NOT NULL,
  owner TEXT NOT NULL,
  state TEXT NOT NULL,
  data TEXT NOT NULL,
  lease_until BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolcell_grants (
  conversation TEXT NOT NULL,
  tool TEXT NOT NULL,
  granted_at BIGINT NOT NULL,
  granted_for TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (conversation, tool)
)`;

function loadDriver(): typeof import('pg') {
  const require = createRequire(import.meta.url);
  try {
    return require('pg') as typeof import('pg');
  } catch (error) {
    throw new StoreConfigError(`the PostgreSQL store needs the package pg (8.x): npm install pg@8 (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

export class PostgresStore implements DurableStore {
  readonly kind = 'postgres';
  private readonly pool: Pool;
  private ready: Promise<void> | undefined;

  /** `url`: a `postgres://` connection string (its password, if any, stays in this process). */
  constructor(url: string, private readonly maxRuns = MAX_STORED_RUNS, private readonly maxShapeTools = MAX_STORED_SHAPE_TOOLS, private readonly maxScripts = MAX_STORED_SCRIPTS, private readonly maxGrants = MAX_STORED_GRANTS, private readonly maxGrantsPerConversation = MAX_GRANTS_PER_CONVERSATION) {
    const pg = loadDriver();
    this.pool = new pg.Pool({
      connectionString: url,
      max: PG_POOL_SIZE,
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      statement_timeout: PG_STATEMENT_TIMEOUT_MS,
      application_name: 'toolcell',
    });
    // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** Creates the table once (concurrent instances: IF NOT EXISTS, retried once on the race). */
  private schema(): Promise<void> {
    this.ready ??= this.pool.query(SCHEMA).then(() => undefined, async () => {
      await this.pool.query(SCHEMA);
    });
    return this.ready;
  }

  async putRun(run: StoredRun): Promise<void> {
    await this.schema();
    await this.transaction(async (client) => {
      const now = Date.now();
      await client.query('DELETE FROM toolcell_runs WHERE expires_at <= $1', [now]);
      // One writer at a time counts and inserts, so the bound holds across instances.
      await client.query('LOCK TABLE toolcell_runs IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM toolcell_runs WHERE state = 'paused'");
      const n = Number(rows[0]!.n);
      if (n >= this.maxRuns) throw new StoreFullError(`the store holds ${n} paused runs already (its bound)`);
      await client.query("INSERT INTO toolcell_runs (id, binding, data, state, created_at, expires_at) VALUES ($1, $2, $3, 'paused', $4, $5)", [run.id, run.binding, run.data, now, run.expiresAt]);
    });
  }

  async claimRun(id: string, owner: string): Promise<ClaimOutcome> {
    await this.schema();
    const { rows } = await this.pool.query<{ binding: string; data: string; expires_at: string }>(
      "UPDATE toolcell_runs SET state = 'claimed', owner = $1 WHERE id = $2 AND state = 'paused' AND expires_at > $3 RETURNING binding, data, expires_at",
      [owner, id, Date.now()],
    );
    const row = rows[0];
    if (row) return { claimed: true, run: { id, binding: row.binding, data: row.data, expiresAt: Number(row.expires_at) } };
    const seen = await this.pool.query<{ state: string }>('SELECT state FROM toolcell_runs WHERE id = $1', [id]);
    if (seen.rows.length === 0) return { claimed: false, reason: 'unknown' };
    return { claimed: false, reason: seen.rows[0]!.state !== 'paused' ? 'taken' : 'expired' };
  }

  async deleteRun(id: string): Promise<void> {
    await this.schema();
    await this.pool.query('DELETE FROM toolcell_runs WHERE id = $1', [id]);
  }

  async countPaused(): Promise<number> {
    await this.schema();
    const { rows } = await this.pool.query<{ n: string }>("SELECT count(*) AS n FROM toolcell_runs WHERE state = 'paused'");
    return Number(rows[0]!.n);
  }

  async loadShapes(): Promise<Record<string, string>> {
    await this.schema();
    const { rows } = await this.pool.query<{ tool: string; shape: string }>('SELECT tool, shape FROM toolcell_shapes ORDER BY saved_at DESC, tool LIMIT $1', [this.maxShapeTools]);
    return Object.fromEntries(rows.map((r) => [r.tool, r.shape]));
  }

  async saveShapes(shapes: Record<string, string>): Promise<void> {
    await this.schema();
    const entries = Object.entries(shapes);
    if (entries.length === 0) return;
    await this.transaction(async (client) => {
      const now = Date.now();
      await client.query(
        'INSERT INTO toolcell_shapes (tool, shape, saved_at) SELECT * FROM unnest($1::text[], $2::text[], array_fill($3::bigint, ARRAY[$4::int])) ON CONFLICT (tool) DO UPDATE SET shape = excluded.shape, saved_at = excluded.saved_at',
        [entries.map(([t]) => t), entries.map(([, s]) => s), now, entries.length],
      );
      await client.query('DELETE FROM toolcell_shapes WHERE tool NOT IN (SELECT tool FROM toolcell_shapes ORDER BY saved_at DESC, tool LIMIT $1)', [this.maxShapeTools]);
    });
  }

  async putScript(script: StoredScript): Promise<void> {
    await this.schema();
    await this.transaction(async (client) => {
      await client.query('DELETE FROM toolcell_scripts WHERE expires_at <= $1', [Date.now()]);
      // One writer at a time counts and inserts, so the bound holds across instances.
      await client.query('LOCK TABLE toolcell_scripts IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ n: string; mine: string }>('SELECT count(*) AS n, count(*) FILTER (WHERE id = $1) AS mine FROM toolcell_scripts', [script.id]);
      const n = Number(rows[0]!.n);
      if (Number(rows[0]!.mine) === 0 && n >= this.maxScripts) throw new StoreFullError(`the store holds ${n} background scripts already (its bound)`);
      await client.query(
        'INSERT INTO toolcell_scripts (id, conversation, owner, state, data, lease_until, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO UPDATE SET conversation = excluded.conversation, owner = excluded.owner, state = excluded.state, data = excluded.data, lease_until = excluded.lease_until, expires_at = excluded.expires_at',
        [script.id, script.conversation, script.owner, script.state, script.data, script.leaseUntil, script.expiresAt],
      );
    });
  }

  async renewScripts(owner: string, leaseUntil: number, expiresAt: number): Promise<string[]> {
    await this.schema();
    const { rows } = await this.pool.query<{ id: string }>("UPDATE toolcell_scripts SET lease_until = $1, expires_at = $2 WHERE owner = $3 AND state = 'running' RETURNING id", [leaseUntil, expiresAt, owner]);
    return rows.map((r) => r.id);
  }

  async replaceRunningScript(script: StoredScript): Promise<boolean> {
    await this.schema();
    // One statement: the row's lock makes the state test and the write one step across instances.
    const { rowCount } = await this.pool.query(
      "UPDATE toolcell_scripts SET owner = $1, state = $2, data = $3, lease_until = $4, expires_at = $5 WHERE id = $6 AND conversation = $7 AND state = 'running' AND expires_at > $8",
      [script.owner, script.state, script.data, script.leaseUntil, script.expiresAt, script.id, script.conversation, Date.now()],
    );
    return rowCount === 1;
  }

  async getScript(id: string): Promise<StoredScript | undefined> {
    await this.schema();
    const { rows } = await this.pool.query<{ conversation: string; owner: string; state: StoredScript['state']; data: string; lease_until: string; expires_at: string }>(
      'SELECT conversation, owner, state, data, lease_until, expires_at FROM toolcell_scripts WHERE id = $1 AND expires_at > $2',
      [id, Date.now()],
    );
    const row = rows[0];
    return row && { id, conversation: row.conversation, owner: row.owner, state: row.state, data: row.data, leaseUntil: Number(row.lease_until), expiresAt: Number(row.expires_at) };
  }

  async deleteScript(id: string): Promise<void> {
    await this.schema();
    await this.pool.query('DELETE FROM toolcell_scripts WHERE id = $1', [id]);
  }

  async putGrants(conversation: string, grants: readonly Omit<StoredGrant, 'conversation'>[]): Promise<void> {
    await this.schema();
    // One row per tool (the last one given): a statement may not write the same row twice.
    const byTool = [...new Map(grants.map((g) => [g.tool, g])).values()];
    if (byTool.length === 0) return;
    await this.transaction(async (client) => {
      await client.query('DELETE FROM toolcell_grants WHERE expires_at <= $1', [Date.now()]);
      // One writer at a time counts and writes, so both bounds hold across instances.
      await client.query('LOCK TABLE toolcell_grants IN SHARE ROW EXCLUSIVE MODE');
      const tools = byTool.map((g) => g.tool);
      const { rows } = await client.query<{ n: string; mine: string; present: string }>(
        'SELECT count(*) AS n, count(*) FILTER (WHERE conversation = $1) AS mine, count(*) FILTER (WHERE conversation = $1 AND tool = ANY($2::text[])) AS present FROM toolcell_grants',
        [conversation, tools],
      );
      const added = tools.length - Number(rows[0]!.present);
      const mine = Number(rows[0]!.mine);
      const n = Number(rows[0]!.n);
      if (mine + added > this.maxGrantsPerConversation) throw new StoreFullError(`the conversation holds ${mine} grants already (its bound)`);
      if (n + added > this.maxGrants) throw new StoreFullError(`the store holds ${n} grants already (its bound)`);
      await client.query(
        'INSERT INTO toolcell_grants (conversation, tool, granted_at, granted_for, expires_at) SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[]) ON CONFLICT (conversation, tool) DO UPDATE SET granted_at = excluded.granted_at, granted_for = excluded.granted_for, expires_at = excluded.expires_at',
        [conversation, tools, byTool.map((g) => g.grantedAt), byTool.map((g) => g.grantedFor), byTool.map((g) => g.expiresAt)],
      );
    });
  }

  async loadGrants(conversation: string): Promise<StoredGrant[]> {
    await this.schema();
    const { rows } = await this.pool.query<{ tool: string; granted_at: string; granted_for: string; expires_at: string }>(
      'SELECT tool, granted_at, granted_for, expires_at FROM toolcell_grants WHERE conversation = $1 AND expires_at > $2 ORDER BY granted_at, tool LIMIT $3',
      [conversation, Date.now(), this.maxGrantsPerConversation],
    );
    return rows.map((r) => ({ conversation, tool: r.tool, grantedAt: Number(r.granted_at), grantedFor: r.granted_for, expiresAt: Number(r.expires_at) }));
  }

  async deleteGrants(conversation: string, tool?: string): Promise<number> {
    await this.schema();
    const { rowCount } = tool === undefined
      ? await this.pool.query('DELETE FROM toolcell_grants WHERE conversation = $1', [conversation])
      : await this.pool.query('DELETE FROM toolcell_grants WHERE conversation = $1 AND tool = $2', [conversation, tool]);
    return rowCount ?? 0;
  }

  /**
   * Runs `work` in one transaction on one pooled connection. When it throws, the transaction is
   * rolled back and its error is what the caller gets; a connection whose rollback also failed
   * is destroyed rather than returned to the pool in an unknown state.
   */
  private async transaction(work: (client: import('pg').PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
