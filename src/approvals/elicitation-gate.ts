/**
 * An approval gate that asks a person through their MCP client: one `elicitation/create` form
 * request (accept or decline, and "for this conversation") carrying the tools, the script lines
 * and the owning model call. Used by serve mode, where the client's user is the only person
 * there is to ask. Fail closed throughout: no client for the call, a client without the
 * elicitation capability, an error or a cancel — each is a decline with its reason.
 */
import { compilePattern, type CompiledPattern } from '../vocabulary/patterns.ts';
import { boundInput } from '../lifecycle/input-bound.ts';
import type {
  ApprovalDecision,
  ApprovalGate,
  ApprovalRequest,
  BatchApprovalDecision,
  BatchApprovalRequest,
  BatchApprovalTool,
} from '../host/types.ts';

/** Which calls need a person's approval: tools by name (`*` patterns) and tool classes. */
export interface ApprovalRules {
  tools?: readonly string[];
  classes?: readonly string[];
}

/** What the gate sends: an MCP `elicitation/create` form request's params. */
export interface ElicitationForm {
  message: string;
  requestedSchema: {
    type: 'object';
    properties: Record<string, { type: 'boolean'; title: string; description: string; default: boolean }>;
  };
  _meta: Record<string, unknown>;
}

/** What came back (MCP `ElicitResult`). */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** The client that made a call, reached through the session that carries it. */
export interface ElicitingClient {
  /** Whether the client declared the `elicitation` capability (form mode). */
  canElicit(): boolean;
  elicit(form: ElicitationForm, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** `_meta` key of the structured approval request, for clients that render their own prompt. */
export const APPROVAL_META_KEY = 'toolcell/approval';

/**
 * Most bytes of a call's arguments the form shows. They are bounded and redacted exactly as an
 * observer's inputs are (boundInput), so the person sees what will run and no secret in it.
 */
export const MAX_SHOWN_ARGUMENT_BYTES = 2048;

/** The arguments as the form shows them: bounded, redacted JSON, or why they are withheld. */
function shownArguments(input: unknown): { text: string; arguments?: Record<string, unknown> } {
  const bounded = boundInput(input, { maxBytes: MAX_SHOWN_ARGUMENT_BYTES });
  if (!bounded.ok) return { text: `Arguments not shown: ${bounded.reason}.` };
  return { text: `Arguments${bounded.altered ? ' (shortened or redacted)' : ''}: ${bounded.json}`, arguments: bounded.input };
}

/** The form's one field besides accept/decline. */
export const FOR_CONVERSATION_FIELD = 'forConversation';

/**
 * An {@link ApprovalGate} that asks the person behind an MCP client with an
 * `elicitation/create` form (what `toolcell serve` uses): the calls its {@link ApprovalRules}
 * name wait for the answer; every failure to ask is a decline with its reason.
 */
export class ElicitationGate implements ApprovalGate {
  private readonly toolPatterns: CompiledPattern[];
  private readonly classes: ReadonlySet<string>;

  /** `clientFor(inferenceId)`: the client whose request opened that inference, if it is still there. */
  constructor(rules: ApprovalRules, private readonly clientFor: (inferenceId: string) => ElicitingClient | undefined) {
    this.toolPatterns = (rules.tools ?? []).map(compilePattern);
    this.classes = new Set(rules.classes ?? []);
  }

  required(call: { tool: string; classes: readonly string[] }): boolean {
    return this.toolPatterns.some((p) => p.matches(call.tool)) || call.classes.some((c) => this.classes.has(c));
  }

  async decide(call: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const where = call.callSite ? ` (script line ${call.callSite.line}${call.callSite.column ? `, column ${call.callSite.column}` : ''})` : '';
    const owner = call.origin === 'script'
      ? `a script of model call ${call.parentModelCallId ?? call.parentToolCallId}`
      : `model call ${call.modelCallId ?? call.toolCallId}`;
    const shown = shownArguments(call.input);
    const message = `Allow ${call.tool}${where}, called by ${owner}?\n${shown.text}`;
    const meta = {
      kind: 'call',
      ...(shown.arguments !== undefined ? { arguments: shown.arguments } : {}),
      tools: [{ tool: call.tool, classes: call.classes, ...(call.callSite ? { lines: [call.callSite.line] } : {}) }],
      ...(call.callSite ? { callSite: call.callSite } : {}),
      toolCallId: call.toolCallId,
      ...(call.modelCallId !== undefined ? { modelCallId: call.modelCallId } : {}),
      ...(call.parentToolCallId !== undefined ? { parentToolCallId: call.parentToolCallId } : {}),
      ...(call.parentModelCallId !== undefined ? { parentModelCallId: call.parentModelCallId } : {}),
      conversationId: call.conversationId,
    };
    // One call: "for this conversation" has nothing to remember it by, so the form offers accept / decline only.
    const answer = await this.ask(call.inferenceId, message, meta, false, signal);
    return answer.approved ? true : { approved: false, reason: answer.reason };
  }

  async decideBatch(request: BatchApprovalRequest, signal: AbortSignal): Promise<BatchApprovalDecision> {
    const list = request.tools.map((t) => `${t.tool} (line${t.lines.length === 1 ? '' : 's'} ${t.lines.join(', ')})`).join('; ');
    const message = `A ${request.language} script of model call ${request.modelCallId ?? request.parentToolCallId} wants to call: ${list}. Allow it to run?`;
    const meta = {
      kind: 'script',
      tools: request.tools.map((t: BatchApprovalTool) => ({ tool: t.tool, classes: t.classes, lines: t.lines })),
      ...(request.modelCallId !== undefined ? { modelCallId: request.modelCallId } : {}),
      parentToolCallId: request.parentToolCallId,
      conversationId: request.conversationId,
      language: request.language,
    };
    const answer = await this.ask(request.inferenceId, message, meta, true, signal);
    if (!answer.approved) return { approved: false, reason: answer.reason };
    return { approved: true, scope: answer.forConversation ? 'conversation' : 'execution' };
  }

  private async ask(
    inferenceId: string,
    message: string,
    meta: Record<string, unknown>,
    offerConversation: boolean,
    signal: AbortSignal,
  ): Promise<{ approved: true; forConversation: boolean } | { approved: false; reason: string }> {
    const client = this.clientFor(inferenceId);
    if (!client) return { approved: false, reason: 'no client is connected to ask for approval' };
    if (!client.canElicit()) {
      return { approved: false, reason: 'approval is required, and the MCP client did not declare the elicitation capability to ask its user' };
    }
    const form: ElicitationForm = {
      message,
      requestedSchema: {
        type: 'object',
        properties: offerConversation
          ? {
            [FOR_CONVERSATION_FIELD]: {
              type: 'boolean',
              title: 'For this conversation',
              description: 'Do not ask again for these tools in this conversation',
              default: false,
            },
          }
          : {},
      },
      _meta: { [APPROVAL_META_KEY]: meta },
    };
    let answer: ElicitationAnswer;
    try {
      answer = await client.elicit(form, signal);
    } catch (error) {
      return { approved: false, reason: `asking the client's user failed: ${(error as Error)?.message ?? String(error)}` };
    }
    if (answer.action !== 'accept') return { approved: false, reason: answer.action === 'decline' ? "declined by the client's user" : "the client's user cancelled the request" };
    return { approved: true, forConversation: offerConversation && answer.content?.[FOR_CONVERSATION_FIELD] === true };
  }
}
