/**
 * Who may talk to `serve --http`: loopback binds may run without a token; any other bind must
 * have one (refused at start otherwise), and a configured token is checked on every request in
 * constant time. A request from a browser page (an `Origin` header) is served only for loopback
 * origins and the configured `allowedOrigins` (the MCP transport spec's MUST). Hashing both
 * sides first gives equal-length inputs to `timingSafeEqual`, so neither the content nor the
 * length of the token leaks through timing. The token file is refused when other users can read
 * or change it (src/mcpl/auth/secret-file.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readSecretFile } from '../mcpl/auth/secret-file.ts';
import { isIPv4, isIPv6 } from 'node:net';

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (isIPv6(bare)) {
    const lower = bare.toLowerCase();
    return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(lower);
  }
  return false;
}

/** Reads a bearer token file: the content minus surrounding whitespace, refused when empty, multi-line, or open to other users. */
export function readTokenFile(path: string): string {
  const token = readSecretFile('token file', path).trim();
  if (token === '') throw new Error(`token file ${path} is empty`);
  if (/\s/.test(token)) throw new Error(`token file ${path} must hold one token (no whitespace inside)`);
  return token;
}

/**
 * The canonical form of an origin (`scheme://host[:port]`, lower case, default port dropped),
 * or undefined for anything else: a path, a query, credentials, `null`, a non-http(s) scheme.
 */
export function canonicalOrigin(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]*\/./i.test(origin)) return undefined;
  return url.origin;
}

/**
 * A checker for `Origin` headers: absent (not a browser) or a loopback origin (a page served
 * from this machine), or one of `allowed` (compared canonically: scheme, host and port exactly).
 * Everything else is refused, `null` and unparsable values included.
 */
export function originChecker(allowed: readonly string[] = []): (origin: string | undefined) => boolean {
  const exact = new Set<string>();
  for (const entry of allowed) {
    const canonical = canonicalOrigin(entry);
    if (canonical === undefined) throw new TypeError(`allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
    exact.add(canonical);
  }
  return (origin) => {
    if (origin === undefined) return true;
    const canonical = canonicalOrigin(origin);
    if (canonical === undefined) return false;
    return exact.has(canonical) || isLoopbackHost(new URL(canonical).hostname);
  };
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Who a request comes from, for serve's per-client caps: its bearer token (as a digest, never
 * the token) when serve checks one — the address tells nothing then, since one token may be used
 * from anywhere — else the peer's address.
 */
export function clientIdentity(authorization: string | undefined, remoteAddress: string | undefined, tokenChecked: boolean): string {
  if (tokenChecked) {
    const token = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
    return `bearer:${digest(token).toString('hex').slice(0, 16)}`;
  }
  return `address:${remoteAddress ?? 'unknown'}`;
}

/** A checker for `Authorization` headers against `token`, comparing in constant time. */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    // An absent or malformed header still pays for one comparison, like a wrong token.
    return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
  };
}
