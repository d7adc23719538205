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
 * Measured at 10,000 tools (bench:tools, item 5): a rebuild that derived every tool again cost
 * the event loop 75–190 ms; with this memo, one tool added costs one derivation and a walk.
 */
import type { ToolDescriptor } from '../runtime/declarations/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import { scriptPath } from '../runtime/names.ts';
import { firstSentence } from './tool-search.ts';

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
  /** The build that last read it: an entry of the sorted list not read by this build has left. */
  seen: number;
}

const byNameOrder = (a: Entry, b: Entry) => (a.descriptor.name < b.descriptor.name ? -1 : a.descriptor.name > b.descriptor.name ? 1 : 0);

export class DescriptionMemo {
  private readonly byTool = new WeakMap<RegisteredTool, Entry>();
  private readonly byDescriptor = new WeakMap<ToolDescriptor, Entry>();
  private sorted: Entry[] = [];
  private build = 0;
  /** Tools derived anew since this memo was made: tests count them (one per changed tool). */
  misses = 0;

  /**
   * Starts a build over `tools`: their descriptors, in the given order, each derived only when
   * the memo has not seen that tool object before. `learned`: a result schema for a tool that
   * declares none (its descriptor is then made anew, the rest of its facts kept).
   */
  descriptors(tools: readonly RegisteredTool[], learned?: (tool: string) => Record<string, unknown> | undefined): ToolDescriptor[] {
    const build = ++this.build;
    const fresh: Entry[] = [];
    const out = new Array<ToolDescriptor>(tools.length);
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i]!;
      let entry = this.byTool.get(tool);
      if (entry === undefined) {
        entry = { descriptor: descriptorOf(tool, undefined), sentence: firstSentence(tool.description), solidChars: solidChars(tool.description), nameTail: scriptPath(tool.name).at(-1)!.length, seen: -1 };
        this.byTool.set(tool, entry);
        this.byDescriptor.set(entry.descriptor, entry);
        this.misses += 1;
      }
      // Not in the last build, so not in the sorted list: inserted below.
      if (entry.seen !== build - 1) fresh.push(entry);
      const extra = tool.outputSchema === undefined ? learned?.(tool.name) : undefined;
      if (extra !== undefined || entry.descriptor.outputSchema !== tool.outputSchema) {
        entry.descriptor = descriptorOf(tool, extra);
        this.byDescriptor.set(entry.descriptor, entry);
      }
      entry.seen = build;
      out[i] = entry.descriptor;
    }
    this.resort(build, fresh);
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

  /**
   * Keeps {@link sorted} sorted: drops the entries this build did not read, then inserts the
   * ones it read that were not in the last build. Few changes: a walk and a few binary
   * searches; many: one sort, as before.
   */
  private resort(build: number, fresh: Entry[]): void {
    const kept = this.sorted.filter((e) => e.seen === build);
    if (fresh.length > 64) {
      this.sorted = kept.concat(fresh).sort(byNameOrder);
      return;
    }
    for (const entry of fresh) {
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (byNameOrder(kept[mid]!, entry) <= 0) lo = mid + 1;
        else hi = mid;
      }
      kept.splice(lo, 0, entry);
    }
    this.sorted = kept;
  }
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
