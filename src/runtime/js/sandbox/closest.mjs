// Error messages for tool names a script got wrong, and the bounded edit distance they rank
// names by. Runs in the sandbox's own realm, which script code cannot patch; plain JavaScript,
// so the host's names.ts (closestNames, for tool search) imports the distance and the bounds
// from here rather than keeping a copy.

/**
 * Bounds of a ranking (names.ts re-exports them as MAX_RANKED_NAME_CHARS, RANKING_BUDGET_CELLS
 * and MAX_ECHOED_NAME_CHARS): a megabyte name costs no more than a long one.
 */
export const MAX_RANKED = 256;
export const BUDGET_CELLS = 2_000_000;
export const MAX_ECHOED = 120;

/** `name` as a message may quote it: whole when short, else an excerpt and its length (names.ts re-exports it as echoName). */
export function echoName(name) {
  return name.length <= MAX_ECHOED ? name : `${name.slice(0, MAX_ECHOED)}… (${name.length} characters)`;
}

/**
 * Levenshtein distance: one row of integers and plain comparisons. A ranking is up to
 * BUDGET_CELLS cells on the thread that asks, so each cell is kept cheap (a third of the time
 * of Math.min over a plain array).
 */
function distance(a, b) {
  const prev = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    let diag = prev[0];
    let left = i;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      let best = diag + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      if (up + 1 < best) best = up + 1;
      if (left + 1 < best) best = left + 1;
      prev[j] = best;
      left = best;
      diag = up;
    }
  }
  return prev[b.length];
}

/**
 * The distance of names to `wanted` for one ranking: both cut to MAX_RANKED characters and
 * compared without case; once BUDGET_CELLS cells are spent, the length difference alone (a
 * lower bound on the distance), so the ranking's suggestions are then only approximate.
 * @param {string} wanted
 * @returns {(other: string) => number}
 */
export function rankingMeasure(wanted) {
  const w = wanted.slice(0, MAX_RANKED).toLowerCase();
  let budget = BUDGET_CELLS;
  return (other) => {
    const o = other.slice(0, MAX_RANKED).toLowerCase();
    const cells = w.length * o.length;
    if (cells > budget) return Math.abs(w.length - o.length);
    budget -= cells;
    return distance(w, o);
  };
}

/**
 * Up to `limit` tools nearest to `wanted`, nearest first, compared on names and identifiers.
 * @param {string} wanted
 * @param {ReadonlyArray<readonly [name: string, label: string, id: string]>} tools
 */
export function closestTools(wanted, tools, limit = 3) {
  const measure = rankingMeasure(wanted);
  return tools
    .map(([name, label, id]) => {
      // A name that is already its identifier is measured once.
      const d = measure(name);
      return { name, label, d: id === name ? d : Math.min(d, measure(id)) };
    })
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, limit);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function access(key) {
  return IDENTIFIER.test(key) ? `tools.${echoName(key)}` : `tools[${JSON.stringify(echoName(key))}]`;
}

/**
 * The message of the TypeError a script gets for reading `tools[key]` when no such tool exists.
 * @param {string} key
 * @param {{ tools: Array<[string, string, string]>, collisions: Array<[string, string[]]>, nested?: Array<[string, string]> }} config
 */
export function unknownToolMessage(key, config) {
  const collision = config.collisions.find(([id]) => id === key);
  if (collision) {
    const labels = collision[1].map(access);
    return `${access(key)} is ambiguous: ${labels.join(' and ')} all become "${key}" as identifiers; ` +
      `call the one you mean by its name, e.g. ${labels[0]}`;
  }
  if (config.tools.length === 0) return `${access(key)} is not a tool: no tools are available`;
  // A namespace a misspelt key may have meant (`tools.modls` for `tools.models.list`) ranks
  // with the tools themselves.
  const candidates = [...config.tools];
  const seen = new Set(config.tools.map((t) => t[2]));
  for (const [id] of config.nested ?? []) {
    const root = id.split('.')[0];
    if (seen.has(root)) continue;
    seen.add(root);
    candidates.push([root, `tools.${root}`, root]);
  }
  const near = closestTools(key, candidates).map((t) => t.label);
  return `${access(key)} is not a tool. Closest: ${near.join(', ')}`;
}

/** A namespace lists every member up to this many; past it, the nearest few and the count. */
const LISTED_MEMBERS = 8;

/**
 * The message of the TypeError a script gets for reading a member its namespace does not have
 * (`tools.models.lst()` where the namespace holds `list` and `get`): what was read, and what is
 * there instead.
 * @param {string} where the namespace as the script reaches it: `tools.models`, `models`
 * @param {string} key the member that is missing
 * @param {string[]} members the namespace's members, in the order they were bound
 */
export function unknownMemberMessage(where, key, members) {
  const wanted = IDENTIFIER.test(key) ? `${where}.${echoName(key)}` : `${where}[${JSON.stringify(echoName(key))}]`;
  if (members.length === 0) return `${wanted} is not a tool; ${where} has no members`;
  if (members.length <= LISTED_MEMBERS) return `${wanted} is not a tool; ${where} has: ${members.join(', ')}`;
  const near = closestTools(key, members.map((m) => [m, m, m])).map((t) => t.name);
  return `${wanted} is not a tool; ${where} has ${members.length} members, closest: ${near.join(', ')}`;
}

/**
 * The answer to the preludes' unknown-name question, for both engines' runners: `(key)` is a
 * tool `tools` lacks, `(key, namespace, members)` a member a namespace lacks (members joined
 * by newlines). Anything but strings gets null: the prelude then throws its own plain message.
 * @param {{ tools: Array<[string, string, string]>, collisions: Array<[string, string[]]>, nested?: Array<[string, string]> }} config
 * @param {unknown} key
 * @param {unknown} where
 * @param {unknown} members
 */
export function unknownNameMessage(config, key, where, members) {
  if (typeof key !== 'string') return null;
  if (where === undefined) return unknownToolMessage(key, config);
  if (typeof where !== 'string' || typeof members !== 'string') return null;
  return unknownMemberMessage(where, key, members.split('\n').filter((m) => m !== ''));
}
