/**
 * A string that is equal for two connections exactly when their lifecycle grant and filter
 * are, so the emitter decides and serializes a call's opening once for all of them.
 */
import type { CompiledFilter } from './decision-types.ts';
import type { LifecycleGrant, Narrowing } from './grants.ts';

function narrowingKey(n: Narrowing | null): unknown {
  if (n === null) return null;
  return {
    t: n.tools?.map((p) => p.source) ?? null,
    c: n.classes ? [...n.classes].sort() : null,
    v: n.conversations?.map((p) => p.source) ?? null,
  };
}

export function lifecycleKey(grant: LifecycleGrant, filter: CompiledFilter | null): string {
  return JSON.stringify([narrowingKey(grant.observe), narrowingKey(grant.inputs), filter === null ? null : filter.source]);
}
