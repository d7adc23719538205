/**
 * Which provider answers for a resource, a resource template or a prompt, for one client
 * session (each has its own catalog: what one client's upstream sessions list is not
 * another's). serve lists every
 * provider's resources and prompts as one list; a later `resources/read`, `prompts/get`,
 * `resources/subscribe` or `completion/complete` must reach the provider that listed it. The
 * catalog remembers the owners from the last listing and, for a URI no listing named (a
 * template's instance), matches the providers' templates. Prompt names carry the `<id>--`
 * prefix unless the server is configured `prefixTools: false`; resource URIs are never
 * rewritten (they are the provider's identifiers, and clients may know them already).
 */
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { z } from 'zod';

/** A result passed through as the provider sent it: nothing parsed away. */
export const PassThrough = z.object({}).passthrough();

type Entry = Record<string, unknown>;

/** Sends `method` to the provider `serverId` as this client's session reaches it; the result as the provider sent it. */
export type Ask = (serverId: string, method: string, params: Record<string, unknown>, signal?: AbortSignal) => Promise<Record<string, unknown>>;

/** Connected providers offering a feature, in configuration order. */
export type ProvidersOf = (feature: 'resources' | 'prompts') => string[];

/** The smaller of two cache hints (`ttlMs`, 2026-07-28); a missing or malformed one gives none. */
function smaller(known: number | undefined, hint: unknown): number | undefined {
  if (typeof hint !== 'number' || !Number.isFinite(hint) || hint < 0) return known;
  return known === undefined ? hint : Math.min(known, hint);
}

/** Pages of one provider's `method` listing, all of them (serve answers with one page); `hint` hears each page's `ttlMs`. */
async function listAll(ask: Ask, serverId: string, method: string, key: string, signal?: AbortSignal, hint?: (ttlMs: unknown) => void): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ask(serverId, method, cursor ? { cursor } : {}, signal);
    hint?.(page.ttlMs);
    const listed = page[key];
    if (!Array.isArray(listed)) throw new Error(`server ${serverId} answered ${method} without a "${key}" list`);
    entries.push(...(listed as Entry[]));
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
  } while (cursor);
  return entries;
}

export class GatewayCatalog {
  private readonly resourceOwner = new Map<string, string>();
  private readonly templates: { serverId: string; uriTemplate: string; matcher: UriTemplate | undefined }[] = [];
  private readonly promptOwner = new Map<string, { serverId: string; name: string }>();
  /** The smallest `ttlMs` the providers gave in the last listing of each method (serve's answer is no fresher). */
  private readonly hints = new Map<string, number | undefined>();

  constructor(
    private readonly ask: Ask,
    private readonly providers: ProvidersOf,
    /** Whether a server's names carry its `<id>--` prefix (false for `prefixTools: false`). */
    private readonly prefixed: (serverId: string) => boolean,
  ) {}

  /** `{ ttlMs }` when a provider hinted how long the last listing of `method` stays fresh (the smallest), else nothing. */
  hintOf(method: string): { ttlMs?: number } {
    const ttlMs = this.hints.get(method);
    return ttlMs === undefined ? {} : { ttlMs };
  }

  /** A hint collector for one listing of `method`. */
  private hinting(method: string): (ttlMs: unknown) => void {
    this.hints.set(method, undefined);
    return (ttlMs) => this.hints.set(method, smaller(this.hints.get(method), ttlMs));
  }

  async listResources(signal?: AbortSignal): Promise<Entry[]> {
    const all: Entry[] = [];
    this.resourceOwner.clear();
    const hint = this.hinting('resources/list');
    for (const serverId of this.providers('resources')) {
      for (const resource of await listAll(this.ask, serverId, 'resources/list', 'resources', signal, hint)) {
        const uri = String(resource.uri);
        if (!this.resourceOwner.has(uri)) this.resourceOwner.set(uri, serverId);
        all.push(resource);
      }
    }
    return all;
  }

  async listTemplates(signal?: AbortSignal): Promise<Entry[]> {
    const all: Entry[] = [];
    this.templates.length = 0;
    const hint = this.hinting('resources/templates/list');
    for (const serverId of this.providers('resources')) {
      for (const template of await listAll(this.ask, serverId, 'resources/templates/list', 'resourceTemplates', signal, hint)) {
        const uriTemplate = String(template.uriTemplate);
        let matcher: UriTemplate | undefined;
        try {
          matcher = new UriTemplate(uriTemplate);
        } catch {
          // A template the SDK cannot parse still routes by its literal text (completion refs).
          matcher = undefined;
        }
        this.templates.push({ serverId, uriTemplate, matcher });
        all.push(template);
      }
    }
    return all;
  }

  async listPrompts(signal?: AbortSignal): Promise<Entry[]> {
    const all: Entry[] = [];
    this.promptOwner.clear();
    const hint = this.hinting('prompts/list');
    for (const serverId of this.providers('prompts')) {
      for (const prompt of await listAll(this.ask, serverId, 'prompts/list', 'prompts', signal, hint)) {
        const name = String(prompt.name);
        const exposed = this.prefixed(serverId) ? `${serverId}--${name}` : name;
        if (this.promptOwner.has(exposed)) continue;
        this.promptOwner.set(exposed, { serverId, name });
        all.push({ ...prompt, name: exposed });
      }
    }
    return all;
  }

  /** The provider of a resource URI (listed, or matching a listed template); undefined when none claims it. */
  async resourceServer(uri: string): Promise<string | undefined> {
    const providers = this.providers('resources');
    if (providers.length === 1) return providers[0];
    if (!this.resourceOwner.has(uri)) await this.listResources();
    const listed = this.resourceOwner.get(uri);
    if (listed !== undefined && providers.includes(listed)) return listed;
    if (this.templates.length === 0) await this.listTemplates();
    const template = this.templates.find((t) => t.uriTemplate === uri || t.matcher?.match(uri) != null);
    return template?.serverId;
  }

  /** The provider and its own name of an exposed prompt name; undefined when none has it. */
  async prompt(exposed: string): Promise<{ serverId: string; name: string } | undefined> {
    if (!this.promptOwner.has(exposed)) await this.listPrompts();
    return this.promptOwner.get(exposed);
  }
}
