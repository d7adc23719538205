/**
 * The telemetry side of the one redaction path: every string toolcell puts on a span (name,
 * attributes, event attributes, status message, exception) or a metric label passes
 * lifecycle/secret-values.ts's value redaction first, whatever `captureContent` says. Done by
 * wrapping the tracer, so that no hook of call-spans.ts can forget it; captured content is the
 * exception, because it already went through boundInput (the observers' path), which also
 * redacts by member name.
 */
import { context, trace, type Attributes, type AttributeValue, type Context, type Exception, type Link, type Span, type SpanContext, type SpanOptions, type SpanStatus, type TimeInput, type Tracer } from '@opentelemetry/api';
import { redactSecretsInText } from '../lifecycle/secret-values.ts';
import { GEN_AI_TOOL_CALL_ARGUMENTS, GEN_AI_TOOL_CALL_RESULT } from './attributes.ts';

/** Attributes whose values were redacted by boundInput already (JSON text: not rescanned as text). */
const REDACTED_BY_BOUND_INPUT: ReadonlySet<string> = new Set([GEN_AI_TOOL_CALL_ARGUMENTS, GEN_AI_TOOL_CALL_RESULT]);

function redactValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactSecretsInText(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      if (typeof item !== 'string') return item;
      const r = redactSecretsInText(item);
      changed ||= r !== item;
      return r;
    });
    return changed ? (out as AttributeValue) : value;
  }
  return value;
}

/** `attributes` with every string value redacted; the same object when nothing changed. */
export function redactAttributes<T extends Attributes | undefined>(attributes: T): T {
  if (attributes === undefined) return attributes;
  let out: Attributes | undefined;
  for (const key of Object.keys(attributes)) {
    if (REDACTED_BY_BOUND_INPUT.has(key)) continue;
    const value = attributes[key];
    const redacted = redactValue(value);
    if (redacted !== value) (out ??= { ...attributes })[key] = redacted;
  }
  return (out ?? attributes) as T;
}

function isTime(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');
}

const redactLinks = (links: Link[]): Link[] => links.map((link) => (link.attributes ? { ...link, attributes: redactAttributes(link.attributes) } : link));

/** A span whose every string goes through value redaction before the SDK sees it. */
class RedactingSpan implements Span {
  constructor(readonly inner: Span) {}
  spanContext(): SpanContext {
    return this.inner.spanContext();
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.inner.setAttribute(key, REDACTED_BY_BOUND_INPUT.has(key) ? value : redactValue(value)!);
    return this;
  }
  setAttributes(attributes: Attributes): this {
    this.inner.setAttributes(redactAttributes(attributes));
    return this;
  }
  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    if (attributesOrStartTime === undefined || isTime(attributesOrStartTime)) this.inner.addEvent(redactSecretsInText(name), attributesOrStartTime);
    else this.inner.addEvent(redactSecretsInText(name), redactAttributes(attributesOrStartTime), startTime);
    return this;
  }
  addLink(link: Link): this {
    this.inner.addLink(redactLinks([link])[0]!);
    return this;
  }
  addLinks(links: Link[]): this {
    this.inner.addLinks(redactLinks(links));
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.inner.setStatus(status.message === undefined ? status : { ...status, message: redactSecretsInText(status.message) });
    return this;
  }
  updateName(name: string): this {
    this.inner.updateName(redactSecretsInText(name));
    return this;
  }
  end(endTime?: TimeInput): void {
    this.inner.end(endTime);
  }
  isRecording(): boolean {
    return this.inner.isRecording();
  }
  recordException(exception: Exception, time?: TimeInput): void {
    if (typeof exception === 'string') return this.inner.recordException(redactSecretsInText(exception), time);
    const { name, message, stack, code } = exception as { name?: string; message?: string; stack?: string; code?: string | number };
    this.inner.recordException({
      name: redactSecretsInText(name ?? 'Error'),
      ...(message !== undefined ? { message: redactSecretsInText(message) } : {}),
      ...(stack !== undefined ? { stack: redactSecretsInText(stack) } : {}),
      ...(code !== undefined ? { code: typeof code === 'string' ? redactSecretsInText(code) : code } : {}),
    }, time);
  }
}

/** `span` behind value redaction (a span toolcell did not start, such as the caller's active one). */
export function redactingSpan(span: Span): Span {
  return span instanceof RedactingSpan ? span : new RedactingSpan(span);
}

/** A tracer whose spans redact every string put on them, starting with the span's name and start attributes. */
export function redactingTracer(tracer: Tracer): Tracer {
  const startSpan = (name: string, options?: SpanOptions, ctx?: Context): Span => {
    const redacted = options?.attributes ? { ...options, attributes: redactAttributes(options.attributes) } : options;
    const links = redacted?.links ? { ...redacted, links: redactLinks(redacted.links) } : redacted;
    return new RedactingSpan(tracer.startSpan(redactSecretsInText(name), links, ctx));
  };
  return {
    startSpan,
    startActiveSpan(name: string, ...rest: unknown[]) {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
      const parent = ctx ?? context.active();
      const span = startSpan(name, options, parent);
      return context.with(trace.setSpan(parent, span), fn, undefined, span);
    },
  } as Tracer;
}
