/**
 * Command-line parsing for `toolcell`, strict by design: an unknown flag, a missing value or a
 * repeated flag is an error with usage (exit 2), never silently ignored — `serve --config=x`
 * once ignored the file and `serve --help` once started serving. Pure: no I/O, so the rules
 * are testable and the caller decides what to print.
 */
import { parseArgs } from 'node:util';

export const USAGE = `Usage: toolcell <command> [options]

Commands:
  demo        Run a scripted turn against fixture servers and print what each observer saw.
              --plain             the model calls tools directly (no code_execution script)
              --python            the code_execution script is Python instead of JavaScript
  serve       Serve every configured tool, plus code_execution, as an MCP server
              (on stdio unless --http is given).
              --config FILE       JSON: { conversationId?, servers?: [...], codeExecution?: {...} | false }
              --http [HOST:]PORT  serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio;
                                  HOST defaults to 127.0.0.1, PORT 0 picks a free port
              --token-file FILE   require "Authorization: Bearer <token>" on every HTTP request,
                                  the token being the file's content (required off loopback)
  help        Show this text.

Every command takes --help (-h). Flags take their value as "--flag value" or "--flag=value".
`;

/** Where `--http` binds. */
export interface HttpBind {
  host: string;
  port: number;
}

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'demo'; python: boolean; plain: boolean }
  | { kind: 'serve'; config?: string; http?: HttpBind; tokenFile?: string };

/** A command line that cannot run: print `message` and usage, exit 2. */
export interface CliError {
  kind: 'error';
  message: string;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

const HELP: OptionSpec = { help: { type: 'boolean', short: 'h' } };

/** Parses one command's flags strictly; a flag given twice is refused (which one would win is a guess). */
function strictFlags(command: string, args: string[], options: OptionSpec): Record<string, string | boolean | undefined> | CliError {
  try {
    const { values, tokens } = parseArgs({ args, options: { ...options, ...HELP }, strict: true, allowPositionals: false, tokens: true });
    const seen = new Set<string>();
    for (const token of tokens) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) return { kind: 'error', message: `${command}: --${token.name} given more than once` };
      seen.add(token.name);
    }
    return values as Record<string, string | boolean | undefined>;
  } catch (error) {
    return { kind: 'error', message: `${command}: ${(error as Error).message}` };
  }
}

/** `PORT`, `HOST:PORT`, or `[IPV6]:PORT`. */
export function parseHttpBind(value: string): HttpBind | CliError {
  const bad = (why: string): CliError => ({ kind: 'error', message: `serve: --http ${JSON.stringify(value)}: ${why}` });
  let host = '127.0.0.1';
  let portText = value;
  const bracketed = /^\[([^\]]+)\]:(.*)$/.exec(value);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2]!;
  } else if (value.includes(':')) {
    const at = value.lastIndexOf(':');
    host = value.slice(0, at);
    portText = value.slice(at + 1);
    if (host.includes(':')) return bad('an IPv6 address goes in brackets, as in [::1]:8080');
    if (host === '') return bad('the host before ":" is empty');
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return bad('expected [HOST:]PORT with PORT a number from 0 to 65535');
  return { host, port: Number(portText) };
}

/** Parses `argv` (without node and the script). */
export function parseCommandLine(argv: readonly string[]): CliCommand | CliError {
  const [command = 'demo', ...rest] = argv;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      if (rest.length > 0) return { kind: 'error', message: `${command} takes no arguments (got ${rest.join(' ')})` };
      return { kind: 'help' };
    case 'demo': {
      const flags = strictFlags('demo', rest, { python: { type: 'boolean' }, plain: { type: 'boolean' } });
      if ('kind' in flags) return flags as CliError;
      if (flags.help) return { kind: 'help' };
      return { kind: 'demo', python: flags.python === true, plain: flags.plain === true };
    }
    case 'serve': {
      const flags = strictFlags('serve', rest, { config: { type: 'string' }, http: { type: 'string' }, 'token-file': { type: 'string' } });
      if ('kind' in flags) return flags as CliError;
      if (flags.help) return { kind: 'help' };
      for (const name of ['config', 'http', 'token-file'] as const) {
        if (flags[name] === '') return { kind: 'error', message: `serve: --${name} needs a non-empty value` };
      }
      const result: Extract<CliCommand, { kind: 'serve' }> = { kind: 'serve' };
      if (typeof flags.config === 'string') result.config = flags.config;
      if (typeof flags['token-file'] === 'string') result.tokenFile = flags['token-file'];
      if (typeof flags.http === 'string') {
        const bind = parseHttpBind(flags.http);
        if ('kind' in bind) return bind;
        result.http = bind;
      }
      if (result.tokenFile !== undefined && result.http === undefined) {
        return { kind: 'error', message: 'serve: --token-file only applies to --http (stdio has no bearer token)' };
      }
      return result;
    }
    default:
      return { kind: 'error', message: `unknown command: ${command}` };
  }
}
