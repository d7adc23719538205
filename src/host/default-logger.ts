/**
 * The logger a {@link ToolHost} uses when it was given none: pino, to stderr, at
 * `TOOLCELL_LOG_LEVEL` (default `warn`). pino and its dependencies (~30 modules) are required
 * here on first use, not imported with the package: a host that never logs — the usual first
 * call — never loads them (issue 46: importing the package loads only what the first call needs).
 */
import { createRequire } from 'node:module';
import type pino from 'pino';
import type { Logger } from 'pino';

const require = createRequire(import.meta.url);

/** A new pino logger named `toolcell`, writing to file descriptor 2. */
export function defaultLogger(): Logger {
  // pino is CommonJS, so it can be loaded synchronously, where the logger is first asked for.
  const create = require('pino') as typeof pino;
  return create({ name: 'toolcell', level: process.env.TOOLCELL_LOG_LEVEL ?? 'warn' }, create.destination(2));
}
