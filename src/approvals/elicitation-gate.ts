/**
 * An approval gate that asks a person through their MCP client: one `elicitation/create` form
 * request (accept or decline, and "for this conversation") carrying the tools, the script lines
 * and the owning model call, and the exact arguments or script that will run (shown-arguments.ts:
 * paged when long, refused when too long to show, only recognized secret values masked). The
 * answer names the digest of what was shown, so the host runs nothing else. Used by serve mode, where the client's user is the only person
 * there is to ask. Fail closed throughout: no client for the call, a client without the
 * elicitation capability, an error or a cancel — each is a decline with its reason.
 */
import { compilePattern, type CompiledPattern } from '../vocabulary/patterns.ts';
import { argumentsDigest, textDigest } from '../host/arguments-digest.ts';
import { maskedNote, showArguments, showScript, type Shown } from './shown-arguments.ts';
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

export { MAX_APPROVAL_PAGES, MAX_SHOWN_ARGUMENT_BYTES } from './shown-arguments.ts';

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
    // Digested from the same arguments the form is built from: the host runs the call only if they still match.
    const digest = argumentsDigest(call.input);
    const shown = showArguments(call.input);
    if (!shown.ok) return { approved: false, reason: shown.reason };
    const meta = {
      kind: 'call',
      ...(shown.pages.length === 1 ? { arguments: shown.value } : {}),
      argumentsDigest: digest,
      masked: shown.masked,
      tools: [{ tool: call.tool, classes: call.classes, ...(call.callSite ? { lines: [call.callSite.line] } : {}) }],
      ...(call.callSite ? { callSite: call.callSite } : {}),
      toolCallId: call.toolCallId,
      ...(call.modelCallId !== undefined ? { modelCallId: call.modelCallId } : {}),
      ...(call.parentToolCallId !== undefined ? { parentToolCallId: call.parentToolCallId } : {}),
      ...(call.parentModelCallId !== undefined ? { parentModelCallId: call.parentModelCallId } : {}),
      conversationId: call.conversationId,
    };
    const head = `Allow ${call.tool}${where}, called by ${owner}?`;
    // One call: "for this conversation" has nothing to remember it by, so the form offers accept / decline only.
    const answer = await this.askPages(call.inferenceId, head, 'Arguments (exactly what the tool receives', digest, shown, meta, false, signal);
    return answer.approved ? { approved: true, argumentsDigest: digest } : { approved: false, reason: answer.reason };
  }

  async decideBatch(request: BatchApprovalRequest, signal: AbortSignal): Promise<BatchApprovalDecision> {
    const list = request.tools.map((t) => `${t.tool} (line${t.lines.length === 1 ? '' : 's'} ${t.lines.join(', ')})`).join('; ');
    const head = `A ${request.language} script of model call ${request.modelCallId ?? request.parentToolCallId} wants to call: ${list}. Allow it to run?`;
    const digest = textDigest(request.code);
    const shown = showScript(request.code);
    if (!shown.ok) return { approved: false, reason: shown.reason };
    const meta = {
      kind: 'script',
      tools: request.tools.map((t: BatchApprovalTool) => ({ tool: t.tool, classes: t.classes, lines: t.lines })),
      codeDigest: digest,
      masked: shown.masked,
      ...(request.modelCallId !== undefined ? { modelCallId: request.modelCallId } : {}),
      parentToolCallId: request.parentToolCallId,
      conversationId: request.conversationId,
      language: request.language,
    };
    const answer = await this.askPages(request.inferenceId, head, 'The script (exactly what will run', digest, shown, meta, true, signal);
    if (!answer.approved) return { approved: false, reason: answer.reason };
    return { approved: true, scope: answer.forConversation ? 'conversation' : 'execution', codeDigest: digest };
  }

  /**
   * One form per page of what is shown; every page must be accepted, and the last page's answer
   * is the decision (a decline or cancel on any page declines).
   */
  private async askPages(
    inferenceId: string,
    head: string,
    label: string,
    digest: string,
    shown: Extract<Shown, { ok: true }>,
    meta: Record<string, unknown>,
    offerConversation: boolean,
    signal: AbortSignal,
  ): ReturnType<ElicitationGate['ask']> {
    const count = shown.pages.length;
    let offset = 0;
    for (let index = 0; index < count; index++) {
      const text = shown.pages[index]!;
      const bytes = Buffer.byteLength(text, 'utf8');
      const last = index === count - 1;
      const where = count === 1
        ? `${label}; ${digest}):`
        : `${label}, page ${index + 1} of ${count}: bytes ${offset + 1}–${offset + bytes} of ${shown.bytes}; ${digest}):`;
      const tail = last
        ? maskedNote(shown.masked)
        : '\nAccept shows the next page; only accepting the last page approves.';
      const message = `${head}${count === 1 ? '' : ` (page ${index + 1} of ${count})`}\n${where}\n${text}${tail}`;
      const pageMeta = { ...meta, argumentsText: text, page: { index: index + 1, count } };
      const answer = await this.ask(inferenceId, message, pageMeta, last && offerConversation, signal);
      if (!answer.approved || last) return answer;
      offset += bytes;
    }
    return { approved: false, reason: 'nothing was shown' };
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
