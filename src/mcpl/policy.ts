/**
 * Feature-set derivation (SPEC §6.2, §6.4; RFC-002 §3.6): which of a server's declared
 * feature sets are enabled, failing closed.
 *
 * A declaration whose `uses` is absent, empty, or holds anything that is not an exact known
 * capability path is invalid and disabled with reason `invalid_uses`; the host does not
 * guess what it meant. Given the connection's grant, a valid set that uses a path the grant
 * does not hold is disabled with reason `capability_denied`.
 */
import { MCPL_CAPABILITY_PATHS } from './capabilities.ts';

/** Why a feature set is disabled. */
export type DisabledReason = 'invalid_uses' | 'capability_denied';

/** One disabled feature set. */
export interface DisabledFeature {
  name: string;
  reason: DisabledReason;
  /** For `invalid_uses`: the unrecognized `uses` entries (non-strings as JSON); empty when `uses` was absent or empty. */
  invalid: string[];
  /** For `capability_denied`: the used paths the grant does not hold. */
  missing?: string[];
}

/** The outcome of {@link validateFeatureSets}. */
export interface FeatureSetVerdict {
  /** Enabled feature-set names, in declaration order. */
  enabled: string[];
  disabled: DisabledFeature[];
  /** Problems that disable nothing (a missing description, a malformed `featureSets` member). */
  notes: string[];
}

/**
 * Derives enabled and disabled feature sets from a server's `experimental.mcpl.featureSets`.
 * `knownUses` is the `uses` vocabulary (default: every known path, including
 * `toolLifecycle.observe` and `toolLifecycle.inputs`; `toolLifecycle.results` is not one).
 * When `granted` is given, sets needing an ungranted path are disabled too.
 */
export function validateFeatureSets(
  featureSets: unknown,
  knownUses: readonly string[] = MCPL_CAPABILITY_PATHS,
  granted?: ReadonlySet<string>,
): FeatureSetVerdict {
  const verdict: FeatureSetVerdict = { enabled: [], disabled: [], notes: [] };
  if (featureSets === undefined) return verdict;
  if (featureSets === null || typeof featureSets !== 'object' || Array.isArray(featureSets)) {
    verdict.notes.push('featureSets is not an object; no feature set is declared');
    return verdict;
  }
  const vocabulary = new Set(knownUses);
  for (const [name, declaration] of Object.entries(featureSets as Record<string, unknown>)) {
    const isObject = declaration !== null && typeof declaration === 'object' && !Array.isArray(declaration);
    const record = isObject ? (declaration as Record<string, unknown>) : {};
    if (typeof record.description !== 'string') verdict.notes.push(`feature set ${JSON.stringify(name)} has no description`);
    const uses = record.uses;
    if (!Array.isArray(uses) || uses.length === 0) {
      verdict.disabled.push({ name, reason: 'invalid_uses', invalid: [] });
      continue;
    }
    const invalid = uses
      .filter((u) => typeof u !== 'string' || !vocabulary.has(u))
      .map((u) => (typeof u === 'string' ? u : JSON.stringify(u) ?? String(u)));
    if (invalid.length > 0) {
      verdict.disabled.push({ name, reason: 'invalid_uses', invalid });
      continue;
    }
    const missing = granted === undefined ? [] : (uses as string[]).filter((u) => !granted.has(u));
    if (missing.length > 0) {
      verdict.disabled.push({ name, reason: 'capability_denied', invalid: [], missing });
      continue;
    }
    verdict.enabled.push(name);
  }
  return verdict;
}
