/**
 * Reading the log of test/serve/fixtures/wire-tee.mjs: the messages that crossed toward the
 * server behind the tee (its `> ` lines), from every process of it that wrote there.
 */
import { existsSync, readFileSync } from 'node:fs';

/** One message sent toward the provider, as the tee logged it. */
export interface TeedMessage {
  method?: string;
  params?: Record<string, unknown>;
}

/** The messages sent toward the provider so far (none while the log does not exist yet). */
export function sentToProvider(log: string): TeedMessage[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('> '))
    .map((l) => JSON.parse(l.slice(2)) as TeedMessage);
}
