// The tool catalogs a sandbox process holds (both engines): the binding config of each, parsed
// once, with what runs look up in it. The host names a run's catalog by id (`cat`) and sends
// its config only when this process does not hold it yet; it also says which ones to drop
// (`forget`), so this store holds only what the host believes it holds (see held-catalogs.ts).

/** One catalog: its config text and parsed form, and lookups built on first use. */
export class Catalog {
  constructor(id, text) {
    this.id = id;
    this.text = text;
    this.config = JSON.parse(text);
    /** Tool name → the label scripts know it by (`tools.x__y`). */
    this.labels = new Map(this.config.tools.map(([name, label]) => [name, label]));
    this.index = null;
    this.keysText = null;
    this.eagerText = null;
  }

  /**
   * What the key `key` of `tools` is, for a prelude that installs tools on first use (V8):
   * `t<label>` for a tool named so, `a<name>` for an identifier alias of the tool `name`, or
   * null (not a flat key: a namespace root, or nothing).
   */
  resolve(key) {
    if (this.index === null) {
      this.index = new Map();
      for (const [name, label] of this.config.tools) this.index.set(name, `t${label}`);
      for (const [alias, name] of this.config.aliases) this.index.set(alias, `a${name}`);
    }
    return this.index.get(key) ?? null;
  }

  /**
   * JSON of every own key `tools` has once all is installed, in the order installing them all
   * at once would give: tool names, aliases, then namespace roots.
   */
  keys() {
    if (this.keysText === null) {
      const keys = [...this.labels.keys(), ...this.config.aliases.map(([alias]) => alias)];
      const flat = new Set(keys);
      for (const [id] of this.config.nested) {
        const root = id.split('.')[0];
        if (!flat.has(root)) {
          flat.add(root);
          keys.push(root);
        }
      }
      // An ordinary object lists integer-like keys first, ascending.
      const index = (k) => (/^(0|[1-9][0-9]*)$/.test(k) && Number(k) < 2 ** 32 - 1 ? Number(k) : -1);
      const integers = keys.filter((k) => index(k) >= 0).sort((a, b) => index(a) - index(b));
      this.keysText = JSON.stringify([...integers, ...keys.filter((k) => index(k) < 0)]);
    }
    return this.keysText;
  }

  /** JSON of what a lazily installing prelude still installs up front: nested paths and globals. */
  eager() {
    this.eagerText ??= JSON.stringify({ nested: this.config.nested, globals: this.config.globals });
    return this.eagerText;
  }
}

export class CatalogStore {
  constructor() {
    /** id → Catalog */
    this.held = new Map();
  }

  /**
   * The catalog of a run frame (`payloads` = [code, config?]): stores one that came with it and
   * drops those the host says to forget. Null when the frame names a catalog this process does
   * not hold and brings none. A frame without an id (a test speaking the protocol by hand)
   * brings its config and is not stored.
   */
  take(header, payloads) {
    if (Array.isArray(header.forget)) for (const id of header.forget) this.held.delete(id);
    const text = payloads[1];
    if (typeof header.cat !== 'number') return typeof text === 'string' ? new Catalog(null, text) : null;
    if (typeof text === 'string') this.held.set(header.cat, new Catalog(header.cat, text));
    return this.held.get(header.cat) ?? null;
  }
}

export const MISSING_CATALOG = 'the host named a tool catalog this sandbox process does not hold';
