// Error messages for tool names a script got wrong. Runs in the sandbox process's own realm, which
// script code cannot patch. The ranking mirrors closestNames() in src/runtime/names.ts (a test
// checks they agree); it is repeated here because this process runs plain JavaScript.

/** Levenshtein distance. */
function distance(a, b) {
  const prev = new Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(up + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/**
 * Up to `limit` tools nearest to `wanted`, nearest first, compared on names and identifiers.
 * @param {string} wanted
 * @param {ReadonlyArray<readonly [name: string, label: string, id: string]>} tools
 */
export function closestTools(wanted, tools, limit = 3) {
  const w = wanted.toLowerCase();
  return tools
    .map(([name, label, id]) => ({
      name,
      label,
      d: Math.min(distance(w, name.toLowerCase()), distance(w, id.toLowerCase())),
    }))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, limit);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function access(key) {
  return IDENTIFIER.test(key) ? `tools.${key}` : `tools[${JSON.stringify(key)}]`;
}

/**
 * The message of the TypeError a script gets for reading `tools[key]` when no such tool exists.
 * @param {string} key
 * @param {{ tools: Array<[string, string, string]>, collisions: Array<[string, string[]]> }} config
 */
export function unknownToolMessage(key, config) {
  const collision = config.collisions.find(([id]) => id === key);
  if (collision) {
    const labels = collision[1].map(access);
    return `${access(key)} is ambiguous: ${labels.join(' and ')} all become "${key}" as identifiers; ` +
      `call the one you mean by its name, e.g. ${labels[0]}`;
  }
  if (config.tools.length === 0) return `${access(key)} is not a tool: no tools are available`;
  const near = closestTools(key, config.tools).map((t) => t.label);
  return `${access(key)} is not a tool. Closest: ${near.join(', ')}`;
}
