/**
 * MCPL capability paths (SPEC §5.4, §6.2; RFC-002 §3; RFC-007 §4.1) and the operator's
 * deny-by-default allowlist over them.
 *
 * A path is dot-separated. An allowlist entry grants a known path when it equals it, or when
 * it has the same number of segments and each `*` segment stands for exactly one segment
 * (`toolLifecycle.*` grants both lifecycle leaves). A bare parent such as `toolLifecycle`
 * is a different path and grants nothing beneath it. Anything not granted is denied.
 */

/** Every capability path toolcell knows, in SPEC §6.2 order plus RFC-007's two leaves. */
export const MCPL_CAPABILITY_PATHS: readonly string[] = Object.freeze([
  'pushEvents',
  'tools',
  'modelInfo',
  'inferenceRequest',
  'inferenceRequest.streaming',
  'inferenceLifecycle',
  'contextHooks.beforeInference.observe',
  'contextHooks.beforeInference.inject.system',
  'contextHooks.beforeInference.inject.beforeUser',
  'contextHooks.beforeInference.inject.afterUser',
  'channels.register',
  'channels.lifecycle',
  'channels.publish',
  'channels.incoming',
  'channels.streaming',
  'channels.acknowledge',
  'channels.typing',
  'toolLifecycle.observe',
  'toolLifecycle.inputs',
]);

/** RFC-007 §4.1 path gating `tools/lifecycle` delivery and `tools/observe` acceptance. */
export const TOOL_LIFECYCLE_OBSERVE = 'toolLifecycle.observe';
/** RFC-007 §4.1 path gating the `input` member of `started`. */
export const TOOL_LIFECYCLE_INPUTS = 'toolLifecycle.inputs';

/** Whether one allowlist entry grants `path` (exact, or `*` segments standing for one segment each). */
export function entryGrants(entry: string, path: string): boolean {
  if (entry === path) return true;
  if (!entry.includes('*')) return false;
  const want = entry.split('.');
  const have = path.split('.');
  if (want.length !== have.length) return false;
  for (let i = 0; i < want.length; i++) {
    if (want[i] !== '*' && want[i] !== have[i]) return false;
  }
  return true;
}

/**
 * The known paths the operator's allowlist grants, in `knownPaths` order. Entries that are
 * not strings, or that grant no known path, grant nothing (see {@link unmatchedEntries}).
 */
export function grantedPaths(enabledCapabilities: readonly unknown[], knownPaths: readonly string[] = MCPL_CAPABILITY_PATHS): Set<string> {
  const entries = enabledCapabilities.filter((e): e is string => typeof e === 'string');
  const granted = new Set<string>();
  for (const path of knownPaths) {
    if (entries.some((entry) => entryGrants(entry, path))) granted.add(path);
  }
  return granted;
}

/** Allowlist entries that grant no known path (a bare parent, a typo, an unknown leaf), for diagnostics. */
export function unmatchedEntries(enabledCapabilities: readonly unknown[], knownPaths: readonly string[] = MCPL_CAPABILITY_PATHS): string[] {
  return enabledCapabilities
    .filter((entry) => typeof entry !== 'string' || !knownPaths.some((path) => entryGrants(entry, path)))
    .map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry) ?? String(entry)));
}

/**
 * The known paths an `experimental.mcpl` advertisement covers (SPEC §5.1), found by a
 * generic walk: a nested object names sub-capabilities (and advertises the path it sits
 * at), `true` at any level covers every known path beneath it, `false` or absence covers
 * none. Non-capability members such as
 * `version` or `featureSets` never cover a path because no known path lives under them.
 */
export function advertisedPaths(advertisement: unknown, knownPaths: readonly string[] = MCPL_CAPABILITY_PATHS): Set<string> {
  const covered = new Set<string>();
  for (const path of knownPaths) {
    let node: unknown = advertisement;
    for (const segment of path.split('.')) {
      if (node === true) break;
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, segment)) {
        node = undefined;
        break;
      }
      node = (node as Record<string, unknown>)[segment];
    }
    // An object at the path itself (`inferenceRequest: { streaming: true }`) advertises it too.
    if (node === true || (node !== null && typeof node === 'object' && !Array.isArray(node))) covered.add(path);
  }
  return covered;
}
