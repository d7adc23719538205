/**
 * When learned result types (learned-shapes.ts) change, `code_execution`'s description must
 * change with them; it is cached under the host's `toolsVersion`, so the host is asked for a new
 * listing. At most once per {@link LEARNED_REFRESH_MS}: a rebuilt description costs the host's
 * event loop about 0.1 ms per tool (docs/benchmarks.md, bench:tools), and shapes settle within a
 * tool's first few results, so a burst of new shapes costs one rebuild, not one per call.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { ShapeLearner } from './learned-shapes.ts';

/** Shortest time between two listings moved for learned types. */
export const LEARNED_REFRESH_MS = 2_000;

export class LearnedRefresh {
  private seen = 0;
  private last = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: ToolHost,
    private readonly shapes: ShapeLearner,
  ) {}

  /** Called when a run ends: the description follows what the run's calls taught. */
  afterRun(): void {
    if (this.shapes.version === this.seen || this.timer !== undefined) return;
    const wait = this.last + LEARNED_REFRESH_MS - performance.now();
    if (wait <= 0) return this.refresh();
    this.timer = setTimeout(() => this.refresh(), wait);
    // A pending refresh never keeps a process alive.
    this.timer.unref();
  }

  private refresh(): void {
    this.timer = undefined;
    this.seen = this.shapes.version;
    this.last = performance.now();
    this.host.refreshListing();
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
