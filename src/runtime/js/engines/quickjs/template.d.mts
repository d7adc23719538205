import type { MemoryImage } from './memory-image.d.mts';

/** A template's image: its memory, the pointers restoring it needs, and the control function's token. */
export type TemplateImage = MemoryImage & { stackPointer: number; runtimePtr: number; contextPtr: number; token: number };

export interface GuestSources {
  prelude: string;
  inspector: string;
  core: string;
  harden: string;
}

export const IMAGE_FILE: URL;

export function vmOptionsFor(quickjs: unknown, wasmModule: unknown, interruptHandler?: () => boolean): { intrinsics: number; maxStackSize: number } & Record<string, unknown>;

export function guestSources(): GuestSources;

export function wasmDigest(bytes: Uint8Array): string;

export function templateInputs(quickjs: unknown, wasmBytes: Uint8Array): { options: ReturnType<typeof vmOptionsFor>; sources: GuestSources; key: string };

export function templateKey(digest: string, sources: GuestSources, vmOptions: { intrinsics: number; maxStackSize: number }): string;

export function buildTemplate(QuickJS: unknown, vmOptions: unknown, sources: GuestSources): Promise<{ image: TemplateImage; vm: any }>;

export function writeTemplateImage(file: string | URL, key: string, image: TemplateImage): void;

export function readTemplateImage(file: string | URL, key: string): { image: TemplateImage; absent?: undefined } | { absent: string; image?: undefined };
