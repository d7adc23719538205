/**
 * Learned result types kept in the host's store (issue 44 item 2: "kept per tool, and in the
 * store where one is configured"): loaded once when `code_execution` starts, so that a new
 * process declares what an earlier one learned before any call, and saved when shapes change —
 * batched, at most once per {@link SHAPES_SAVE_MS}, after a run, never per call (a shape changes
 * rarely: settled after a tool's first few results). Only shapes go to the store, never a value
 * (learned-shapes.ts takeChanged). A store that fails is logged and learning goes on in memory.
 */
import type { Logger } from 'pino';
import { MAX_STORED_SHAPE_CHARS } from '../store/bounds.ts';
import type { DurableStore } from '../store/types.ts';
import type { ShapeLearner } from './learned-shapes.ts';

/** Shortest time between two saves of changed shapes; shapes changed meanwhile go in the next one. */
export const SHAPES_SAVE_MS = 5_000;

export class LearnedPersist {
  /** Settles when the stored shapes are in the learner (or could not be read: logged); never rejects. */
  readonly loaded: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();

  /** `onLoaded`: some shape was restored (the host's listing should follow). */
  constructor(
    private readonly shapes: ShapeLearner,
    private readonly store: DurableStore,
    private readonly logger: Logger,
    onLoaded: () => void,
  ) {
    this.loaded = this.load().then((restored) => {
      if (restored > 0) onLoaded();
    });
  }

  private async load(): Promise<number> {
    let rows: Record<string, string>;
    try {
      rows = await this.store.loadShapes();
    } catch (error) {
      this.logger.warn({ err: error, store: this.store.kind }, 'learned result types: the store could not be read; learning starts empty');
      return 0;
    }
    let restored = 0;
    for (const [tool, text] of Object.entries(rows)) {
      try {
        if (text.length > MAX_STORED_SHAPE_CHARS) throw new TypeError(`over ${MAX_STORED_SHAPE_CHARS} characters`);
        this.shapes.restore(tool, text);
        restored += 1;
      } catch (error) {
        this.logger.warn({ tool, reason: (error as Error).message }, 'learned result types: a stored shape was not taken');
      }
    }
    return restored;
  }

  /** Called when a run ends: changed shapes are saved within {@link SHAPES_SAVE_MS}. */
  afterRun(): void {
    if (!this.shapes.hasChanged || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SHAPES_SAVE_MS);
    // A pending save never keeps a process alive (close() saves what is pending).
    this.timer.unref();
  }

  /** Saves the shapes changed since the last save now (one write), after any save under way. */
  flush(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const changed = this.shapes.takeChanged();
      for (const [tool, text] of Object.entries(changed)) if (text.length > MAX_STORED_SHAPE_CHARS) delete changed[tool];
      if (Object.keys(changed).length === 0) return;
      try {
        await this.store.saveShapes(changed);
      } catch (error) {
        this.logger.warn({ err: error, store: this.store.kind }, 'learned result types: could not be saved; they stay in memory');
      }
    });
    return this.saving;
  }

  /** Saves what is pending; the store itself is closed by its owner. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.loaded;
    await this.flush();
  }
}
