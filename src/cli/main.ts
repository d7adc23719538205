#!/usr/bin/env node
/**
 * toolcell command line.
 *
 *   toolcell demo [--python] [--plain]   a scripted turn on embedded defaults (no model, no API key)
 *   toolcell serve [--config FILE]       the tool host as an MCP server on stdio
 *   toolcell help
 */
import { runDemo } from './demo.ts';
import { runServe } from '../serve/run.ts';

const USAGE = `Usage: toolcell <command> [options]

Commands:
  demo        Run a scripted turn against fixture servers and print what each observer saw.
              --plain   the model calls tools directly (no code_execution script)
              --python  the code_execution script is Python instead of JavaScript
  serve       Serve every configured tool, plus code_execution, as an MCP server on stdio.
              --config FILE  JSON: { conversationId?, servers?: [ServerConfig], codeExecution?: {…} | false }
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
    case 'serve': {
      const at = rest.indexOf('--config');
      const unknown = rest.filter((a, i) => a !== '--config' && i !== at + 1);
      if (unknown.length || (at !== -1 && rest[at + 1] === undefined)) {
        process.stderr.write(`bad options: ${rest.join(' ')}\n\n${USAGE}`);
        return 2;
      }
      return runServe(at === -1 ? undefined : rest[at + 1]);
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
    process.stderr.write(`toolcell: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
