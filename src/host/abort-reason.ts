/**
 * The text a call aborted through its request's `signal` ends with. A signal's reason can be
 * anything (an Error, a DOMException, a string, nothing); the terminal and the model need words.
 */

/** A signal's reason as text: an Error's message, a string as is, anything else a fixed phrase. */
export function abortReason(reason: unknown): string {
  if (reason instanceof Error && reason.message !== '') return reason.message;
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'the caller aborted the call';
}
