/**
 * Credential redaction for `input` (RFC-007 §5.2, §10): values of members whose names look
 * like secrets are replaced with a placeholder before arguments leave the host.
 */
import { setMember } from './field-select.ts';

/** What replaces a credential's value. */
export const REDACTED = '[redacted]';

/** Redaction walks no deeper than this; deeper structures are left as they are. */
const MAX_DEPTH = 64;

// A superset pre-check over serialized text: every name isCredentialKey accepts contains one
// of these. It also hits values ("author"), which only costs a walk that finds nothing.
const MAY_HOLD_CREDENTIAL = /pass(?:word|wd|phrase)|secret|token|api[-_\s]?key|private[-_\s]?key|access[-_\s]?key|credential|auth|cookie/i;
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
];
const CREDENTIAL_EXACT: ReadonlySet<string> = new Set(['auth', 'setcookie']);

/**
 * Whether a member name looks like it holds a secret: case, `-`, `_` and spaces ignored, the
 * name is `auth`, or ends in password, passwd, passphrase, secret, token, api key, private
 * key, access key, credential(s), authorization or cookie. `max_tokens` and `author` do not
 * qualify.
 */
export function isCredentialKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[-_\s]/g, '');
  if (CREDENTIAL_EXACT.has(name)) return true;
  for (const suffix of CREDENTIAL_SUFFIXES) if (name.endsWith(suffix)) return true;
  return false;
}

/** Cheap test on a serialized value: false means it certainly holds no credential-named member. */
export function mayHoldCredential(json: string): boolean {
  return MAY_HOLD_CREDENTIAL.test(json);
}

/**
 * Replaces the values of credential-named members, at any depth, with {@link REDACTED}.
 * `null` and booleans are left alone: they hold no secret. Copy-on-write: the input is never
 * modified, and unchanged subtrees are shared with it.
 */
export function redactCredentials(value: unknown, depth = 0): { value: unknown; changed: boolean } {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return { value, changed: false };
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const r = redactCredentials(item, depth + 1);
      changed ||= r.changed;
      return r.value;
    });
    return changed ? { value: out, changed } : { value, changed: false };
  }
  const record = value as Record<string, unknown>;
  let changed = false;
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
    setMember(out, key, r.value);
  }
  return changed ? { value: out, changed } : { value, changed: false };
}
