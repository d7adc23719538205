/**
 * Function-tool names for the OpenAI Agents SDK, one per host tool and all distinct. The SDK
 * turns every character other than a letter or digit into `_` (`srv--lookup` → `srv__lookup`),
 * so two host names can meet (`a-b`, `a_b`); the SDK would then offer only one of them and
 * warn. The later ones get `_2`, `_3`, … so that every listed tool stays callable. Pure.
 */

/** The SDK's own rule for a function tool's name. */
export function sdkFunctionName(name: string): string {
  return name.replace(/[^a-zA-Z0-9]/g, '_');
}

/** Distinct SDK names for `names`, in order: the SDK's rule, then a numeric suffix where two meet. */
export function distinctFunctionNames(names: readonly string[]): string[] {
  const taken = new Set(names.map(sdkFunctionName));
  const given = new Set<string>();
  return names.map((name) => {
    const base = sdkFunctionName(name);
    let candidate = base;
    // A suffixed name must not take the plain name of another listed tool either.
    for (let n = 2; given.has(candidate) || (candidate !== base && taken.has(candidate)); n++) candidate = `${base}_${n}`;
    given.add(candidate);
    return candidate;
  });
}
