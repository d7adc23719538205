/**
 * Who may talk to `serve --http`: loopback binds may run without a token; any other bind must
 * have one (refused at start otherwise), and a configured token is checked on every request in
 * constant time. Hashing both sides first gives equal-length inputs to `timingSafeEqual`, so
 * neither the content nor the length of the token leaks through timing. The token file is
 * refused when other users can read or change it (src/mcpl/auth/secret-file.ts).
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

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** A checker for `Authorization` headers against `token`, comparing in constant time. */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    // An absent or malformed header still pays for one comparison, like a wrong token.
    return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
  };
}
