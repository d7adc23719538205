/**
 * Result types learned from real responses (issue 44, item 2). MCP tools rarely declare an
 * `outputSchema`, so the declarations a model reads said `Promise<unknown>` and models guessed
 * the shape of results, spending calls to discover it. For each tool without one, this keeps the
 * shape of what the tool actually returned to scripts — kinds, property names, array item
 * shapes, never a value — merged across calls (a property missing from some results is
 * optional; differing kinds are a union), and gives it as a JSON Schema marked as observed.
 *
 * Pure bookkeeping, no I/O. Bounded: the walk of one result, the properties of one object, the
 * tools remembered, and how often a tool's results are looked at once its shape has settled.
 */
import { JsonText } from '../runtime/json-text.ts';

/** Levels of nesting below the result that are described; deeper values are `unknown`. */
export const MAX_SHAPE_DEPTH = 4;
/** Properties of one object described by name; an object with more is a record. */
export const MAX_SHAPE_PROPERTIES = 40;
/** Array items looked at per array (the first ones). */
export const MAX_SAMPLED_ITEMS = 16;
/** Variants of a union before it is widened to `unknown`. */
export const MAX_UNION = 4;
/** Tools whose shapes are kept; the least recently seen beyond it is forgotten. */
export const MAX_LEARNED_TOOLS = 2_000;
/**
 * Results looked at per tool before its shape is taken as settled; after that one result in
 * {@link SETTLED_SAMPLE_EVERY}. A result costs a walk of at most
 * MAX_SAMPLED_ITEMS^depth nodes; sampling keeps a tool called 10,000 times in a loop from paying it each time.
 */
export const EAGER_RESULTS = 8;
export const SETTLED_SAMPLE_EVERY = 64;

/** Property names described as such: identifier-like and short. Others (ids, e-mails, tokens used as keys) make the object a record, so no value leaks through a key. */
const NAME_LIKE = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

type Shape =
  | { k: 'null' | 'boolean' | 'number' | 'string' | 'unknown' }
  /** A text result that was a plain number: the script is given the number. */
  | { k: 'numeric-text' }
  | { k: 'array'; items: Shape | undefined }
  | { k: 'object'; props: Map<string, { shape: Shape; seen: number }>; count: number }
  | { k: 'record'; values: Shape | undefined }
  | { k: 'union'; of: Shape[] };

const UNKNOWN: Shape = { k: 'unknown' };
const PLAIN_NUMBER = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;

/** The shape of one value as a script received it. `text`: the value was a tool's lone text block. */
export function shapeOf(value: unknown, depth = 0, text = false): Shape {
  if (value === null) return { k: 'null' };
  switch (typeof value) {
    case 'boolean':
      return { k: 'boolean' };
    case 'number':
      return { k: 'number' };
    case 'string':
      return text && PLAIN_NUMBER.test(value) ? { k: 'numeric-text' } : { k: 'string' };
    case 'object':
      break;
    default:
      return UNKNOWN;
  }
  if (depth >= MAX_SHAPE_DEPTH) return UNKNOWN;
  if (Array.isArray(value)) {
    let items: Shape | undefined;
    const n = Math.min(value.length, MAX_SAMPLED_ITEMS);
    for (let i = 0; i < n; i++) items = merge(items, shapeOf(value[i], depth + 1));
    return { k: 'array', items };
  }
  const keys = Object.keys(value as object);
  if (keys.length > MAX_SHAPE_PROPERTIES || keys.some((key) => !NAME_LIKE.test(key))) {
    let values: Shape | undefined;
    for (let i = 0; i < Math.min(keys.length, MAX_SAMPLED_ITEMS); i++) values = merge(values, shapeOf((value as Record<string, unknown>)[keys[i]!], depth + 1));
    return { k: 'record', values };
  }
  const props = new Map<string, { shape: Shape; seen: number }>();
  for (const key of keys) props.set(key, { shape: shapeOf((value as Record<string, unknown>)[key], depth + 1), seen: 1 });
  return { k: 'object', props, count: 1 };
}

function sameKind(a: Shape, b: Shape): boolean {
  return a.k === b.k;
}

