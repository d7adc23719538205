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
      // Skip the string: to the next quote not escaped, i.e. after an even run of backslashes.
      // indexOf finds each quote natively, where a loop over every character of the strings took
      // half of a megabyte's scan (issue 46: 22 → 10 ms for the 1 MB result, on host and thread).
      let end = json.indexOf('"', i + 1);
      while (end !== -1) {
        let b = end - 1;
        while (json.charCodeAt(b) === 92 /* \ */) b--;
        if ((end - 1 - b) % 2 === 0) break;
        end = json.indexOf('"', end + 1);
      }
      if (end === -1) return false; // an unterminated string: no bracket after it counts
      i = end;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
