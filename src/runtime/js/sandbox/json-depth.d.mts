/** Whether `json` (valid JSON text) nests arrays and objects deeper than `max` levels. */
export function jsonDeeperThan(json: string, max: number): boolean;
