/**
 * Turns host tools into script bindings. Each call a script makes goes through the host's one
 * dispatch path as its own call: its own `toolCallId`, the inner tool's name and class, the
 * parent's inference id, and the parent `code_execution` call's id as
 * `_meta["agent-framework/parentToolCallId"]`.
 *
 * The runtime's abort signal is deliberately not passed on: killing a script never cancels a
 * tool that was already dispatched. That call ends with its own result, or `failed` when the
 * safety timeout gives up.
 *
 * The bindings hold a tool and nothing else, so one set serves every execution while the tools
 * are unchanged (a catalog, planned and sent to the sandboxes once per registry version); each
 * execution hands its own {@link RunScope} to the runtime, which passes it to every call as
 * `ctx.scope`.
 *
 * When the `code_execution` call's caller asked for progress, each inner call that ends raises
 * it to the number of inner calls ended so far, and an inner call's own progress (when it has a
 * total) shows as the fraction between two such steps, its message prefixed with the tool name.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { DispatchOutcome, ExecutionBudget, RegisteredTool, ToolResult } from '../host/types.ts';
import { resultText } from '../host/results.ts';
import { JsonText } from '../runtime/json-text.ts';
import type { ToolBinding, ToolCallContext } from '../runtime/types.ts';
import { END_TURN_META_KEY } from './options.ts';
import { contentValue, jsonLikeText } from './content-objects.ts';
import type { ShapeLearner } from './learned-shapes.ts';
import type { RunRecorder } from './durable-runs.ts';

/** What the script sees when a call does not produce a successful result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export interface ParentCall {
  toolCallId: string;
  inferenceId: string;
}

/** Per-execution state the bindings report into. */
export interface ExecutionLedger {
  /** Set by an inner result asking for the turn to end, while the script still runs. */
  endTurn: boolean;
  /** False once the script has ended: later results cannot affect this execution. */
  live: boolean;
  /** Inner calls that have ended so far, whatever their outcome. */
  ended: number;
  /** The parent call's progress sink, when its caller asked for progress. */
  progress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** The execution's call budget, counted and enforced by the host's refusal site. */
  budget: ExecutionBudget;
}

/** The parent's progress sink for one inner call's own progress, or undefined when nobody listens. */
function innerProgress(ledger: ExecutionLedger, name: string): ((p: { progress: number; total?: number; message?: string }) => void) | undefined {
  if (!ledger.progress) return undefined;
  return (p) => {
    // Without a total there is no fraction to show between two steps.
    if (!ledger.live || !ledger.progress || typeof p.total !== 'number' || !(p.total > 0)) return;
    const fraction = Math.min(Math.max(p.progress / p.total, 0), 0.99);
    ledger.progress({ progress: ledger.ended + fraction, message: `${name}: ${p.message ?? `${p.progress}/${p.total}`}` });
  };
}

/**
 * What a script receives for a successful result: its structured content when it has some;
 * otherwise the text of a lone text block (parsed when it is JSON), `null` for no blocks, or
 * one content object per block (content-objects.ts: images, audio, resources as typed objects).
 */
export function scriptValue(result: ToolResult): unknown {
  const value = answerValue(result);
  return value instanceof JsonText ? value.value() : value;
}

/**
 * {@link scriptValue} as a binding answers it: a lone text block that may be JSON stays a
 * {@link JsonText}, which the JavaScript sandbox parses inside the VM anyway (taking the text
 * itself when it is not JSON, as contentValue does), so the host neither parses nor serializes it.
 */
function answerValue(result: ToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  return jsonLikeText(result.content) ?? contentValue(result.content);
}

function failure(name: string, outcome: DispatchOutcome): ToolError {
  const text = resultText(outcome.result) || `${name} ${outcome.status}`;
  // The host's own error texts already name the tool ("Tool x failed: …"); a prefix would repeat it.
  return new ToolError(outcome.status === 'completed' || text.includes(name) ? text : `${name} ${outcome.status}: ${text}`);
}

/** What every call of one execution shares: the runtime hands it to each binding as `ctx.scope`. */
export interface RunScope {
  host: ToolHost;
  parent: ParentCall;
  ledger: ExecutionLedger;
  callTimeoutMs: number;
  /** Learns the result shapes of tools that declare no output schema (learned-shapes.ts). */
  shapes?: ShapeLearner;
  /** With a store: the run's journal, and its replay when the run resumes a paused one (durable-runs.ts). */
  journal?: RunRecorder;
}

/**
 * One tool as scripts see it. A class rather than a closure per tool: a catalog binds every
 * tool (1,000 on a large host) and most are never called, so each binding is one field and the
 * call logic lives once, on the prototype. The runtimes call `invoke` as a method of the
 * binding, as {@link ToolBinding} declares it.
 */
