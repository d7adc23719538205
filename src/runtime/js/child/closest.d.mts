/** Up to `limit` tools nearest to `wanted`, nearest first (mirrors closestNames in names.ts). */
export function closestTools(
  wanted: string,
  tools: ReadonlyArray<readonly [name: string, label: string, id: string]>,
  limit?: number,
): Array<{ name: string; label: string; d: number }>;

/** The message a script gets for reading a tool that does not exist. */
export function unknownToolMessage(
  key: string,
  config: { tools: Array<[string, string, string]>; collisions: Array<[string, string[]]> },
): string;
