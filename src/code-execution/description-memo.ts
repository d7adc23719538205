/**
 * What the `code_execution` description derives from each tool, kept between builds so that a
 * change of the tool set recomputes only the tools that changed (issue 46 item 5): its
 * descriptor, its first sentence (the summary the partial and compact forms list), how many
 * non-blank characters its description has and how long the last segment of its script path
 * is (the lower bound that lets a large list skip rendering declarations that cannot fit), and
 * the tools sorted by name, kept sorted from one build to the next by removing and inserting
 * the changed tools instead of sorting them all again.
 *
 * Keyed by the registered tool object: the registry replaces an entry whenever anything about
 * it changes (a re-list, a class override), so an entry seen before has the same name and
 * texts. Held weakly: a tool that left the registry leaves the memo with it.
 *
 * A build finds the changed tools by walking the list beside the previous one
 * (host/identity-walk.ts), and keeps running totals of what the description's size checks add
 * up over every tool (the full form's lower bound, the partial form's summary lines, the
 * compact form's names), updated by the added and dropped tools only: after a change at 10,000
 * tools no step walks every tool's facts.
 *
 * Measured at 10,000 tools (bench:tools, item 5): a rebuild that derived every tool again cost
 * the event loop 75–190 ms; deriving only the changed tools but looking every tool up again,
 * in ten passes or so, 17–50 ms; with the walk and the totals, see docs/benchmarks.md.
 */
import type { ToolDescriptor } from '../runtime/declarations/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import { IdentityWalk } from '../host/identity-walk.ts';
import { scriptPath } from '../runtime/names.ts';
import { clipSummary, firstSentence } from './tool-search.ts';

/** Longest summary line of a tool that is not declared in full (description-partial.ts). */
export const PARTIAL_SUMMARY_CHARS = 120;

/** One tool's derived pieces. */
export interface ToolFacts {
  /** What the renderers read (with the learned result schema, when the tool declares none). */
  readonly descriptor: ToolDescriptor;
  /** Its description's first sentence on one line ({@link firstSentence}). */
  readonly sentence: string;
  /** Characters of its description that are not white space: each appears in its TypeScript doc comment. */
  readonly solidChars: number;
  /** Length of the last segment of its script path: every declaration of the tool holds it. */
  readonly nameTail: number;
}

interface Entry extends ToolFacts {
  descriptor: ToolDescriptor;
  readonly tool: RegisteredTool;
  /** Whether the description lists it at all (the build's `include`). */
  readonly included: boolean;
  /** Its summary line's length in the partial form, with its line break. */
  readonly summaryLine: number;
  /** Its name's length past the `server--` prefix (the compact form's grouped list). */
  readonly rest: number;
  /** The learner's version its descriptor was made at (-1: never asked). */
  learnedAt: number;
}

const byNameOrder = (a: Entry, b: Entry) => (a.descriptor.name < b.descriptor.name ? -1 : a.descriptor.name > b.descriptor.name ? 1 : 0);

/** More changed tools than this in one build: the sorted list is sorted again instead of patched. */
const RESORT_OVER = 64;

/** Options of one {@link DescriptionMemo.descriptors} build. */
export interface MemoBuild {
  /** A result schema for a tool that declares none. */
  learned?: ((tool: string) => Record<string, unknown> | undefined) | undefined;
  /**
   * Changes whenever any learned schema does: while it stays, only new tools ask `learned`.
   * Without it every tool asks on every build.
   */
  learnedVersion?: number | undefined;
  /** Which tools the description lists; the same for every build of one memo. Default: all. */
  include?: ((tool: RegisteredTool) => boolean) | undefined;
}

export class DescriptionMemo {
  private include: (tool: RegisteredTool) => boolean = () => true;
  private readonly walk = new IdentityWalk<RegisteredTool, Entry>((tool) => this.derive(tool));
  private readonly byDescriptor = new WeakMap<ToolDescriptor, Entry>();
  private sorted: Entry[] = [];
  private learnedVersion: number | undefined;
  /** Running totals over the listed tools (see {@link lowerBound}, {@link summaryChars}, {@link nameChars}). */
  private totals = { nameTail: 0, solid: 0, summary: 0, names: 0, rests: 0 };

  /** Tools derived anew since this memo was made: tests count them (one per changed tool). */
  get misses(): number {
    return this.walk.derived;
  }

  /**
   * Tools the latest build looked up, derived, or asked `learned` about beyond walking the
   * list: tests pin that one change costs a few, whatever the number of tools.
   */
  lastWork = 0;

  private derive(tool: RegisteredTool): Entry {
    const cut = tool.name.indexOf('--');
    const sentence = firstSentence(tool.description);
    const descriptor = descriptorOf(tool, undefined);
    const entry: Entry = {
      tool,
      descriptor,
      included: this.include(tool),
      sentence,
      solidChars: solidChars(tool.description),
      nameTail: scriptPath(tool.name).at(-1)!.length,
      summaryLine: summaryLength(tool.name, sentence) + 1,
      rest: cut > 0 ? tool.name.length - cut - 2 : tool.name.length,
      learnedAt: -1,
    };
    this.byDescriptor.set(descriptor, entry);
    return entry;
  }

