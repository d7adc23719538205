/**
 * The `code_execution` host tool (class `shell`): runs a model-written script whose every
 * tool call is dispatched and observed like the model's own.
 *
 * @example
 * ```ts
 * const host = new ToolHost();
 * const codeExecution = registerCodeExecution(host, { languages: ['javascript', 'python'] });
 * // the model calls: code_execution({ code: 'const r = await tools.x__run({a: 1}); return r;' })
 * await codeExecution.close();
 * ```
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { HostToolContext, RegisteredTool, ToolResult } from '../host/types.ts';
import { buildBindings, type ExecutionLedger } from './bindings.ts';
import { describeCodeExecution } from './description.ts';
import { CODE_EXECUTION, DEFAULTS, type CodeExecutionOptions, type ScriptLanguage } from './options.ts';
import { refusalResult, summarizeCalls, toToolResult, type ExecutionSummary, type TimeLimit } from './result.ts';
import { ConversationRunners } from './runners.ts';

export interface CodeExecution {
  /** The current model-facing description. */
  describe(): string;
  /** Kills every interpreter and worker. */
  close(): Promise<void>;
  readonly runners: ConversationRunners;
}

export function registerCodeExecution(host: ToolHost, options: CodeExecutionOptions = {}): CodeExecution {
  const languages = options.languages ?? (['javascript', 'python'] as const);
  if (languages.length === 0) throw new Error('code_execution needs at least one language');
  const defaultMs = options.defaultTimeLimitMs ?? DEFAULTS.defaultTimeLimitMs;
  const maxMs = options.maxTimeLimitMs ?? DEFAULTS.maxTimeLimitMs;
  if (defaultMs < 1000 || maxMs < 1000) throw new Error('code_execution time limits must be at least 1000 ms');
  const callTimeoutMs = (options.innerCallTimeoutMs ?? DEFAULTS.innerCallTimeoutMs) + (options.innerCallGraceMs ?? DEFAULTS.innerCallGraceMs);
  const maxResultChars = options.maxResultChars ?? DEFAULTS.maxResultChars;
  const whenBusy = options.whenBusy ?? 'refuse';
  if (whenBusy !== 'refuse' && whenBusy !== 'wait') throw new Error(`whenBusy must be 'refuse' or 'wait', got ${String(whenBusy)}`);
  const busyWaitMs = options.busyWaitMs ?? DEFAULTS.busyWaitMs;
  if (!(busyWaitMs >= 0) || busyWaitMs > 2 ** 31 - 1) throw new Error('busyWaitMs must be a number of milliseconds ≥ 0');
  const sessionIdleMs = options.sessionIdleMs;
  if (sessionIdleMs !== undefined && !(sessionIdleMs > 0 && sessionIdleMs <= 2 ** 31 - 1)) {
    throw new Error('sessionIdleMs must be a positive number of milliseconds');
  }
  // A session's idle reclaim is the JavaScript VM slot's and the Python interpreter's idle timeout.
  const jsPool = sessionIdleMs === undefined ? options.jsPool : { idleVmMs: sessionIdleMs, ...options.jsPool };
  const python = sessionIdleMs === undefined ? options.python ?? {} : { idleTimeoutMs: sessionIdleMs, ...options.python };
  const runners = new ConversationRunners(options.jsPoolSize ?? 1, python, { engine: options.engine, pool: jsPool });
  const allow = options.allowTool ?? (() => true);
  const scriptTools = (): RegisteredTool[] =>
    host.registry.all().filter((t) => t.name !== CODE_EXECUTION && t.scriptCallable !== false && allow(t));
  const describe = () => describeCodeExecution(scriptTools(), languages, { defaultMs, maxMs });
  // Tools a script may not call (code_execution itself) are still bound, undeclared, so that a
  // script trying one meets the host's own refusal site: a clear error, and nothing is sent.
  const boundTools = (): RegisteredTool[] => [...scriptTools(), ...host.registry.all().filter((t) => t.scriptCallable === false)];

  async function handler(args: Record<string, unknown>, ctx: HostToolContext): Promise<ToolResult> {
    // Read now: an abort that came before this point must reach the script (the signal is lazy).
    const signal = ctx.signal;
    const code = args.code;
    if (typeof code !== 'string' || code.trim() === '') return refusalResult('code_execution needs `code`: a non-empty string.');
    const language = (args.language ?? 'javascript') as ScriptLanguage;
    if (!languages.includes(language)) return refusalResult(`language must be one of: ${languages.join(', ')}.`);
    const requested = args.time_limit_ms === undefined ? defaultMs : Number(args.time_limit_ms);
    if (!Number.isFinite(requested) || requested < 1000) return refusalResult('time_limit_ms must be a number of at least 1000.');
    const timeLimit: TimeLimit = { requestedMs: requested, appliedMs: Math.min(requested, maxMs), capped: requested > maxMs };
    if (args.reset !== undefined && typeof args.reset !== 'boolean') return refusalResult('reset must be true or false.');
    const reset = args.reset === true;
    // Claim synchronously, before any await: a second execution started in the same tick must not get in.
    let acquired = runners.claim(ctx.conversationId, { signal, whenBusy, busyWaitMs });
    if (acquired instanceof Promise) acquired = await acquired;
    if ('refused' in acquired) return refusalResult(acquired.refused);
    const lease = acquired.lease;
    try {
      const ledger: ExecutionLedger = { endTurn: false, live: true, ended: 0, ...(ctx.onProgress ? { progress: ctx.onProgress } : {}) };
      const bindings = buildBindings(host, boundTools(), { toolCallId: ctx.toolCallId, inferenceId: ctx.inferenceId }, ledger, callTimeoutMs);
      let summary: ExecutionSummary;
      if (language === 'javascript') {
        const run = await (await runners.javascript()).execute(code, {
          tools: bindings,
          timeoutMs: timeLimit.appliedMs,
          signal,
          conversation: ctx.conversationId,
          reset,
        });
        summary = {
          language,
          ok: run.ok,
          ...(run.ok ? { value: run.value } : { error: run.error }),
          ...(run.stdout !== undefined ? { stdout: run.stdout } : {}),
          logs: run.logs,
          session: run.session ?? { fresh: true },
          ...summarizeCalls(run.calls),
          timeLimit,
        };
      } else {
        // A reset ends the conversation's interpreter: the run starts in a new one, with no globals.
        if (reset) await runners.reclaimPython(ctx.conversationId);
        const run = await runners.pythonFor(ctx.conversationId).run(code, { tools: bindings, timeoutMs: timeLimit.appliedMs, signal });
        summary = {
          language,
          ok: run.ok,
          stdout: run.stdout,
          stderr: run.stderr,
          returnCode: run.returnCode,
          session: run.session ?? { fresh: true },
          ...(run.value !== undefined ? { value: run.value } : {}),
          ...(run.error ? { error: run.error } : {}),
          ...(run.truncated ? { truncated: true } : {}),
          ...summarizeCalls(run.calls),
          timeLimit,
        };
      }
      ledger.live = false;
      return toToolResult(summary, maxResultChars, ledger.endTurn);
    } finally {
      // The runtime has returned: the script has stopped (JavaScript: its process killed;
      // Python: it reported done, or its interpreter exited).
      lease.release();
    }
  }

  host.registerTool({
    name: CODE_EXECUTION,
    description: 'Run a script that calls tools.',
    describe,
    classes: ['shell'],
    scriptCallable: false,
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'The script.' },
        language: { type: 'string', enum: [...languages], description: 'Script language; default "javascript".' },
        time_limit_ms: { type: 'integer', minimum: 1000, description: `Wall-clock limit; default ${defaultMs}, capped at ${maxMs}.` },
        reset: { type: 'boolean', description: 'Start a fresh session: forget the variables earlier runs in this conversation left.' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    handler,
  });

  return { describe, close: () => runners.close(), runners };
}
