/**
 * Redaction by value: secrets written *inside* strings are replaced in place, the text around
 * them kept. Two kinds of rule (secret-rules.ts):
 *
 * - rules that recognize a value by itself (a token's well-known prefix and alphabet, a JWT, a
 *   PEM block of base64 lines): {@link maskRecognizedSecrets} applies only these, marked, for
 *   what a person is asked to approve — they can hide nothing but the secret;
 * - rules that recognize a value by what surrounds it (`NAME=value`, `"password": …`, a URL's
 *   `user:password@`, `Authorization: Bearer …`): {@link redactSecretsInText} applies these as
 *   well, for everything that leaves the host (observer events, spans, logs, metric labels).
 *
 * A string with no rule's keyword is passed after one union regex test (secret-rules.ts
 * MAY_HOLD); otherwise each keyword family is tested once, and only its rules run.
 */
import { CONTEXT_RULES, familyTester, MAY_HOLD, MAY_HOLD_JSON, MAY_HOLD_VALUE, VALUE_RULES } from './secret-rules.ts';

/** What replaces a secret found inside a string. */
export const REDACTED_VALUE = '[redacted]';

/** Strings shorter than this hold no secret worth the scan (the shortest keyword plus a value). */
const MIN_CHARS = 8;

/** `text` with every secret found inside it replaced by {@link REDACTED_VALUE}; the same string when none is. */
export function redactSecretsInText(text: string): string {
  if (text.length < MIN_CHARS || !MAY_HOLD.test(text)) return text;
  // Asked of the original text: a replacement (`[redacted]`) adds no keyword.
  const has = familyTester(text);
  let out = text;
  // Context rules first: they keep a secret's name (`password=[redacted]`) where a value rule
  // alone would cut only a part of it.
  for (const rule of CONTEXT_RULES) {
    if (!has(rule.family)) continue;
    rule.pattern.lastIndex = 0;
    out = rule.apply ? rule.apply(out) : out.replace(rule.pattern, rule.redact as (substring: string, ...args: any[]) => string);
  }
  if (!MAY_HOLD_VALUE.test(text)) return out;
  for (const rule of VALUE_RULES) {
    if (!has(rule.family)) continue;
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, REDACTED_VALUE);
  }
  return out;
}

/** One value {@link maskRecognizedSecrets} masked: the rule that recognized it and its length. */
export interface MaskedValue {
  rule: string;
  characters: number;
}

/** What stands where a recognized secret was, for a person to read: `⟪masked: GitHub token, 40 characters⟫`. */
export function maskMarker(masked: MaskedValue): string {
  return `⟪masked: ${masked.rule}, ${masked.characters} characters⟫`;
}

/**
 * `text` with each secret a value rule recognizes by itself replaced by its
 * {@link maskMarker}, and the list of what was masked. Nothing is masked by the name it stands
 * under or the words around it: those can be written by whoever wrote the text.
 */
export function maskRecognizedSecrets(text: string): { text: string; masked: MaskedValue[] } {
  const masked: MaskedValue[] = [];
  if (text.length < MIN_CHARS || !MAY_HOLD_VALUE.test(text)) return { text, masked };
  const has = familyTester(text);
  let out = text;
  for (const rule of VALUE_RULES) {
    if (!has(rule.family)) continue;
    const pattern = rule.display ?? rule.pattern;
    pattern.lastIndex = 0;
    out = out.replace(pattern, (match: string) => {
      const entry = { rule: rule.name, characters: match.length };
      masked.push(entry);
      return maskMarker(entry);
    });
  }
  return { text: out, masked };
}

/** Cheap test on serialized JSON: false means no string in it can hold a secret by value. */
export function mayHoldSecretValue(json: string): boolean {
  return MAY_HOLD_JSON.test(json);
}
