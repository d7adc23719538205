#!/usr/bin/env node
/**
 * toolcell command line: parses strictly (src/cli/args.ts), then runs the demo or serve mode.
 *
 *   toolcell demo [--python] [--plain]                          a scripted turn on embedded defaults
 *   toolcell serve [--config FILE] [--http [HOST:]PORT [--token-file FILE]]   the host as an MCP server
 *   toolcell help | --help | -h
 */
import { parseCommandLine, USAGE } from './args.ts';

// The demo and serve load the host, the engines and the MCP SDK (some 350 modules): only the
// command that needs them loads them, so `--help` and a mistyped flag answer at once.

async function main(argv: string[]): Promise<number> {
  const command = parseCommandLine(argv);
  switch (command.kind) {
    case 'error':
      process.stderr.write(`toolcell: ${command.message}\n\n${USAGE}`);
      return 2;
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'demo': {
      // Said before the demo's 350 modules load and its servers and sandbox start (seconds on a
      // first run or a busy machine), so `npx toolcell` never sits silent.
      process.stderr.write(
        `toolcell: ${argv.length === 0 ? 'no command given, so ' : ''}running the demo: one scripted turn, no model and no API key` +
          `${argv.length === 0 ? ' (toolcell --help lists the commands)' : ''}\n`,
      );
      const { runDemo } = await import('./demo.ts');
      return runDemo({ python: command.python, plain: command.plain });
    }
    case 'serve': {
      const { runServe } = await import('../serve/run.ts');
      return runServe({
        ...(command.config !== undefined ? { configPath: command.config } : {}),
        ...(command.http ? { http: command.http } : {}),
        ...(command.tokenFile !== undefined ? { tokenFile: command.tokenFile } : {}),
      });
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`toolcell: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
