#!/usr/bin/env node
/**
 * toolcell command line.
 *
 *   toolcell demo [--python] [--plain]   a scripted turn on embedded defaults (no model, no API key)
 *   toolcell help
 */
import { runDemo } from './demo.ts';

const USAGE = `Usage: toolcell <command> [options]

Commands:
  demo        Run a scripted turn against fixture servers and print what each observer saw.
              --plain   the model calls tools directly (no code_execution script)
              --python  the code_execution script is Python instead of JavaScript
  help        Show this text.
`;

async function main(argv: string[]): Promise<number> {
  const [command = 'demo', ...rest] = argv;
  switch (command) {
    case 'demo': {
      const unknown = rest.filter((a) => !['--python', '--plain'].includes(a));
      if (unknown.length) {
        process.stderr.write(`unknown option(s): ${unknown.join(' ')}\n\n${USAGE}`);
        return 2;
      }
      return runDemo({ python: rest.includes('--python'), plain: rest.includes('--plain') });
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`toolcell: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
