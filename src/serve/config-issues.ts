/**
 * Turns zod issues into one line each that names the full path of the mistake and says what was
 * expected and what came (`codeExecution.maxTimeLimitMs: expected a number ≥ 1000, got "x"`).
 * zod's own messages say neither for unions ("Invalid input"), so a union's failure is reported
 * through the branch that got furthest into the value.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** Says what a path expects when a value of the wrong type came (`a number ≥ 1000`); undefined to use the type alone. */
export type ExpectationHint = (path: readonly PropertyKey[]) => string | undefined;

interface SchemaDef {
  type: string;
  innerType?: { def: SchemaDef };
  shape?: Record<string, { def: SchemaDef }>;
  element?: { def: SchemaDef };
  valueType?: { def: SchemaDef };
  options?: { def: SchemaDef }[];
}

/** The schema node at `path`, through optional/default wrappers, objects, arrays, records and unions. */
function schemaAt(schema: { def: SchemaDef }, path: readonly PropertyKey[]): { def: SchemaDef } | undefined {
  let node: { def: SchemaDef } | undefined = schema;
  const unwrap = () => {
    while (node && (node.def.type === 'optional' || node.def.type === 'default' || node.def.type === 'nullable')) node = node.def.innerType;
  };
  for (const key of path) {
    unwrap();
    if (!node) return undefined;
    if (node.def.type === 'union') node = node.def.options?.find((o) => o.def.type === 'object' || o.def.type === 'default');
    unwrap();
    if (!node) return undefined;
    if (node.def.type === 'object') node = node.def.shape?.[String(key)];
    else if (node.def.type === 'array') node = node.def.element;
    else if (node.def.type === 'record') node = node.def.valueType;
    else return undefined;
  }
  unwrap();
  return node;
}

/** A hint that reads numeric bounds off `schema`, so a wrong type still says the range. */
export function boundsHint(schema: { def: unknown }): ExpectationHint {
  return (path) => {
    const node = schemaAt(schema as { def: SchemaDef }, path);
    if (!node || node.def.type !== 'number') return undefined;
    const checks = ((node.def as { checks?: { _zod: { def: { check: string; value?: unknown; inclusive?: boolean; format?: string } } }[] }).checks ?? []).map((c) => c._zod.def);
    const integer = checks.some((c) => c.check === 'number_format' && /int/.test(c.format ?? ''));
    const parts: string[] = [];
    for (const c of checks) {
      if (typeof c.value !== 'number') continue;
      if (c.check === 'greater_than') parts.push(`${c.inclusive ? '≥' : '>'} ${c.value}`);
      if (c.check === 'less_than') parts.push(`${c.inclusive ? '≤' : '<'} ${c.value}`);
    }
    const noun = integer ? 'an integer' : 'a number';
    if (parts.length > 0) return `${noun} ${parts.join(' and ')}`;
    return integer ? noun : undefined;
  };
}

/** `servers[1].policy.toolLifecycle`: dots for keys, brackets for indexes. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** A short, quoted rendering of the value that came. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

function bound(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      return small && limit === 1 ? 'expected a non-empty string' : `expected a string of ${small ? 'at least' : 'at most'} ${limit} characters`;
    case 'array':
      return `expected ${small ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`;
    default: {
      const op = small ? (inclusive ? '≥' : '>') : inclusive ? '≤' : '<';
      return `expected a number ${op} ${limit}`;
    }
  }
}

/** The depth of the deepest path among a branch's issues: how far into the value it got. */
function depth(issues: readonly Issue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length + (i.code === 'unrecognized_keys' ? 1 : 0)));
}

/** One `path: what was wrong` line per problem; nested union failures are flattened. */
export function formatIssues(issues: readonly Issue[], hint: ExpectationHint = () => undefined, prefix: readonly PropertyKey[] = []): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const got = `, got ${describeValue(issue.input)}`;
    switch (issue.code) {
      case 'invalid_type': {
        const expected = hint(path) ?? ARTICLE[issue.expected] ?? issue.expected;
        lines.push(issue.input === undefined ? `${formatPath(path)}: required (${expected})` : `${formatPath(path)}: expected ${expected}${got}`);
        break;
      }
      case 'too_small':
      case 'too_big': {
        // A number's full expectation (integer, both bounds) when the schema says it.
        const expected = issue.origin === 'number' ? hint(path) : undefined;
        lines.push(`${formatPath(path)}: ${expected ? `expected ${expected}` : bound(issue)}${got}`);
        break;
      }
      case 'invalid_value':
        lines.push(`${formatPath(path)}: expected ${issue.values.length === 1 ? describeValue(issue.values[0]) : `one of ${issue.values.map(describeValue).join(', ')}`}${got}`);
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) lines.push(`${formatPath([...path, key])}: unknown key`);
        break;
      case 'invalid_format':
        lines.push(`${formatPath(path)}: expected a valid ${issue.format}${got}`);
        break;
      case 'invalid_union': {
        const branches = issue.errors.filter((b) => b.length > 0);
        const deepest = Math.max(0, ...branches.map(depth));
        const best = branches.filter((b) => depth(b) === deepest);
        if (deepest > 0 && best.length >= 1) {
          // The value got past the top of one branch (say, it is an object): that branch's complaints are the useful ones.
          lines.push(...formatIssues(best[0]!, hint, path));
        } else {
          const wanted = branches.flat().map((i) => formatIssues([{ ...i, path: [] }])[0]!.replace(/^\(top level\): (expected )?/, '').replace(/, got .*$/, ''));
          lines.push(`${formatPath(path)}: expected ${[...new Set(wanted)].join(' or ')}${got}`);
        }
        break;
      }
      default:
        lines.push(`${formatPath(path)}: ${issue.message}`);
    }
  }
  return lines;
}