/** The shape that covers both: properties missing from one side become optional, kinds a union. */
export function merge(a: Shape | undefined, b: Shape | undefined): Shape | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.k === 'unknown' || b.k === 'unknown') return UNKNOWN;
  if (a.k === 'union' || b.k === 'union') {
    const out = a.k === 'union' ? [...a.of] : [a];
    for (const item of b.k === 'union' ? b.of : [b]) {
      const i = out.findIndex((x) => sameKind(x, item));
      if (i >= 0) out[i] = merge(out[i], item)!;
      else out.push(item);
    }
    return out.length > MAX_UNION ? UNKNOWN : { k: 'union', of: out };
  }
  if (!sameKind(a, b)) {
    // A numeric text beside another text is just text.
    if ((a.k === 'numeric-text' && b.k === 'string') || (a.k === 'string' && b.k === 'numeric-text')) return { k: 'string' };
    return { k: 'union', of: [a, b] };
  }
  switch (a.k) {
    case 'array':
      return { k: 'array', items: merge(a.items, (b as typeof a).items) };
    case 'record':
      return { k: 'record', values: merge(a.values, (b as typeof a).values) };
    case 'object': {
      const other = b as typeof a;
      const props = new Map(a.props);
      for (const [key, entry] of other.props) {
        const mine = props.get(key);
        props.set(key, mine ? { shape: merge(mine.shape, entry.shape)!, seen: mine.seen + entry.seen } : entry);
      }
      if (props.size > MAX_SHAPE_PROPERTIES) {
        let values: Shape | undefined;
        for (const entry of props.values()) values = merge(values, entry.shape);
        return { k: 'record', values };
      }
      return { k: 'object', props, count: a.count + other.count };
    }
    default:
      return a;
  }
}

/** A JSON Schema for a shape (draft 2020-12 subset the declaration generators read). */
export function schemaOf(shape: Shape | undefined): Record<string, unknown> {
  if (shape === undefined) return {};
  switch (shape.k) {
    case 'unknown':
      return {};
    case 'numeric-text':
      return { type: 'number' };
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return { type: shape.k };
    case 'array':
      return shape.items === undefined ? { type: 'array' } : { type: 'array', items: schemaOf(shape.items) };
    case 'record':
      return { type: 'object', additionalProperties: schemaOf(shape.values) };
    case 'union':
      return { anyOf: shape.of.map(schemaOf) };
    case 'object': {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [key, entry] of shape.props) {
        properties[key] = schemaOf(entry.shape);
        if (entry.seen === shape.count) required.push(key);
      }
      return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
    }
  }
}

/**
 * Longest learned schema (characters of JSON) a tool's declaration carries: about 1.5x the text
 * of the TypeScript type it renders to, so a learned type adds at most ~1 KB to the description
 * (whose whole budget is DEFAULT_DESCRIPTION_CHARS, 24,000).
 */
export const MAX_LEARNED_SCHEMA_CHARS = 1_500;

/** `schema` with everything below `depth` levels of nesting left as `{}` (unknown). */
function pruned(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth <= 0) return {};
  const out: Record<string, unknown> = { ...schema };
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, pruned(v, depth - 1)]));
  if (schema.items) out.items = pruned(schema.items as Record<string, unknown>, depth - 1);
  if (schema.additionalProperties) out.additionalProperties = pruned(schema.additionalProperties as Record<string, unknown>, depth - 1);
  if (schema.anyOf) out.anyOf = (schema.anyOf as Record<string, unknown>[]).map((v) => pruned(v, depth));
  return out;
}

/** A shape as JSON (object properties as `[name, shape, seen]` triples), for a store. */
type ShapeJson = { k: string; items?: ShapeJson | null; values?: ShapeJson | null; of?: ShapeJson[]; props?: [string, ShapeJson, number][]; count?: number };

