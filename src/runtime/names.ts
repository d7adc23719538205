/**
 * Tool names as scripts see them. Host names such as `x--run` are not identifiers, so each
 * tool is also exposed under a sanitized identifier (`x__run`). Shared by the JavaScript
 * prelude, the Python runner and the declaration renderers so all three agree.
 */
import { BUDGET_CELLS, echoName, MAX_ECHOED, MAX_RANKED, rankingMeasure } from './js/sandbox/closest.mjs';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PY_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `name` can be written as `tools.name` in JavaScript. */
export function isJsIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** Whether `name` can be written as `tools.name` in Python. */
export function isPyIdentifier(name: string): boolean {
  return PY_IDENTIFIER.test(name);
}

/**
 * The identifier a tool is reachable under: every character that may not appear in an
 * identifier becomes `_`, and a leading digit gets a `_` prefix. `x--run` → `x__run`.
 */
export function sanitizeToolName(name: string): string {
  let out = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (out === '' || /^[0-9]/.test(out)) out = `_${out}`;
  return out;
}

/**
 * The path a script reaches a tool or global by. A dotted name is a namespace path
 * (`models.list` → `["models", "list"]`), each segment sanitized on its own
 * (`a.b-c` → `["a", "b_c"]`); any other name is one sanitized segment. A name with an empty
 * segment (`a..b`, `.a`) is not a path: it is sanitized whole.
 */
export function scriptPath(name: string): string[] {
  const parts = name.split('.');
  if (parts.length > 1 && parts.every((p) => p !== '')) return parts.map(sanitizeToolName);
  return [sanitizeToolName(name)];
}

/**
 * Most names {@link scriptIdentifier} remembers. Every binding plan and Python tool table of a
 * catalog asks for each tool's identifier; remembered, a catalog built after one tool changed
 * sanitizes that tool alone (issue 46 item 5: at 10,000 tools, sanitizing every name three
 * times was ~40 ms of one event-loop step). Past this many distinct names it starts over, so
 * the memory stays bounded whatever names servers list (about 100 bytes a name).
 */
export const MAX_REMEMBERED_IDENTIFIERS = 50_000;
const identifiers = new Map<string, string>();

/** `scriptPath(name)` joined with dots: the key aliases and collisions are tracked under. */
export function scriptIdentifier(name: string): string {
  let id = identifiers.get(name);
  if (id === undefined) {
    id = scriptPath(name).join('.');
    if (identifiers.size >= MAX_REMEMBERED_IDENTIFIERS) identifiers.clear();
    identifiers.set(name, id);
  }
  return id;
}

/** Two or more tools that sanitize to the same identifier. */
export interface NameCollision {
  identifier: string;
  names: string[];
}

/**
 * Maps each script identifier ({@link scriptIdentifier}, dotted for namespaced names) to its
 * tool name. Identifiers claimed by more than one tool
 * are left out of the map and reported, so a script never silently reaches the wrong tool.
 * A tool whose own name is already an identifier keeps it regardless.
 */
export function buildAliasTable(names: readonly string[]): { aliases: Map<string, string>; collisions: NameCollision[] } {
  const exact = new Set(names);
  const claims = new Map<string, string[]>();
  for (const name of names) {
    const id = scriptIdentifier(name);
    if (id === name) continue;
    const list = claims.get(id) ?? [];
    list.push(name);
    claims.set(id, list);
  }
  const aliases = new Map<string, string>();
  const collisions: NameCollision[] = [];
  for (const [id, claimants] of claims) {
    if (exact.has(id)) collisions.push({ identifier: id, names: [id, ...claimants] });
    else if (claimants.length > 1) collisions.push({ identifier: id, names: claimants });
    else aliases.set(id, claimants[0]!);
  }
  return { aliases, collisions };
}

/**
 * Longest name or query, in characters, that closest-name ranking and tool search look at; a
 * longer one is cut to this length first. Real tool names are far shorter, and the cut bounds
 * the work a script can make the host do with a megabyte name (Levenshtein is quadratic).
 * Defined in js/sandbox/closest.mjs, which the JavaScript sandbox evaluates as it is (and
 * whose distance closestNames uses); script_tools.py (Python) uses the same number.
 */
export const MAX_RANKED_NAME_CHARS: number = MAX_RANKED;

/**
 * Most Levenshtein cells one ranking computes. Past it the remaining candidates are ranked
 * by their length difference alone (a lower bound on their distance), so a host with many
 * long-named tools still answers in bounded time; the suggestion is then only approximate.
 */
export const RANKING_BUDGET_CELLS: number = BUDGET_CELLS;

/** Longest excerpt of a name an error message echoes back. */
export const MAX_ECHOED_NAME_CHARS: number = MAX_ECHOED;

/** `name` as an error message may quote it: whole when short, else an excerpt and its length (closest.mjs). */
export { echoName };

/**
 * Up to `limit` names closest to `wanted`, nearest first (compared on sanitized forms too).
 * Both sides are cut to {@link MAX_RANKED_NAME_CHARS} and the whole ranking to
 * {@link RANKING_BUDGET_CELLS}.
 */
export function closestNames(wanted: string, names: readonly string[], limit = 3): string[] {
  const measure = rankingMeasure(wanted);
  return names
    .map((name) => {
      // A name that is already an identifier is its own sanitized form: measured once.
      const sanitized = sanitizeToolName(name.slice(0, MAX_RANKED_NAME_CHARS));
      const d = measure(name);
      return { name, d: sanitized === name.slice(0, MAX_RANKED_NAME_CHARS) ? d : Math.min(d, measure(sanitized)) };
    })
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((x) => x.name);
}
