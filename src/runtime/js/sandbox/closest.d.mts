/** Up to `limit` tools nearest to `wanted`, nearest first (mirrors closestNames in names.ts). */
export function closestTools(
  wanted: string,
  tools: ReadonlyArray<readonly [name: string, label: string, id: string]>,
  limit?: number,
): Array<{ name: string; label: string; d: number }>;

/** The message a script gets for reading a tool that does not exist. */
export function unknownToolMessage(
  key: string,
  config: { tools: Array<[string, string, string]>; collisions: Array<[string, string[]]>; nested?: Array<[string, string]> },
): string;

/** The message a script gets for reading a member its namespace does not have. */
export function unknownMemberMessage(where: string, key: string, members: string[]): string;

/** The runners' answer to the preludes' unknown-name question (`null` for malformed arguments). */
export function unknownNameMessage(
  config: { tools: Array<[string, string, string]>; collisions: Array<[string, string[]]>; nested?: Array<[string, string]> },
  key: unknown,
  where: unknown,
  members: unknown,
): string | null;
