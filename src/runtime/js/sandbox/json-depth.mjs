// Nesting depth of JSON text, for the maxDepth limit. Plain JavaScript so the sandbox process
// runs it under bare node; the host imports the same file (see json-depth.d.mts). A scan of the
// text, not a walk of parsed values: it cannot overflow the stack however deep the input is.

/**
 * Whether `json` (valid JSON text) nests arrays and objects deeper than `max` levels.
 * Text shorter than 2·max+2 characters cannot, so short text costs nothing.
 * @param {string} json
 * @param {number} max
 * @returns {boolean}
 */
export function jsonDeeperThan(json, max) {
  if (json.length < 2 * max + 2) return false;
  let depth = 0;
  for (let i = 0, n = json.length; i < n; i++) {
    const c = json.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string; a backslash escapes the next character.
      for (i++; i < n; i++) {
        const d = json.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
