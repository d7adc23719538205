/**
 * Credential redaction for `input` (RFC-007 §5.2, §10): values of members whose names look
 * like secrets are replaced with a placeholder before arguments leave the host, and secrets
 * written inside strings are cut out of them (secret-values.ts). The walk has a
 * fixed depth; it reports when structure lay beyond it, so callers can withhold the input
 * rather than send what was never checked (fail closed).
 */
import { setMember } from './field-select.ts';
import { mayHoldSecretValue, redactSecretsInText } from './secret-values.ts';

const PEM_BEGIN = /-----BEGIN[A-Z0-9 ]*PRIVATE KEY/;
const PEM_END = /-----END[A-Z0-9 ]*PRIVATE KEY/;

/** What replaces a credential's value. */
export const REDACTED = '[redacted]';

/** Redaction walks no deeper than this; an object or array below it makes the result `exhausted`. */
export const MAX_REDACTION_DEPTH = 64;

// A superset pre-check over serialized text: every name isCredentialKey accepts contains one
// of these. It also hits values ("author"), which only costs a walk that finds nothing.
// Any non-ASCII character also qualifies: a key may spell `pаssword` with a Cyrillic а.
const MAY_HOLD_CREDENTIAL = /pass|pwd|secret|token|api[-_\s]?key|private[-_\s]?key|access[-_\s]?key|subscription[-_\s]?key|credential|auth|cookie|jwt|session|ssh|bearer|refresh|[^\x00-\x7f]/i;
const CREDENTIAL_SUFFIXES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'accesskey',
  'credential',
  'credentials',
  'authorization',
  'cookie',
  'pwd',
  'jwt',
  'sessionid',
  'sshkey',
  'bearer',
  'signingkey',
  'clientsecret',
  // Azure API Management's `Ocp-Apim-Subscription-Key` and its kin.
  'subscriptionkey',
];
// `refresh` alone is how several OAuth libraries name the refresh token.
const CREDENTIAL_EXACT: ReadonlySet<string> = new Set(['auth', 'setcookie', 'pass', 'refresh']);

// Letters of other scripts that look like Latin ones (Unicode confusables for the letters
// credential names use): a key spelled with them is read as its Latin look-alike.
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', һ: 'h', к: 'k', м: 'm', т: 't', в: 'b', н: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w',
  α: 'a', ε: 'e', ο: 'o', ρ: 'p', τ: 't', υ: 'u', ι: 'i', κ: 'k', ν: 'v', χ: 'x',
};

/** A member name as the credential rules compare it: NFKC, Latin look-alikes, lower case, letters and digits only. */
export function normalizeKey(key: string): string {
  let name = key.normalize('NFKC').toLowerCase();
  if (/[^\x00-\x7f]/.test(name)) name = Array.from(name, (c) => CONFUSABLES[c] ?? c).join('');
  return name.replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a member name looks like it holds a secret: case, `-`, `_` and spaces ignored, the
 * name is `auth`, or ends in password, passwd, passphrase, secret, token, api key, private
 * key, access key, credential(s), authorization, cookie, pwd, jwt, session id, ssh key, bearer,
 * signing key, client secret or subscription key (or is `pass` or `refresh`), after {@link normalizeKey}. `max_tokens`, `author` and `bypass` do not
 * qualify.
 */
export function isCredentialKey(key: string): boolean {
  const name = normalizeKey(key);
  if (CREDENTIAL_EXACT.has(name)) return true;
  for (const suffix of CREDENTIAL_SUFFIXES) if (name.endsWith(suffix)) return true;
  return false;
}

/** Cheap test on a serialized value: false means it certainly holds no credential-named member. */
export function mayHoldCredential(json: string): boolean {
  return MAY_HOLD_CREDENTIAL.test(json) || mayHoldSecretValue(json);
}

/** What {@link redactCredentials} made of a value. */
export interface Redaction {
  value: unknown;
  /** Something was redacted. */
  changed: boolean;
  /**
   * An object or array lay deeper than {@link MAX_REDACTION_DEPTH}: members there were not
   * inspected, so the value must not be sent where credentials must not go.
   */
  exhausted: boolean;
}

/**
 * Replaces the values of credential-named members, down to {@link MAX_REDACTION_DEPTH}, with
 * {@link REDACTED}. `null` and booleans are left alone: they hold no secret. Copy-on-write: the
 * input is never modified, and unchanged subtrees are shared with it.
 */
export function redactCredentials(value: unknown, depth = 0): Redaction {
  if (typeof value === 'string') {
    const text = redactSecretsInText(value);
    return { value: text, changed: text !== value, exhausted: false };
  }
  if (value === null || typeof value !== 'object') return { value, changed: false, exhausted: false };
  if (depth > MAX_REDACTION_DEPTH) return { value, changed: false, exhausted: true };
  let changed = false;
  let exhausted = false;
  if (Array.isArray(value)) {
    // A header pair, `["X-Api-Key", "…"]`: the name is data here, not a member name.
    if (value.length === 2 && typeof value[0] === 'string' && isCredentialKey(value[0]) && value[1] !== null && value[1] !== undefined && typeof value[1] !== 'boolean') {
      return { value: [value[0], REDACTED], changed: true, exhausted: false };
    }
    // A PEM key split into an array of lines: every line from BEGIN to END is the key.
    let inKey = false;
    const out = value.map((item) => {
      if (typeof item === 'string' && (inKey || PEM_BEGIN.test(item))) {
        inKey = !PEM_END.test(item);
        changed = true;
        return REDACTED;
      }
      const r = redactCredentials(item, depth + 1);
      changed ||= r.changed;
      exhausted ||= r.exhausted;
      return r.value;
    });
    return { value: changed ? out : value, changed, exhausted };
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (isCredentialKey(key) && member !== null && member !== undefined && typeof member !== 'boolean') {
      setMember(out, key, REDACTED);
      changed = true;
      continue;
    }
    const r = redactCredentials(member, depth + 1);
    changed ||= r.changed;
    exhausted ||= r.exhausted;
    setMember(out, key, r.value);
  }
  return { value: changed ? out : value, changed, exhausted };
}
