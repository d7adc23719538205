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
import { describeTimeout, isTimeout } from '../host/refusals.ts';
import { approveUpFront, DECLINED_TEXT } from '../approvals/up-front.ts';
import { buildBindings, type ExecutionLedger, type RunScope } from './bindings.ts';
import { ToolCatalog } from '../runtime/catalog.ts';
import { describeCodeExecution, toolDescriptors } from './description.ts';
import { ListingCache, scriptCallable } from './listing-cache.ts';
import { IdentityWalk } from '../host/identity-walk.ts';
import type { ToolBinding } from '../runtime/types.ts';
import type { ToolDescriptor } from '../runtime/declarations/index.ts';
import { DescriptionMemo } from './description-memo.ts';
import { LiveOutput } from './live-output.ts';
import { ShapeLearner } from './learned-shapes.ts';
import { LearnedRefresh } from './learned-refresh.ts';
import { LearnedPersist } from './learned-persist.ts';
import { toolSearchBindings } from './tool-search.ts';
import { CODE_EXECUTION, DEFAULTS, type CodeExecutionOptions, type ScriptLanguage } from './options.ts';
import { RESULT_ENVELOPE_SCHEMA } from './output-schema.ts';
import { buildEnvelope, refusalResult, toToolResult, type RunReport, type TimeLimit } from './result.ts';
import { ConversationRunners } from './runners.ts';
import type { Lease } from './conversation-lock.ts';
import { explainFinalExpression, prepareForRun, restorePositions, syntaxErrorReport, type NormalizedScript } from './normalize.ts';
import { NormalizePool } from '../runtime/js/normalize/pool.ts';
import { codeTooLarge, DEFAULT_MAX_CODE_BYTES } from './code-size.ts';
import { BackgroundScripts, DEFAULT_BACKGROUND_RESULT_MS, DEFAULT_MAX_BACKGROUND_SCRIPTS } from './background/registry.ts';
import { StoredScripts } from './background/stored.ts';
import { StoredGrants } from './stored-grants.ts';
import { answerAction, DEFAULT_MAX_WAIT_MS, DEFAULT_WAIT_MS, finishedResult, runningResult, waitMs, type WaitBounds } from './background/actions.ts';
import { textDigest } from '../host/arguments-digest.ts';
import type { RunRecord } from '../store/journal.ts';
import { DEFAULT_MAX_CONTENT_BYTES, MAX_CONTENT_BLOCKS, takeReturnedContent, type ContentLimits } from './returned-content.ts';
import { DEFAULT_RESULT_PAGES_LIMITS, ResultPages } from './result-pages.ts';
import { pageCharsFor, readMoreLine, registerResultPage } from './result-page-tool.ts';
import type { KeepCutValue } from './result.ts';

/** What {@link registerCodeExecution} returns: the registered tool's handle. */
export interface CodeExecution {
  /** The current model-facing description (built once per change of the host's tools). */
  describe(): string;
  /** How many times the description and the script's tool list were built (tests count rebuilds). */
  readonly builds: { readonly description: number; readonly bound: number };
  /**
   * Frees what this tool keeps for a conversation — its JavaScript VM, its Python interpreter
   * and their sessions — once the conversation is over. {@link ToolHost.endConversation} calls
   * it (and does the host's part: aborting open calls, forgetting inferences and grants); call
   * it directly only to drop the scripts' state while the conversation goes on. A later run in
   * the conversation starts fresh (`session.fresh: true`).
   */
  endConversation(conversationId: string): Promise<void>;
  /**
   * Settles when the result types learned by earlier processes are read from the store of
   * `durable` (learned-persist.ts) and in the declarations; at once without a store. Never rejects.
   */
  readonly learnedLoaded: Promise<void>;
  /** Kills every interpreter and worker (and saves learned result types not yet saved). */
  close(): Promise<void>;
  readonly runners: ConversationRunners;
  /** Background scripts, running and finished (code-execution/background/). */
  readonly background: BackgroundScripts;
}

