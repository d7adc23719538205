/**
 * The logger a {@link ToolHost} uses when it was given none: pino, to stderr, at
 * `TOOLCELL_LOG_LEVEL` (default `warn`), every line redacted (lifecycle/log-redaction.ts). pino and its dependencies (~30 modules) are required
 * here on first use, not imported with the package: a host that never logs — the usual first
 * call — never loads them (issue 46: importing the package loads only what the first call needs).
 */
import { createRequire } from 'node:module';
import type pino from 'pino';
import type { Logger } from 'pino';
import { REDACTING_LOG_OPTIONS } from '../lifecycle/log-redaction.ts';

const require = createRequire(import.meta.url);

/** A new pino logger named `toolcell`, writing to file descriptor 2. */
export function defaultLogger(): Logger {
  // pino is CommonJS, so it can be loaded synchronously, where the logger is first asked for.
  const create = require('pino') as typeof pino;
  // Every line passes value redaction (issue 42: no secret leaves the host in a log).
  return create({ name: 'toolcell', level: process.env.TOOLCELL_LOG_LEVEL ?? 'warn', ...REDACTING_LOG_OPTIONS }, create.destination(2));
}