  /**
   * Starts a build over `tools`: the descriptors of those `include` keeps, in the given order,
   * each derived only when the memo has not seen that tool object before.
   */
  descriptors(tools: readonly RegisteredTool[], build: MemoBuild = {}): ToolDescriptor[] {
    if (build.include) this.include = build.include;
    const { values, added, dropped } = this.walk.build(tools);
    let work = this.walk.lastWork;
    const { learned, learnedVersion } = build;
    // A learner that moved (or one without a version) may have a schema for any tool.
    const everyone = learned !== undefined && (learnedVersion === undefined || learnedVersion !== this.learnedVersion);
    this.learnedVersion = learnedVersion;
    const ask = (entry: Entry) => {
      work += 1;
      const extra = entry.tool.outputSchema === undefined ? learned?.(entry.tool.name) : undefined;
      if (extra !== undefined || entry.descriptor.outputSchema !== entry.tool.outputSchema) {
        entry.descriptor = descriptorOf(entry.tool, extra);
        this.byDescriptor.set(entry.descriptor, entry);
      }
      entry.learnedAt = learnedVersion ?? -1;
    };
    if (everyone) {
      for (const entry of values) if (entry.included) ask(entry);
    } else if (learned !== undefined) {
      for (const entry of added) if (entry.included && entry.learnedAt !== learnedVersion) ask(entry);
    }
    const out: ToolDescriptor[] = [];
    for (const entry of values) if (entry.included) out.push(entry.descriptor);
    work += this.resort(values, added, dropped);
    this.lastWork = work;
    return out;
  }

  /** The facts of a descriptor handed out by the latest {@link descriptors}. */
  facts(descriptor: ToolDescriptor): ToolFacts {
    const entry = this.byDescriptor.get(descriptor);
    if (entry === undefined) throw new Error(`the description memo does not know the tool "${descriptor.name}"`);
    return entry;
  }

  /** The latest build's descriptors sorted by name (code-unit order). */
  byName(): ToolDescriptor[] {
    return this.sorted.map((e) => e.descriptor);
  }

  /** How many tools the latest build lists. */
  get count(): number {
    return this.sorted.length;
  }

  /** The latest build's `i`-th tool by name. */
  nameAt(i: number): string {
    return this.sorted[i]!.descriptor.name;
  }

  /**
   * The latest build's `fullLengthLowerBound` (description.ts): every tool's name tail, and
   * with `docs` (TypeScript declared) its description's non-blank characters.
   */
  lowerBound(docs: boolean): number {
    return this.totals.nameTail + (docs ? this.totals.solid : 0);
  }

  /** The partial form's summary lines of every listed tool, with their line breaks. */
  summaryChars(): number {
    return this.totals.summary;
  }

  /**
   * The compact form's floor: every listed name (`full`) or every name past its server prefix,
   * with one separator between two.
   */
  nameChars(full: boolean): number {
    return (full ? this.totals.names : this.totals.rests) - 1;
  }

  /**
   * Keeps {@link sorted} sorted and the totals current: drops the tools that left and inserts
   * the ones that came. Few changes: a few binary searches; many: one sort. Returns its work.
   */
  private resort(values: readonly Entry[], added: readonly Entry[], dropped: readonly Entry[]): number {
    const t = this.totals;
    const count = (entry: Entry, sign: number) => {
      t.nameTail += sign * entry.nameTail;
      t.solid += sign * entry.solidChars;
      t.summary += sign * entry.summaryLine;
      t.names += sign * (entry.descriptor.name.length + 1);
      t.rests += sign * (entry.rest + 1);
    };
    for (const entry of dropped) if (entry.included) count(entry, -1);
    for (const entry of added) if (entry.included) count(entry, 1);
    if (added.length + dropped.length > RESORT_OVER) {
      this.sorted = values.filter((e) => e.included).sort(byNameOrder);
      return values.length;
    }
    const sorted = this.sorted;
    for (const entry of dropped) {
      if (!entry.included) continue;
      let at = lowerIndex(sorted, entry);
      while (at < sorted.length && sorted[at] !== entry) at += 1;
      if (at < sorted.length) sorted.splice(at, 1);
    }
    for (const entry of added) {
      if (!entry.included) continue;
      let at = lowerIndex(sorted, entry);
      while (at < sorted.length && byNameOrder(sorted[at]!, entry) === 0) at += 1;
      sorted.splice(at, 0, entry);
    }
    return added.length + dropped.length;
  }
}

/** The first index of `sorted` whose name is not below `entry`'s. */
function lowerIndex(sorted: readonly Entry[], entry: Entry): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byNameOrder(sorted[mid]!, entry) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A tool's summary line's length in the partial form (`name: summary`, or the name alone). */
export function summaryLength(name: string, sentence: string): number {
  if (sentence === '') return name.length;
  return name.length + 2 + (sentence.length <= PARTIAL_SUMMARY_CHARS ? sentence.length : clipSummary(sentence, PARTIAL_SUMMARY_CHARS).length);
}

function descriptorOf(tool: RegisteredTool, learned: Record<string, unknown> | undefined): ToolDescriptor {
  const output = tool.outputSchema ?? learned;
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, ...(output ? { outputSchema: output } : {}) };
}

/** Characters of `text` that are not white space. */
export function solidChars(text: string | undefined): number {
  if (!text) return 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Anything docLines or a renderer may drop or fold (trimmed line ends, CR/LF) counts as blank.
    if (!(c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000)) n += 1;
  }
  return n;
}
