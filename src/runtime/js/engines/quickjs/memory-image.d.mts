/** A VM's linear memory without its all-zero blocks. */
export interface MemoryImage {
  size: number;
  blocks: Int32Array;
  data: Uint8Array;
}

export const PARK_BLOCK: number;

export function compactMemory(memory: Uint8Array): MemoryImage;

/** A VM's memory image and the pointers restoring it needs, read from the VM's exports. */
export function memoryImage(exports: unknown): MemoryImage & { stackPointer: number; runtimePtr: number; contextPtr: number };

/** Restores VMs (quickjs-wasi's QuickJS instances) from images of VMs with these pointers. */
export function imageRestorer(
  QuickJS: unknown,
  vmOptions: unknown,
): (image: MemoryImage & { stackPointer: number; runtimePtr: number; contextPtr: number }) => Promise<any>;
