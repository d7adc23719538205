/**
 * The interpreter's environment: a short allowlist copied from the host plus what the caller
 * adds explicitly. Everything else (API keys, tokens, the host's own configuration) stays out.
 */

/** Host variables a Python process needs to behave normally; none of them is a credential. */
export const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'] as const;

/** Set for every child so subprocesses the script starts also speak UTF-8. */
const FIXED_ENV: Record<string, string> = { PYTHONIOENCODING: 'utf-8' };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Throws a TypeError naming the first entry that cannot be an environment variable. */
export function validateExtraEnv(extra: Record<string, string>): void {
  for (const [key, value] of Object.entries(extra)) {
    if (!NAME.test(key)) throw new TypeError(`env: ${JSON.stringify(key)} is not a valid environment variable name`);
    if (typeof value !== 'string') throw new TypeError(`env: value of ${key} must be a string`);
    if (value.includes('\0')) throw new TypeError(`env: value of ${key} contains a NUL character`);
  }
}

/** The environment for the child: allowlisted host variables, then fixed ones, then `extra`. */
export function childEnvironment(host: NodeJS.ProcessEnv, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = host[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...FIXED_ENV, ...extra };
}
