/**
 * Reading a file that holds a secret (a client secret, a private key, a bearer token) the way
 * ssh reads a private key: a file that another user can read or change is refused, with the
 * reason and the fix in the message, before its content is used. The mode and owner are taken
 * from the opened descriptor (fstat), so the file checked is the file read. On Windows, where
 * POSIX mode bits say nothing about access, only the read happens.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

/** What kind of secret a file holds, as messages name it. */
export type SecretFileKind = 'secret file' | 'private key file' | 'token file';

/** A secret file that cannot be used: unreadable, or open to other users. `path` is the file. */
export class SecretFileError extends Error {
  override name = 'SecretFileError';
  constructor(
    readonly path: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The problem with a file's mode and owner, or undefined when only its owner (or root) can
 * reach it: group/other permission bits must be clear (`mode & 0o077`), and the owner must be
 * this process's user or root, as ssh requires of a private key.
 */
export function secretFileProblem(kind: SecretFileKind, path: string, stat: { mode: number; uid: number }): string | undefined {
  if (process.platform === 'win32') return undefined;
  const open = stat.mode & 0o077;
  if (open !== 0) {
    const what = [open & 0o044 ? 'readable' : '', open & 0o022 ? 'writable' : '', open & 0o011 && !(open & 0o066) ? 'accessible' : ''].filter(Boolean).join(' and ');
    const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0');
    return `${kind} ${path} is ${what} by group/others (mode ${mode}); chmod 600 it`;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) return `${kind} ${path} belongs to another user (uid ${stat.uid}, not ${uid}); a secret file must be yours`;
  return undefined;
}

/**
 * The content of the secret file at `path`, once its mode and owner pass
 * {@link secretFileProblem}. Throws {@link SecretFileError} naming the file and the reason.
 */
export function readSecretFile(kind: SecretFileKind, path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new SecretFileError(path, `cannot read ${kind} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  try {
    const problem = secretFileProblem(kind, path, fstatSync(fd));
    if (problem) throw new SecretFileError(path, problem);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
