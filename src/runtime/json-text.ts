/**
 * JSON text that stands for a value across the host's steps, so a large value is not parsed
 * and serialized again where only its text is needed (issue 46, the 1 MB round trip).
 *
 * Two directions:
 * - A script's return value arrives at the host as JSON text, which the host must parse (the
 *   result's `structuredContent` is the value) but then serialized again for the result's text.
 *   {@link rememberText} ties the parsed value to the text it came from, and
 *   {@link takeText} gives that text back once, to the one place that writes the result.
 * - A tool's answer is often one text block of JSON, which the JavaScript sandbox parses inside
 *   the VM anyway: a binding may answer {@link JsonText} instead of the parsed value, and the
 *   sandbox's host side hands the text over as it is ({@link JsonText.json} for every other
 *   consumer, which parses it on demand).
 */

/** Values tied to the JSON text they were parsed from; each entry is read once. */
const texts = new WeakMap<object, string>();

/**
 * Records that `value` was parsed from `json` (`JSON.parse(json)`, nothing changed since).
 * Only objects and arrays are recorded: a primitive costs nothing to serialize again.
 */
export function rememberText(value: unknown, json: string): void {
  if (value !== null && typeof value === 'object') texts.set(value, json);
}

/**
 * The JSON text `value` was parsed from, if {@link rememberText} recorded it; the record is
 * dropped, so a value changed after this (a caller editing a result it got) is never written
 * from stale text.
 */
export function takeText(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const text = texts.get(value);
  if (text !== undefined) texts.delete(value);
  return text;
}

/**
 * A tool's answer given as text that is the script's value: its JSON parse when the text is
 * JSON, else the text itself as a string (a tool's lone text block, as `code_execution` hands it
 * to scripts). The JavaScript sandbox sends the text to the VM, which parses it there; any other
 * consumer (`JSON.stringify`, the Python runner) gets the value through `toJSON`.
 */
export class JsonText {
  /** @param text the tool's text, at most what the caller's own bounds allow */
  constructor(readonly text: string) {
    // It crosses to the sandbox as it is: anything but a string would break the frame, not the call.
    if (typeof text !== 'string') throw new TypeError('a JsonText holds a string');
  }

  /** The value: the text's JSON parse, or the text itself when it is not JSON. */
  value(): unknown {
    try {
      return JSON.parse(this.text) as unknown;
    } catch {
      return this.text;
    }
  }

  /** `JSON.stringify` of a JsonText writes its value. */
  toJSON(): unknown {
    return this.value();
  }
}