class ScriptBinding implements ToolBinding {
  constructor(private readonly tool: RegisteredTool) {}

  get name(): string {
    return this.tool.name;
  }

  get description(): string {
    return this.tool.description;
  }

  async invoke(args: unknown, ctx: ToolCallContext): Promise<unknown> {
    // Set by every execution (tool.ts); a runtime that dropped it is a bug, not a tool failure.
    if (ctx.scope === undefined) throw new Error(`${this.tool.name}: the run gave its tools no scope`);
    const { host, parent, ledger, callTimeoutMs, journal } = ctx.scope as RunScope;
    const name = this.tool.name;
    if (journal !== undefined) return this.journaled(journal, args, ctx);
    const outcome = await host.dispatch({
      inferenceId: parent.inferenceId,
      name,
      // Python's `tools.x()` sends None for "no arguments", as JavaScript's sends undefined.
      input: args === null ? undefined : args,
      parentToolCallId: parent.toolCallId,
      timeoutMs: callTimeoutMs,
      // A human approving the call never counts against the script's time limit.
      onPending: ctx.pauseClock,
      executionBudget: ledger.budget,
      // Both undefined unless in use (call sites are captured only when an approval gate is
      // configured; progress only when the parent's caller asked for it): plain properties
      // rather than conditional spreads keep the per-call request cheap.
      callSite: ctx.site,
      onProgress: innerProgress(ledger, name),
    });
    return this.received(outcome, ctx);
  }

  /**
   * A call of a run that keeps a journal: replayed from it while the resumed run follows it
   * (not dispatched, not announced: it ran and was observed before the pause), else dispatched
   * and recorded.
   */
  private async journaled(journal: RunRecorder, args: unknown, ctx: ToolCallContext): Promise<unknown> {
    const { host, parent, ledger, callTimeoutMs } = ctx.scope as RunScope;
    const name = this.tool.name;
    const step = journal.next(name, args === null ? undefined : args);
    if (step.kind === 'unknown') {
      ledger.budget.opened += 1;
      ledger.ended += 1;
      throw new ToolError(`${name} was running when this run was paused and its outcome is unknown; it is not run again (a resumed run never repeats a call that may have run)`);
    }
    if (step.kind === 'replayed') {
      ledger.budget.opened += 1;
      return this.received(step.outcome as DispatchOutcome, ctx);
    }
    let outcome: DispatchOutcome;
    try {
      outcome = await host.dispatch({
        inferenceId: parent.inferenceId,
        name,
        input: args === null ? undefined : args,
        parentToolCallId: parent.toolCallId,
        timeoutMs: callTimeoutMs,
        onPending: () => {
          const resumeClock = ctx.pauseClock();
          const resumeRecord = journal.pending(step.seq);
          return () => {
            resumeRecord();
            resumeClock();
          };
        },
        executionBudget: ledger.budget,
        callSite: ctx.site,
        onProgress: innerProgress(ledger, name),
      });
    } catch (error) {
      journal.finish(step.seq, { status: 'failed', result: { content: [{ type: 'text', text: String((error as Error)?.message ?? error) }], isError: true } });
      throw error;
    }
    journal.finish(step.seq, outcome);
    return this.received(outcome, ctx);
  }

  /** What the script receives for `outcome`: its value, or a {@link ToolError}. */
  private received(outcome: DispatchOutcome, ctx: ToolCallContext): unknown {
    const { ledger } = ctx.scope as RunScope;
    const name = this.tool.name;
    ledger.ended += 1;
    if (ledger.live && ledger.progress) {
      ledger.progress({ progress: ledger.ended, message: `${ledger.ended} tool call${ledger.ended === 1 ? '' : 's'} done (last: ${name}, ${outcome.status})` });
    }
    if (ledger.live && outcome.result._meta?.[END_TURN_META_KEY] === true) ledger.endTurn = true;
    if (outcome.status !== 'completed' || outcome.result.isError) throw failure(name, outcome);
    const { result } = outcome;
    const value = answerValue(result);
    const shapes = (ctx.scope as RunScope).shapes;
    if (shapes === undefined || this.tool.outputSchema !== undefined) return value;
    return shapes.observe(name, value, result.structuredContent === undefined && result.content.length === 1 && result.content[0]!.type === 'text');
  }
}

/**
 * Bindings for `tools`, shared by every execution: each call is dispatched through the host as
 * a call of the execution named by its `ctx.scope` (a {@link RunScope}).
 */
export function buildBindings(tools: readonly RegisteredTool[]): ToolBinding[] {
  const bindings = new Array<ToolBinding>(tools.length);
  for (let i = 0; i < tools.length; i++) bindings[i] = new ScriptBinding(tools[i]!);
  return bindings;
}
