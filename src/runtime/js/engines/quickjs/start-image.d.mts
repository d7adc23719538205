// Types of start-image.mjs (plain JavaScript: the sandbox loop loads it in every place).

export interface StartImage {
  /** False once a later copy took its buffer. */
  valid: boolean;
  /** A run in progress may still move from it: no later copy takes its buffer. */
  pinned: boolean;
  /** The image a worker thread restores: compact, with the pointers and the catalog. */
  forMove(): object;
}

export function startImages(): { take(exports: unknown, catalog: unknown): StartImage };
