/** Longest name, in characters, a ranking looks at. */
export const MAX_RANKED: number;
/** Most Levenshtein cells one ranking computes. */
export const BUDGET_CELLS: number;
/** Longest excerpt of a name an error message echoes back. */
export const MAX_ECHOED: number;

/** `name` as an error message may quote it: whole when short, else an excerpt and its length. */
export function echoName(name: string): string;

/** The bounded distance of names to `wanted` for one ranking (see closest.mjs). */
export function rankingMeasure(wanted: string): (other: string) => number;

/** Up to `limit` tools nearest to `wanted`, nearest first, on names and identifiers. */
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
