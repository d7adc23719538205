/**
 * What every span and duration record of one registered tool shares — span name and kind,
 * the attributes that depend on the tool alone, the duration metric's attribute set per
 * outcome — built once per registration instead of once per call. Keyed by the registry's
 * `RegisteredTool` object: the registry replaces that object whenever anything in it changes
 * (re-registration, a server's re-list, a class override), so a changed tool gets a new shape
 * and a removed one's shape goes with it.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { redactAttributes } from './redact.ts';
import type { RegisteredTool } from '../host/types.ts';
import {
  CALL_OUTCOME,
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_DESCRIPTION,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
  MCP_METHOD_NAME,
  NETWORK_TRANSPORT,
  SERVER_ID,
  SERVER_TOOL,
  spanName,
  TOOL_CLASSES,
  type ToolErrorType,
} from './attributes.ts';

export interface ToolShape {
  readonly spanName: string;
  readonly kind: SpanKind;
  /** The span attributes that depend on the tool alone (never handed to the SDK itself: copied per call). */
  readonly attributes: Readonly<Attributes>;
  /** `gen_ai.execute_tool.duration` attributes of this tool for a terminal, built on first use. */
  durationAttributes(outcome: 'completed' | 'failed' | 'aborted', type: ToolErrorType | undefined): Attributes;
}

class Shape implements ToolShape {
  readonly spanName: string;
  readonly kind: SpanKind;
  readonly attributes: Readonly<Attributes>;
  // One per outcome; an error type determines its outcome, so it is the key when present.
  private readonly durations = new Map<ToolErrorType | 'completed', Attributes>();

  constructor(private readonly tool: RegisteredTool, withDescription: boolean) {
    this.spanName = spanName(tool.name);
    this.kind = tool.serverId !== undefined ? SpanKind.CLIENT : SpanKind.INTERNAL;
    const attributes: Attributes = {
      [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL,
      [GEN_AI_TOOL_NAME]: tool.name,
      [GEN_AI_TOOL_TYPE]: tool.serverId !== undefined ? 'extension' : 'function',
    };
    if (withDescription && tool.description !== '') attributes[GEN_AI_TOOL_DESCRIPTION] = tool.description;
    if (tool.classes.length > 0) attributes[TOOL_CLASSES] = [...tool.classes];
    if (tool.serverId !== undefined) {
      attributes[SERVER_ID] = tool.serverId;
      attributes[SERVER_TOOL] = tool.serverTool;
      attributes[MCP_METHOD_NAME] = 'tools/call';
      attributes[NETWORK_TRANSPORT] = 'pipe';
    }
    this.attributes = Object.freeze(attributes);
  }

  durationAttributes(outcome: 'completed' | 'failed' | 'aborted', type: ToolErrorType | undefined): Attributes {
    const key = type ?? 'completed';
    let attributes = this.durations.get(key);
    if (attributes === undefined) {
      attributes = { [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL, [GEN_AI_TOOL_NAME]: this.tool.name, [CALL_OUTCOME]: outcome };
      if (type !== undefined) attributes[ERROR_TYPE] = type;
      // A tool's name is chosen by whoever registered it or the server that listed it: a label only once redacted.
      attributes = redactAttributes(attributes);
      // The SDK keeps the first attribute set of each series as its key: it must never change.
      this.durations.set(key, Object.freeze(attributes));
    }
    return attributes;
  }
}

/** The shapes of the tools an instrumentation has seen. */
export class ToolShapes {
  private readonly shapes = new WeakMap<RegisteredTool, Shape>();

  /** `withDescriptions`: put each tool's description on its spans (`gen_ai.tool.description`). */
  constructor(private readonly withDescriptions = false) {}

  of(tool: RegisteredTool): ToolShape {
    let shape = this.shapes.get(tool);
    if (shape === undefined) this.shapes.set(tool, (shape = new Shape(tool, this.withDescriptions)));
    return shape;
  }
}
