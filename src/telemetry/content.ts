/**
 * Opt-in content capture (`captureContent: true`): arguments and results become span
 * attributes only through the same credential redaction and size bound observers get for
 * `input` (RFC-007 §5.2), never raw.
 */
import type { Attributes } from '@opentelemetry/api';
import { boundInput } from '../lifecycle/input-bound.ts';

/**
 * Sets `attribute` to the bounded, redacted JSON of `value`, and `alteredKey` when anything
 * was cut or redacted; when no meaningful bounded form exists, sets `withheldKey` to why.
 */
export function captureBounded(
  attributes: Attributes,
  value: unknown,
  maxBytes: number,
  keys: { attribute: string; altered: string; withheld: string },
): void {
  const bounded = boundInput(value, { maxBytes });
  if (!bounded.ok) {
    attributes[keys.withheld] = bounded.reason;
    return;
  }
  attributes[keys.attribute] = JSON.stringify(bounded.input);
  if (bounded.altered) attributes[keys.altered] = true;
}