function toJson(shape: Shape | undefined): ShapeJson | null {
  if (shape === undefined) return null;
  switch (shape.k) {
    case 'array':
      return { k: 'array', items: toJson(shape.items) };
    case 'record':
      return { k: 'record', values: toJson(shape.values) };
    case 'union':
      return { k: 'union', of: shape.of.map((s) => toJson(s)!) };
    case 'object':
      return { k: 'object', count: shape.count, props: [...shape.props].map(([key, p]) => [key, toJson(p.shape)!, p.seen]) };
    default:
      return { k: shape.k };
  }
}

const LEAF_KINDS = new Set(['null', 'boolean', 'number', 'string', 'unknown', 'numeric-text']);
const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** A stored shape read back, or a {@link TypeError} naming what is wrong: the learner's own bounds hold for it too. */
function fromJson(json: unknown, depth = 0): Shape | undefined {
  if (json === null) return undefined;
  if (typeof json !== 'object' || depth > MAX_SHAPE_DEPTH + 1) throw new TypeError('not a shape within the depth bound');
  const j = json as ShapeJson;
  if (LEAF_KINDS.has(j.k)) return { k: j.k } as Shape;
  switch (j.k) {
    case 'array':
      return { k: 'array', items: fromJson(j.items ?? null, depth + 1) };
    case 'record':
      return { k: 'record', values: fromJson(j.values ?? null, depth + 1) };
    case 'union': {
      if (!Array.isArray(j.of) || j.of.length > MAX_UNION) throw new TypeError('a union beyond its bound');
      return { k: 'union', of: j.of.map((s) => fromJson(s, depth)!).filter((s) => s !== undefined) };
    }
    case 'object': {
      if (!Array.isArray(j.props) || j.props.length > MAX_SHAPE_PROPERTIES || !isCount(j.count)) throw new TypeError('an object beyond its bound');
      const props = new Map<string, { shape: Shape; seen: number }>();
      for (const entry of j.props) {
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !NAME_LIKE.test(entry[0]) || !isCount(entry[2])) throw new TypeError('a property that is not name-like');
        const shape = fromJson(entry[1], depth + 1);
        if (shape === undefined) throw new TypeError('a property without a shape');
        props.set(entry[0], { shape, seen: entry[2] });
      }
      return { k: 'object', props, count: j.count };
    }
    default:
      throw new TypeError(`an unknown kind ${JSON.stringify(String(j.k).slice(0, 20))}`);
  }
}

interface Learned {
  shape: Shape | undefined;
  results: number;
  /** The schema given out, rebuilt when the shape changes. */
  schema: Record<string, unknown> | undefined;
}

/**
 * The learned result shapes of one host's tools. `observe` is called with every value a script
 * receives from a tool without an `outputSchema`; `schemaFor` gives the schema the declarations
 * render; `version` changes whenever any schema did.
 */
export class ShapeLearner {
  private readonly tools = new Map<string, Learned>();
  private changes = 0;
  /** Tools whose shape changed since the last {@link takeChanged} (to save to a store). */
  private readonly changed = new Set<string>();
  /**
   * Sampled results given as JSON text (json-text.ts), learned from on the next turn of the event
   * loop: the answer reaches the sandbox first, and the host parses the text while the VM parses
   * its own copy (a megabyte's parse was 16-20 ms of the host's, on the round trip's path). Every
   * reader and the next observe learn them first, so none sees a state without them. Bounded by
   * the sampling: the sampled results of one turn, each a text its call already holds.
   */
  private pending: Array<{ tool: string; entry: Learned; json: JsonText; text: boolean }> = [];
  private settleScheduled = false;

  get version(): number {
    this.settle();
    return this.changes;
  }

  /**
   * Records one result of `tool` (`text`: it was a lone text block) and returns the value the
   * script gets: the same, except a plain-number text of a tool whose every text result so far
   * was a plain number, which is given as the number its declaration says.
   */
  observe(tool: string, value: unknown, text: boolean): unknown {
    this.settle();
    let entry = this.tools.get(tool);
    if (entry === undefined) {
      if (this.tools.size >= MAX_LEARNED_TOOLS) this.tools.delete(this.tools.keys().next().value!);
      entry = { shape: undefined, results: 0, schema: undefined };
    } else {
      // Map order is recency: re-insert.
      this.tools.delete(tool);
    }
    this.tools.set(tool, entry);
    entry.results += 1;
    if (entry.results <= EAGER_RESULTS || entry.results % SETTLED_SAMPLE_EVERY === 0) {
      if (value instanceof JsonText) this.later({ tool, entry, json: value, text });
      else this.learn(tool, entry, shapeOf(value, 0, text));
    }
    // A JsonText is never a plain-number string (it starts with `{` or `[`): it goes as it is.
    if (text && typeof value === 'string' && entry.shape?.k === 'numeric-text' && PLAIN_NUMBER.test(value)) return Number(value);
    return value;
  }

