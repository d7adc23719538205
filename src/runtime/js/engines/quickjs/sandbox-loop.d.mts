/** What the sandbox loop sends and reads through (sandbox-loop.mjs). */
export interface LoopIo {
  send(header: object, payloads?: string[], attachment?: unknown): void;
  sendParked(conv: string, session: object | null): void;
  cancelPosted(run: number): boolean;
  framesWaiting(): boolean;
}

export interface SandboxLoop {
  /** Acts on one frame from the host; the next is dispatched after this one settles. */
  dispatch(frame: { header: unknown; payloads: string[]; parked?: unknown }): unknown;
  /** Work done only while no frame waits: spare VMs. */
  prepare(): Promise<void>;
}

/** Prepares the template and the first spare VM; then the loop takes frames. */
export function startSandboxLoop(options: {
  quickjs: unknown;
  wasmModule: object;
  digest: string;
  imagePath: string | undefined;
  spareVms: number;
  oneRunAtATime: boolean;
  io: LoopIo;
}): Promise<SandboxLoop>;
