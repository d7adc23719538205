/**
 * Function-tool names a framework accepts, one per host tool and all distinct. The OpenAI
 * Agents SDK turns every character other than a letter or digit into `_` (`srv--lookup` →
 * `srv__lookup`), so two host names can meet (`a-b`, `a_b`); the SDK would then offer only one
 * of them and warn. The Anthropic Messages API takes `[a-zA-Z0-9_-]{1,128}`. Under either rule
 * the later of two names that meet get `_2`, `_3`, … so that every listed tool stays callable. Pure.
 */

/** The SDK's own rule for a function tool's name. */
export function sdkFunctionName(name: string): string {
  return name.replace(/[^a-zA-Z0-9]/g, '_');
}

/**
 * The Anthropic Messages API's rule for a tool name (`^[a-zA-Z0-9_-]{1,128}$`): any other
 * character becomes `_`, and the name is cut to 120 characters so a `_NN` suffix still fits.
 */
export function anthropicToolName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 120);
  return replaced === '' ? '_' : replaced;
}

/** Distinct names for `names`, in order: `rule` (default: the Agents SDK's), then a numeric suffix where two meet. */
export function distinctFunctionNames(names: readonly string[], rule: (name: string) => string = sdkFunctionName): string[] {
  const taken = new Set(names.map(rule));
  const given = new Set<string>();
  return names.map((name) => {
    const base = rule(name);
    let candidate = base;
    // A suffixed name must not take the plain name of another listed tool either.
    for (let n = 2; given.has(candidate) || (candidate !== base && taken.has(candidate)); n++) candidate = `${base}_${n}`;
    given.add(candidate);
    return candidate;
  });
}
