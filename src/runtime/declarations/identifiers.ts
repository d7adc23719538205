/**
 * Names the renderers invent: type and class names derived from tool names and `$defs`
 * keys, kept unique within one rendering.
 */

/** `x__run` → `XRun`, `get-user.info` → `GetUserInfo`; never empty, never starts with a digit. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  let out = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  if (out === '') out = 'T';
  if (/^[0-9]/.test(out)) out = `T${out}`;
  return out;
}

/** Hands out names, adding `2`, `3`, … when a name is taken or reserved. */
export class UniqueNames {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string>) {
    this.taken = new Set(reserved);
  }

  claim(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    this.taken.add(name);
    return name;
  }
}