/**
 * Registers the `code_execution` tool (class `shell`) on the host: model-written JavaScript and
 * Python whose every tool call is dispatched and observed like the model's own.
 * `close()` the returned handle before the host.
 */
export function registerCodeExecution(host: ToolHost, options: CodeExecutionOptions = {}): CodeExecution {
  const languages = options.languages ?? (['javascript', 'python'] as const);
  if (languages.length === 0) throw new Error('code_execution needs at least one language');
  const defaultMs = options.defaultTimeLimitMs ?? DEFAULTS.defaultTimeLimitMs;
  const maxMs = options.maxTimeLimitMs ?? DEFAULTS.maxTimeLimitMs;
  if (defaultMs < 1000 || maxMs < 1000) throw new Error('code_execution time limits must be at least 1000 ms');
  const callTimeoutMs = (options.innerCallTimeoutMs ?? DEFAULTS.innerCallTimeoutMs) + (options.innerCallGraceMs ?? DEFAULTS.innerCallGraceMs);
  // The host's rule for timeouts, checked here rather than left to every inner call's refusal (invalid_request).
  if (!isTimeout(callTimeoutMs)) {
    throw new TypeError(`innerCallTimeoutMs + innerCallGraceMs must be milliseconds above 0 (Infinity for none), not ${describeTimeout(callTimeoutMs)}`);
  }
  const maxResultChars = options.maxResultChars ?? DEFAULTS.maxResultChars;
  // A cut value's whole JSON text, kept for the model to page with result_page (result-pages.ts).
  const pageLimits = options.resultPages === false ? undefined : { ...DEFAULT_RESULT_PAGES_LIMITS, ...options.resultPages };
  if (pageLimits !== undefined && !Object.values(pageLimits).every((n) => Number.isSafeInteger(n) && n >= 1)) {
    throw new Error('resultPages: perConversationBytes, totalBytes and ttlMs must be whole numbers ≥ 1');
  }
  const pages = pageLimits === undefined ? undefined : new ResultPages(pageLimits);
  const pageChars = pageCharsFor(maxResultChars);
  const keepFor = (conversationId: string): KeepCutValue | undefined => {
    if (pages === undefined) return undefined;
    return (json) => {
      const kept = pages.keep(conversationId, json);
      return 'handle' in kept ? { handle: kept.handle, more: readMoreLine(kept.handle, pageChars, pageLimits!.ttlMs) } : { more: `The rest was not kept: ${kept.refused}.` };
    };
  };
  const contentLimits: ContentLimits = { maxBytes: options.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES, maxBlocks: MAX_CONTENT_BLOCKS };
  if (!(Number.isSafeInteger(contentLimits.maxBytes) && contentLimits.maxBytes >= 1)) throw new Error('maxContentBytes must be a whole number of bytes ≥ 1');
  const maxCodeBytes = options.maxCodeBytes ?? DEFAULT_MAX_CODE_BYTES;
  if (!(Number.isSafeInteger(maxCodeBytes) && maxCodeBytes >= 1)) throw new Error('maxCodeBytes must be a whole number of bytes ≥ 1');
  const whenBusy = options.whenBusy ?? 'refuse';
  if (whenBusy !== 'refuse' && whenBusy !== 'wait') throw new Error(`whenBusy must be 'refuse' or 'wait', got ${String(whenBusy)}`);
  const busyWaitMs = options.busyWaitMs ?? DEFAULTS.busyWaitMs;
  const maxCalls = options.maxCallsPerExecution ?? DEFAULTS.maxCallsPerExecution;
  if (!(Number.isInteger(maxCalls) || maxCalls === Infinity) || maxCalls < 0) throw new Error('maxCallsPerExecution must be an integer ≥ 0 (or Infinity)');
  if (!(busyWaitMs >= 0) || busyWaitMs > 2 ** 31 - 1) throw new Error('busyWaitMs must be a number of milliseconds ≥ 0');
  const waitBounds: WaitBounds & { resultMs: number } = {
    defaultWaitMs: options.defaultWaitMs ?? DEFAULT_WAIT_MS,
    maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    resultMs: options.backgroundResultMs ?? DEFAULT_BACKGROUND_RESULT_MS,
  };
  const maxBackground = options.maxBackgroundScripts ?? DEFAULT_MAX_BACKGROUND_SCRIPTS;
  for (const [name, value] of [['defaultWaitMs', waitBounds.defaultWaitMs], ['maxWaitMs', waitBounds.maxWaitMs]] as const) {
    if (!(Number.isFinite(value) && value >= 0 && value <= 2 ** 31 - 1)) throw new Error(`${name} must be a number of milliseconds ≥ 0`);
  }
  if (!(waitBounds.resultMs > 0 && waitBounds.resultMs <= 2 ** 31 - 1)) throw new Error('backgroundResultMs must be a positive number of milliseconds');
  if (!(Number.isInteger(maxBackground) && maxBackground >= 0)) throw new Error('maxBackgroundScripts must be an integer ≥ 0');
  if (options.backgroundLeaseMs !== undefined && !(options.backgroundLeaseMs >= 3 && options.backgroundLeaseMs <= 2 ** 31 - 1)) throw new Error('backgroundLeaseMs must be a number of milliseconds ≥ 3');
  // With a store, a detached script's row and outcome are kept there too (background/stored.ts).
  const scriptStore = options.durable?.store;
  const background = new BackgroundScripts({ maxRunning: maxBackground, resultMs: waitBounds.resultMs }, (script) => {
    if (!script.detached) return;
    const ok = script.result?.structuredContent?.ok === true;
    host.emit('script-finished', { scriptId: script.scriptId, toolCallId: script.toolCallId, inferenceId: script.inferenceId, conversationId: script.conversationId, status: script.status === 'cancelled' ? 'cancelled' : 'completed', ok, result: finishedResult(script) });
  }, scriptStore ? new StoredScripts(scriptStore, waitBounds.resultMs, host.logger, options.backgroundLeaseMs) : undefined);
  const sessionIdleMs = options.sessionIdleMs;
  if (sessionIdleMs !== undefined && !(sessionIdleMs > 0 && sessionIdleMs <= 2 ** 31 - 1)) {
    throw new Error('sessionIdleMs must be a positive number of milliseconds');
  }
  // A session's idle reclaim is the JavaScript VM slot's and the Python interpreter's idle timeout.
  const jsPool = sessionIdleMs === undefined ? options.jsPool : { idleVmMs: sessionIdleMs, ...options.jsPool };
  const python = {
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(sessionIdleMs !== undefined ? { idleTimeoutMs: sessionIdleMs } : {}),
    ...(options.caps ? { caps: options.caps } : {}),
    ...options.python,
  };
  const runners = new ConversationRunners(
    options.jsPoolSize ?? 1,
    python,
    { engine: options.engine, pool: jsPool, isolation: options.isolation, ...(options.jsThreads !== undefined ? { quickjsThreads: options.jsThreads } : {}), ...(options.jsInline !== undefined ? { quickjsInline: options.jsInline } : {}), ...(options.caps ? { caps: options.caps } : {}) },
    options.maxPythonInterpreters,
  );
  // The JavaScript sandbox starts now, not at the first script: its thread (or process) loads
  // the engine and prepares a VM while the model is still thinking. A bad option still surfaces
  // at the first run, from the same promise.
  if (languages.includes('javascript')) runners.javascript().catch(() => {});
  // Scripts that are large or TypeScript are prepared on threads of their own (normalize.ts).
  const normalizePool = new NormalizePool();
  const allow = options.allowTool ?? (() => true);
  const maxDescriptionChars = options.maxDescriptionChars ?? DEFAULTS.maxDescriptionChars;
  const shapes = new ShapeLearner();
  const learned = (tool: string) => shapes.schemaFor(tool);
  // What each tool contributes to the description, kept between builds: a change of the tool
  // set derives only the tools that changed (issue 46 item 5).
  const memo = new DescriptionMemo();
  const include = (t: RegisteredTool) => scriptCallable(t) && allow(t);
  const cache = new ListingCache(
    host,
    (available) => describeCodeExecution(available, languages, { defaultMs, maxMs, maxChars: maxDescriptionChars, learned, learnedVersion: shapes.version, include, memo }),
    allow,
  );
  const relist = new LearnedRefresh(host, shapes);
  const shapeStore = options.durable?.store;
  const persist = shapeStore ? new LearnedPersist(shapes, shapeStore, host.logger, () => host.refreshListing()) : undefined;
  const describe = () => cache.description();
  // A script's bindings per language — the bound tools, then describe() and searchTools(),
  // which answer from the declared tools on the host side (not dispatched, not recorded) — as
  // one catalog per registry version: planned once, sent to each sandbox and interpreter once.
  // Each bound tool's binding and, when a script may call it, its descriptor for describe() and
  // searchTools(): kept between catalogs, so a change of the tool set makes only the changed
  // tools' (issue 46 item 5).
  const pieces = new IdentityWalk<RegisteredTool, { binding: ToolBinding; descriptor: ToolDescriptor | undefined }>((t) => ({
    binding: buildBindings([t])[0]!,
    descriptor: t.scriptCallable !== false ? toolDescriptors([t])[0]! : undefined,
  }));
  let catalogs: { of: readonly RegisteredTool[]; bindings: ToolBinding[]; searchable: ToolDescriptor[]; javascript?: ToolCatalog; python?: ToolCatalog } | undefined;
  const catalogFor = (language: ScriptLanguage): ToolCatalog => {
    const bound = cache.bound();
    if (catalogs?.of !== bound) {
      const { values } = pieces.build(bound);
      const bindings = new Array<ToolBinding>(values.length);
      const searchable: ToolDescriptor[] = [];
      for (let i = 0; i < values.length; i++) {
        const piece = values[i]!;
        bindings[i] = piece.binding;
        if (piece.descriptor !== undefined) searchable.push(piece.descriptor);
      }
      catalogs = { of: bound, bindings, searchable };
    }
    let catalog = catalogs[language];
    if (catalog === undefined) catalog = catalogs[language] = new ToolCatalog([...catalogs.bindings, ...toolSearchBindings(catalogs.searchable, language)]);
    return catalog;
  };

  const durable = options.durable;
  // With a store, conversation grants are kept there too (stored-grants.ts): shared by every host on it.
  const unkeepGrants = durable?.store ? host.approvals.keepIn(new StoredGrants(durable.store), host.logger) : undefined;

  async function handler(args: Record<string, unknown>, ctx: HostToolContext): Promise<ToolResult> {
    // Read now: an abort that came before this point must reach the script (the signal is lazy).
    const signal = ctx.signal;
    if (args.action !== undefined) return answerAction(args, ctx.conversationId, background, waitBounds, signal);
    if (args.scriptId !== undefined) return refusalResult('scriptId goes with an action: "wait", "status" or "cancel".');
    if (args.background !== undefined && typeof args.background !== 'boolean') return refusalResult('background must be true or false.');
    if (args.background === false && args.wait_ms !== undefined) return refusalResult('wait_ms applies to background runs (background: true).');
    // wait_ms alone asks for a background run too: the model said how long it will wait.
    const inBackground = args.background === true || args.wait_ms !== undefined;
    const waitFor = inBackground ? waitMs(args.wait_ms, waitBounds) : 0;
    if (typeof waitFor !== 'number') return refusalResult(waitFor.refused);
    // Taken before any await: the first code_execution call of a resuming request is the resumed run.
    const resume = durable?.takeResume();
    const written = args.code;
    // The size first: everything below does work in proportion to it.
    const tooLarge = typeof written === 'string' ? codeTooLarge(written, maxCodeBytes) : undefined;
    if (tooLarge !== undefined) return refusalResult(tooLarge);
    if (typeof written !== 'string' || written.trim() === '') return refusalResult('code_execution needs `code`: a non-empty string.');
    const language = (args.language ?? 'javascript') as ScriptLanguage;
    if (!languages.includes(language)) return refusalResult(`language must be one of: ${languages.join(', ')}.`);
    // Normalized first, so that the up-front approval reads the same script that runs.
    const prepared = await prepareForRun(written, language, normalizePool, ctx.conversationId);
    if (!prepared.ok) return refusalResult(prepared.message);
    const { script } = prepared;
    const { code } = script;
    if (code.trim() === '') return refusalResult('code_execution needs `code`: the fenced script is empty.');
    if (resume !== undefined && (resume.codeDigest !== textDigest(code) || resume.language !== language)) {
      return refusalResult(`replay refused: the paused run was a ${resume.language} script ${resume.codeDigest}, not this ${language} script ${textDigest(code)}; nothing ran`);
    }
    const requested = args.time_limit_ms === undefined ? defaultMs : Number(args.time_limit_ms);
    if (!Number.isFinite(requested) || requested < 1000) return refusalResult('time_limit_ms must be a number of at least 1000.');
    const timeLimit: TimeLimit = { requestedMs: requested, appliedMs: Math.min(requested, maxMs), capped: requested > maxMs };
    if (args.reset !== undefined && typeof args.reset !== 'boolean') return refusalResult('reset must be true or false.');
    const reset = args.reset === true;
    // Neither JavaScript nor TypeScript: the parser's words, line and caret, and nothing runs.
    if (script.syntaxError !== undefined) return toToolResult(buildEnvelope(syntaxErrorReport(script.syntaxError), timeLimit, script.normalized), maxResultChars, false);
    // One up-front question for the gated tools the script names; declined, nothing runs.
    const gate = host.approvalGate;
    // The conversation's grants as the store has them now (made or revoked at another host too):
    // the up-front request and this run's calls go by them. Without a store, nothing to read.
    if (gate !== undefined) await host.approvals.refresh(ctx.conversationId);
    if (gate?.decideBatch) {
      const approval = await approveUpFront(host, { code, language }, cache.bound().filter((t) => t.scriptCallable !== false), {
        toolCallId: ctx.toolCallId,
        inferenceId: ctx.inferenceId,
        conversationId: ctx.conversationId,
        ...(ctx.modelCallId !== undefined ? { modelCallId: ctx.modelCallId } : {}),
      }, signal);
      if (!approval.run) return refusalResult(`${DECLINED_TEXT}: ${approval.reason}`);
    }
    if (inBackground) return startInBackground(script, language, timeLimit, reset, ctx, waitFor, gate !== undefined, resume);
    try {
      const lease = await claim(ctx, signal);
      if ('refused' in lease) return refusalResult(lease.refused);
      return await runScript(lease.lease, script, language, timeLimit, reset, ctx, signal, gate !== undefined, ctx.onProgress, resume);
    } finally {
      host.approvals.endExecution(ctx.toolCallId);
      durable?.end(ctx.toolCallId);
    }
  }

  /**
   * The conversation for one execution, or why not. A background script still running in it
   * holds its session: a new run is refused at once, naming the script to wait for or cancel.
   */
  async function claim(ctx: HostToolContext, signal: AbortSignal): Promise<{ lease: Lease } | { refused: string }> {
    const busy = background.runningIn(ctx.conversationId);
    if (busy !== undefined) {
      return { refused: `Background script ${busy.scriptId} is still running in this conversation and holds its session; this script was not run. Wait for it (action "wait") or cancel it (action "cancel"), then run again.` };
    }
    // Claimed synchronously when the conversation is free: a second execution started in the same tick must not get in.
    const acquired = runners.claim(ctx.conversationId, { signal, whenBusy, busyWaitMs });
    return acquired instanceof Promise ? await acquired : acquired;
  }

  /**
   * A background run: the script runs under its own signal (its call's abort no longer stops
   * it), its inner calls keep the call's ids and may outlive the call's terminal, and the call
   * answers with the result when the script ends within `waitFor`, else `running` with its id.
   */
  async function startInBackground(script: NormalizedScript, language: ScriptLanguage, timeLimit: TimeLimit, reset: boolean, ctx: HostToolContext, waitFor: number, callSites: boolean, resume: RunRecord | undefined): Promise<ToolResult> {
    const acquired = await claim(ctx, ctx.signal);
    // The host's cap is checked once the conversation is ours, in the same turn as start():
    // two runs that waited for their conversations cannot both pass it.
    if ('refused' in acquired) {
      host.approvals.endExecution(ctx.toolCallId);
      return refusalResult(acquired.refused);
    }
    const overCap = background.refusal();
    if (overCap !== undefined) {
      acquired.lease.release();
      host.approvals.endExecution(ctx.toolCallId);
      return refusalResult(overCap);
    }
    const release = host.letChildrenOutlive(ctx.toolCallId);
    // Progress goes to the call's caller only while the call is open.
    const sink = ctx.onProgress;
    let open = true;
    const progress = sink ? (p: Parameters<typeof sink>[0]) => { if (open) sink(p); } : undefined;
    const origin = { conversationId: ctx.conversationId, toolCallId: ctx.toolCallId, inferenceId: ctx.inferenceId, timeLimit };
    const started = background.start(origin, (signal) =>
      runScript(acquired.lease, script, language, timeLimit, reset, ctx, signal, callSites, progress, resume).finally(() => {
        release();
        host.approvals.endExecution(ctx.toolCallId);
        durable?.end(ctx.toolCallId);
      }),
    );
    await background.wait(started, waitFor, ctx.signal);
    open = false;
    if (started.result !== undefined) {
      background.drop(started);
      return started.result;
    }
    await background.detach(started);
    return runningResult(started);
  }

  async function runScript(
    lease: Lease,
    { code, normalized, positions }: NormalizedScript,
    language: ScriptLanguage,
    timeLimit: TimeLimit,
    reset: boolean,
    ctx: HostToolContext,
    signal: AbortSignal,
    callSites: boolean,
    onProgress: HostToolContext['onProgress'],
    resume: RunRecord | undefined,
  ): Promise<ToolResult> {
    try {
      const progress = onProgress ? increasing(onProgress) : undefined;
      const ledger: ExecutionLedger = { endTurn: false, live: true, ended: 0, budget: { limit: maxCalls, opened: 0 }, ...(progress ? { progress } : {}) };
      // Only when someone can see it: a listener of the host's event, or a caller asking for progress.
      const live = progress || host.listenerCount('script-output') > 0
        ? new LiveOutput(host, ctx, progress ? (message) => progress({ progress: ledger.ended, message }) : undefined)
        : undefined;
      const tools = catalogFor(language);
      const scope: RunScope = { host, parent: { toolCallId: ctx.toolCallId, inferenceId: ctx.inferenceId }, ledger, callTimeoutMs, shapes };
      const journal = durable?.begin(ctx.toolCallId, language, textDigest(code), resume);
      if (journal !== undefined) scope.journal = journal;
      let report: RunReport;
      if (language === 'javascript') {
        report = await (await runners.javascript()).execute(code, {
          tools,
          scope,
          timeoutMs: timeLimit.appliedMs,
          signal,
          conversation: ctx.conversationId,
          reset,
          ...(callSites ? { callSites } : {}),
          ...(live ? { onOutput: live.push } : {}),
          ...(journal !== undefined ? { durable: journal.reads() } : {}),
        });
      } else {
        // A reset ends the conversation's interpreter: the run starts in a new one, with no globals.
        if (reset) await runners.reclaimPython(ctx.conversationId);
        report = await runners.pythonFor(ctx.conversationId).run(code, { tools, scope, timeoutMs: timeLimit.appliedMs, signal, ...(callSites ? { callSites } : {}), ...(live ? { onOutput: live.push } : {}), ...(journal !== undefined ? { durable: journal.reads() } : {}) });
      }
      live?.end();
      ledger.live = false;
      // A resumed run that left its journal, or stopped short of it, was not the run that paused: its result is not given.
      if (journal?.diverged !== undefined) return refusalResult(journal.diverged);
      if (journal !== undefined && !journal.replayComplete) {
        return refusalResult(`replay refused: the resumed script ended before making the ${journal.replayLength} calls its journal holds`);
      }
      relist.afterRun();
      persist?.afterRun();
      const taken = takeReturnedContent(explainFinalExpression(restorePositions(report, positions), normalized), contentLimits);
      return toToolResult(buildEnvelope(taken.report, timeLimit, normalized, taken.content?.summary), maxResultChars, ledger.endTurn, taken.content?.blocks, keepFor(ctx.conversationId));
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
        code: { type: 'string', description: 'The script: JavaScript or TypeScript (or Python, with language "python").' },
        language: { type: 'string', enum: [...languages], description: 'Script language; default "javascript".' },
        time_limit_ms: { type: 'integer', minimum: 1000, description: `Wall-clock limit; default ${defaultMs}, capped at ${maxMs}.` },
        reset: { type: 'boolean', description: 'Start a fresh session: forget the variables earlier runs in this conversation left.' },
        background: { type: 'boolean', description: 'Keep running past wait_ms: the answer is then {status:"running", scriptId}.' },
        wait_ms: { type: 'integer', minimum: 0, description: `How long to wait for a background script before answering running; default ${waitBounds.defaultWaitMs}, capped at ${waitBounds.maxWaitMs}.` },
        action: { type: 'string', enum: ['wait', 'status', 'cancel'], description: 'With scriptId instead of code: wait for, read, or stop a background script.' },
        scriptId: { type: 'string', description: 'The id a running answer gave.' },
      },
      additionalProperties: false,
    },
    outputSchema: RESULT_ENVELOPE_SCHEMA as unknown as Record<string, unknown>,
    handler,
  });

  if (pages !== undefined) registerResultPage(host, pages, pageChars);

  const endConversation = async (conversationId: string) => {
    pages?.endConversation(conversationId);
    // Its background scripts stop first: each holds the session the runners then free.
    await background.endConversation(conversationId);
    await runners.endConversation(conversationId);
  };
  const unhook = host.onConversationEnd(endConversation);
  return {
    describe,
    builds: cache.builds,
    learnedLoaded: persist?.loaded ?? Promise.resolve(),
    endConversation,
    close: async () => {
      unhook();
      unkeepGrants?.();
      relist.close();
      await persist?.close();
      pages?.clear();
      const stopping = background.close();
      await Promise.all([runners.close(), normalizePool.close(), stopping]);
    },
    runners,
    background,
  };
}

/** Smallest step added to a progress value that would not increase (MCP requires each to). */
const PROGRESS_STEP = 1e-6;

/**
 * A progress sink whose values always increase, as MCP requires: live output and an inner
 * call's own progress report between two counts of ended calls, so a value that would not
 * increase is raised just above the last one instead of being dropped downstream.
 */
function increasing(sink: NonNullable<HostToolContext['onProgress']>): NonNullable<HostToolContext['onProgress']> {
  let last = -Infinity;
  return (p) => {
    const progress = p.progress > last ? p.progress : last + PROGRESS_STEP;
    last = progress;
    sink(progress === p.progress ? p : { ...p, progress });
  };
}

