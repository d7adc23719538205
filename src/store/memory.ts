/**
 * A store in this process's memory: the contract of {@link DurableStore} without persistence, for
 * tests and for one process that wants runs taken once across its own exchanges.
 */
import { MAX_GRANTS_PER_CONVERSATION, MAX_STORED_GRANTS, MAX_STORED_RUNS, MAX_STORED_SCRIPTS, MAX_STORED_SHAPE_TOOLS } from './bounds.ts';
import { StoreFullError, type ClaimOutcome, type DurableStore, type StoredGrant, type StoredRun, type StoredScript } from './types.ts';

export class MemoryStore implements DurableStore {
  readonly kind = 'memory';
  private readonly runs = new Map<string, { run: StoredRun; state: 'paused' | 'claimed' }>();

  /** Learned shapes by tool; Map order is the order of saving (oldest first). */
  private readonly shapes = new Map<string, string>();

  /** Background scripts by id. */
  private readonly scripts = new Map<string, StoredScript>();

  /** Grants by conversation, then by tool; Map order is the order of granting. */
  private readonly grants = new Map<string, Map<string, StoredGrant>>();

  constructor(
    private readonly maxRuns = MAX_STORED_RUNS,
    private readonly maxShapeTools = MAX_STORED_SHAPE_TOOLS,
    private readonly maxScripts = MAX_STORED_SCRIPTS,
    private readonly maxGrants = MAX_STORED_GRANTS,
    private readonly maxGrantsPerConversation = MAX_GRANTS_PER_CONVERSATION,
  ) {}

  async putGrants(conversation: string, grants: readonly Omit<StoredGrant, 'conversation'>[]): Promise<void> {
    const now = Date.now();
    let total = 0;
    for (const [id, rows] of this.grants) {
      for (const [tool, row] of rows) if (row.expiresAt <= now) rows.delete(tool);
      if (rows.size === 0) this.grants.delete(id);
      else total += rows.size;
    }
    const mine = this.grants.get(conversation) ?? new Map<string, StoredGrant>();
    const added = new Set(grants.map((g) => g.tool).filter((tool) => !mine.has(tool))).size;
    if (mine.size + added > this.maxGrantsPerConversation) throw new StoreFullError(`the conversation holds ${mine.size} grants already (its bound)`);
    if (total + added > this.maxGrants) throw new StoreFullError(`the store holds ${total} grants already (its bound)`);
    for (const grant of grants) mine.set(grant.tool, { ...grant, conversation });
    if (mine.size > 0) this.grants.set(conversation, mine);
  }

  async loadGrants(conversation: string): Promise<StoredGrant[]> {
    const now = Date.now();
    return [...(this.grants.get(conversation)?.values() ?? [])]
      .filter((row) => row.expiresAt > now)
      .sort((a, b) => a.grantedAt - b.grantedAt || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))
      .slice(0, this.maxGrantsPerConversation)
      .map((row) => ({ ...row }));
  }

  async deleteGrants(conversation: string, tool?: string): Promise<number> {
    const rows = this.grants.get(conversation);
    if (rows === undefined) return 0;
    const removed = tool === undefined ? rows.size : rows.delete(tool) ? 1 : 0;
    if (tool === undefined || rows.size === 0) this.grants.delete(conversation);
    return removed;
  }

  async putScript(script: StoredScript): Promise<void> {
    const now = Date.now();
    for (const [id, row] of this.scripts) if (row.expiresAt <= now) this.scripts.delete(id);
    if (!this.scripts.has(script.id) && this.scripts.size >= this.maxScripts) throw new StoreFullError(`the store holds ${this.scripts.size} background scripts already (its bound)`);
    this.scripts.set(script.id, { ...script });
  }

  async renewScripts(owner: string, leaseUntil: number, expiresAt: number): Promise<string[]> {
    const renewed: string[] = [];
    for (const row of this.scripts.values()) {
      if (row.owner === owner && row.state === 'running') {
        Object.assign(row, { leaseUntil, expiresAt });
        renewed.push(row.id);
      }
    }
    return renewed;
  }

  async replaceRunningScript(script: StoredScript): Promise<boolean> {
    const row = this.scripts.get(script.id);
    if (row === undefined || row.state !== 'running' || row.conversation !== script.conversation || row.expiresAt <= Date.now()) return false;
    this.scripts.set(script.id, { ...script });
    return true;
  }

  async getScript(id: string): Promise<StoredScript | undefined> {
    const row = this.scripts.get(id);
    return row && row.expiresAt > Date.now() ? { ...row } : undefined;
  }

  async deleteScript(id: string): Promise<void> {
    this.scripts.delete(id);
  }

  async loadShapes(): Promise<Record<string, string>> {
    return Object.fromEntries(this.shapes);
  }

  async saveShapes(shapes: Record<string, string>): Promise<void> {
    for (const [tool, shape] of Object.entries(shapes)) {
      this.shapes.delete(tool);
      this.shapes.set(tool, shape);
    }
    while (this.shapes.size > this.maxShapeTools) this.shapes.delete(this.shapes.keys().next().value!);
  }

  async putRun(run: StoredRun): Promise<void> {
    const now = Date.now();
    for (const [id, row] of this.runs) if (row.run.expiresAt <= now) this.runs.delete(id);
    if (this.runs.has(run.id)) throw new Error(`a run with id ${run.id} is stored already`);
    const paused = [...this.runs.values()].filter((r) => r.state === 'paused').length;
    if (paused >= this.maxRuns) throw new StoreFullError(`the store holds ${paused} paused runs already (its bound)`);
    this.runs.set(run.id, { run: { ...run }, state: 'paused' });
  }

  async claimRun(id: string): Promise<ClaimOutcome> {
    const row = this.runs.get(id);
    if (!row) return { claimed: false, reason: 'unknown' };
    if (row.state !== 'paused') return { claimed: false, reason: 'taken' };
    if (row.run.expiresAt <= Date.now()) return { claimed: false, reason: 'expired' };
    row.state = 'claimed';
    return { claimed: true, run: { ...row.run } };
  }

  async deleteRun(id: string): Promise<void> {
    this.runs.delete(id);
  }

  async countPaused(): Promise<number> {
    return [...this.runs.values()].filter((r) => r.state === 'paused').length;
  }

  async close(): Promise<void> {
    this.runs.clear();
    this.shapes.clear();
    this.scripts.clear();
    this.grants.clear();
  }

  /** Tests: the stored record, to read or change as a store's reader could. */
  peek(id: string): StoredRun | undefined {
    return this.runs.get(id)?.run;
  }
}
