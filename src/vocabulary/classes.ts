/**
 * RFC-008 tool classes: the vocabulary, validation of a server's `_meta["mcpl/class"]`
 * declaration, and the effective-class precedence (operator override, host table, server).
 *
 * Class is a hint the host uses as a policy key. An unclassed tool (empty class list) gets the
 * most restrictive answer to every policy question, so every validation failure here lands
 * on "unclassed", never on a guess.
 */
import { compilePattern } from './patterns.ts';

/** The RFC-008 §4 vocabulary, in the spec's order (Appendix B.4 `ToolClass`). */
export const TOOL_CLASSES = [
  'comms',
  'memory',
  'notes',
  'files',
  'shell',
  'web',
  'computer',
  'media',
  'body',
  'control',
] as const;

/** One RFC-008 tool class. */
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** The `_meta` key RFC-008 §3 defines for the class slot. */
export const CLASS_META_KEY = 'mcpl/class';

/** The `_meta` key prefix RFC-008 §3 reserves for keys MCPL defines. */
export const MCPL_META_PREFIX = 'mcpl/';

const CLASS_SET: ReadonlySet<string> = new Set(TOOL_CLASSES);

/** Whether `value` is one of the ten RFC-008 class strings (exact, case-sensitive). */
export function isToolClass(value: unknown): value is ToolClass {
  return typeof value === 'string' && CLASS_SET.has(value);
}

/** What {@link parseDeclaredClass} read from a tool's `_meta`. */
export interface DeclaredClass {
  /** Known classes in declaration order, first occurrence kept. Empty means unclassed. */
  classes: ToolClass[];
  /** Entries of the `mcpl/class` array that are not known classes (non-strings as JSON), for logging. */
  dropped: string[];
  /** `mcpl/`-prefixed keys this specification does not define; ignored for every purpose, for logging. */
  ignoredKeys: string[];
  /** Why the tool is unclassed, when `classes` is empty. Absent when it has a class. */
  unclassedReason?: string;
}

/**
 * Reads and validates a tool definition's `_meta` (the value of `tool._meta`, not the tool).
 *
 * - `mcpl/class` must be an array; anything else leaves the tool unclassed (RFC-008 §10 case 10).
 * - Unknown or non-string entries are dropped and reported; a tool whose entries are all
 *   unknown is unclassed (§3, cases 3 and 4).
 * - Duplicates collapse to their first occurrence; order is otherwise the server's.
 * - Other `mcpl/` keys are ignored and reported (case 11); keys outside `mcpl/` are not ours.
 */
export function parseDeclaredClass(meta: unknown): DeclaredClass {
  if (meta === undefined) {
    return { classes: [], dropped: [], ignoredKeys: [], unclassedReason: 'no _meta on the tool' };
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return { classes: [], dropped: [], ignoredKeys: [], unclassedReason: '_meta is not an object' };
  }
  const record = meta as Record<string, unknown>;
  const ignoredKeys = Object.keys(record).filter(
    (k) => k.startsWith(MCPL_META_PREFIX) && k !== CLASS_META_KEY,
  );
  if (!Object.hasOwn(record, CLASS_META_KEY)) {
    return { classes: [], dropped: [], ignoredKeys, unclassedReason: `no ${CLASS_META_KEY} declared` };
  }
  const slot = record[CLASS_META_KEY];
  if (!Array.isArray(slot)) {
    return {
      classes: [],
      dropped: [],
      ignoredKeys,
      unclassedReason: `${CLASS_META_KEY} is not an array (got ${describe(slot)})`,
    };
  }
  const { classes, dropped } = parseClassList(slot);
  if (classes.length > 0) return { classes, dropped, ignoredKeys };
  const unclassedReason =
    slot.length === 0 ? `${CLASS_META_KEY} is empty` : `${CLASS_META_KEY} names no known class`;
  return { classes, dropped, ignoredKeys, unclassedReason };
}

/**
 * Splits a list into known classes (deduplicated, first occurrence order) and the rest
 * (reported as strings). Used for server declarations and for operator configuration.
 */
export function parseClassList(list: readonly unknown[]): { classes: ToolClass[]; dropped: string[] } {
  const classes: ToolClass[] = [];
  const dropped: string[] = [];
  for (const entry of list) {
    if (isToolClass(entry)) {
      if (!classes.includes(entry)) classes.push(entry);
    } else {
      dropped.push(typeof entry === 'string' ? entry : describe(entry));
    }
  }
  return { classes, dropped };
}

/** Inputs to {@link effectiveClass}: each source's class list for one tool, where it has one. */
export interface ClassSources {
  /** The operator's override for this tool. An explicit `[]` is honoured: it unclasses the tool. */
  override?: readonly ToolClass[];
  /** The host's own table entry, for a tool the host implements. An explicit `[]` is honoured. */
  hostTable?: readonly ToolClass[];
  /** The server's validated declaration (from {@link parseDeclaredClass}). */
  declared?: readonly ToolClass[];
}

/** Where a tool's effective class came from (`none`: unclassed, no source gave a class). */
export type EffectiveClassSource = 'override' | 'host' | 'server' | 'none';

/** A tool's effective class and where it came from. */
export interface EffectiveClass {
  classes: ToolClass[];
  source: EffectiveClassSource;
}

/**
 * RFC-008 §5.1: the first source present wins entirely; sources never merge. An override
 * or host entry that is present but empty still wins (an operator may tighten a tool to
 * unclassed); an empty declaration counts as no class, source `none`.
 */
export function effectiveClass(sources: ClassSources): EffectiveClass {
  if (sources.override !== undefined) return { classes: clean(sources.override), source: 'override' };
  if (sources.hostTable !== undefined) return { classes: clean(sources.hostTable), source: 'host' };
  const declared = clean(sources.declared ?? []);
  return declared.length > 0 ? { classes: declared, source: 'server' } : { classes: [], source: 'none' };
}

/**
 * Finds the operator's override for a model-facing tool name. Keys are RFC-007 §6.2
 * patterns; an exact key wins over patterns, then the first matching pattern in the
 * table's insertion order.
 */
export function findOverride(
  overrides: Readonly<Record<string, readonly ToolClass[]>> | undefined,
  toolName: string,
): readonly ToolClass[] | undefined {
  if (overrides === undefined) return undefined;
  if (Object.hasOwn(overrides, toolName)) return overrides[toolName];
  for (const [key, classes] of Object.entries(overrides)) {
    if (key.includes('*') && compilePattern(key).matches(toolName)) return classes;
  }
  return undefined;
}

/** Typed values can still carry junk at runtime (JSON config); never let it become a class. */
function clean(list: readonly unknown[]): ToolClass[] {
  return parseClassList(list).classes;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    // BigInt or a cycle: the type is all a log line needs.
    return typeof value;
  }
}
