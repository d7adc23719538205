// Types of slice-meter.mjs (plain JavaScript: the sandbox loop loads it in every place).

export interface SliceMeter {
  /** At a slice's start: reads the CPU reference again if the last reading is 4 ms old. */
  begin(now: number): void;
  /** What a slice counts towards its run's total: its wall time, or less by the CPU. */
  spent(start: number, end: number): number;
  /** The ms a slice may still run before it is over `boundMs`; 0 once it is. */
  left(start: number, now: number, boundMs: number): number;
}

export function sliceMeter(options: { wallSlackMs: number; cpuUsage?: () => { user: number; system: number } }): SliceMeter;
