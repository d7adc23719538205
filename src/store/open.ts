/**
 * A store from its URL, as serve's config names it: `sqlite:<path>` (relative to `base`, the
 * config file's folder), `postgres://…` / `postgresql://…`, or `memory:` (this process only).
 * Each driver is loaded only when its store is opened.
 */
import { resolve } from 'node:path';
import { MemoryStore } from './memory.ts';
import { StoreConfigError, type DurableStore } from './types.ts';

/** Whether `url` names a store kind toolcell knows (checked with the config, before anything starts). */
export function storeUrlProblem(url: string): string | undefined {
  if (/^sqlite:./.test(url) || /^postgres(ql)?:\/\/./.test(url) || url === 'memory:') return undefined;
  return 'expected "sqlite:<file>", "postgres://…" or "memory:"';
}

/** Opens the store `url` names; throws {@link StoreConfigError} for an unknown kind or a missing driver. */
export async function openStore(url: string, base = process.cwd()): Promise<DurableStore> {
  const problem = storeUrlProblem(url);
  if (problem !== undefined) throw new StoreConfigError(`store: ${problem}`);
  if (url === 'memory:') return new MemoryStore();
  if (url.startsWith('sqlite:')) {
    const { SqliteStore } = await import('./sqlite.ts');
    return new SqliteStore(resolve(base, url.slice('sqlite:'.length)));
  }
  const { PostgresStore } = await import('./postgres.ts');
  return new PostgresStore(url);
}