  private learn(tool: string, entry: Learned, shape: Shape): void {
    const next = merge(entry.shape, shape);
    const schema = schemaOf(next);
    if (entry.schema === undefined || JSON.stringify(schema) !== JSON.stringify(entry.schema)) {
      entry.schema = schema;
      this.changes += 1;
      this.changed.add(tool);
    }
    entry.shape = next;
  }

  private later(sample: { tool: string; entry: Learned; json: JsonText; text: boolean }): void {
    this.pending.push(sample);
    if (this.settleScheduled) return;
    this.settleScheduled = true;
    setImmediate(() => this.settle());
  }

  /** Learns from the deferred samples, in the order they came; a tool forgotten meanwhile is skipped. */
  private settle(): void {
    this.settleScheduled = false;
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    for (const { tool, entry, json, text } of pending) {
      if (this.tools.get(tool) === entry) this.learn(tool, entry, shapeOf(json.value(), 0, text));
    }
  }

  /**
   * The observed result schema of `tool`, described as observed; undefined before any result.
   * At most {@link MAX_LEARNED_SCHEMA_CHARS} of JSON: a larger one is cut to fewer levels.
   */
  schemaFor(tool: string): Record<string, unknown> | undefined {
    this.settle();
    const entry = this.tools.get(tool);
    if (entry?.schema === undefined || Object.keys(entry.schema).length === 0) return undefined;
    let schema = entry.schema;
    for (let depth = MAX_SHAPE_DEPTH; JSON.stringify(schema).length > MAX_LEARNED_SCHEMA_CHARS; depth--) {
      if (depth === 0) return undefined;
      schema = pruned(entry.schema, depth);
    }
    return { ...schema, description: `Observed shape of ${entry.results} result${entry.results === 1 ? '' : 's'} (the tool declares no output schema).` };
  }

  /** Forgets a tool (removed, or its server re-listed it with an output schema). */
  forget(tool: string): void {
    this.settle();
    this.changed.delete(tool);
    if (this.tools.delete(tool)) this.changes += 1;
  }

  /** Whether some tool's shape changed since the last {@link takeChanged}. */
  get hasChanged(): boolean {
    this.settle();
    return this.changed.size > 0;
  }

  /** The shapes changed since the last call, as JSON text by tool (shapes and counts, no value), and clears the list. */
  takeChanged(): Record<string, string> {
    this.settle();
    const out: Record<string, string> = {};
    for (const tool of this.changed) {
      const entry = this.tools.get(tool);
      if (entry?.shape !== undefined) out[tool] = JSON.stringify({ v: 1, results: entry.results, shape: toJson(entry.shape) });
    }
    this.changed.clear();
    return out;
  }

  /**
   * Takes a shape saved by {@link takeChanged} (another process, an earlier run) for a tool this
   * learner has not seen yet: what this process learned itself wins. Throws a {@link TypeError}
   * for text that is not such a shape, and keeps nothing of it.
   */
  restore(tool: string, text: string): void {
    this.settle();
    if (this.tools.has(tool)) return;
    const saved = JSON.parse(text) as { v?: unknown; results?: unknown; shape?: unknown };
    if (saved?.v !== 1 || !isCount(saved.results) || saved.results === 0) throw new TypeError('not a saved shape (version 1)');
    const shape = fromJson(saved.shape ?? null);
    if (shape === undefined) return;
    if (this.tools.size >= MAX_LEARNED_TOOLS) return;
    this.tools.set(tool, { shape, results: saved.results, schema: schemaOf(shape) });
    this.changes += 1;
  }
}
