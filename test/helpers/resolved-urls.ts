/**
 * Records the URL of every module resolved from now on in this process (a resolve hook on
 * its loader thread, reporting over a message port). Used by children that prove what a
 * command or an import loads.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

/** Starts recording; the returned array fills as the hook's messages arrive (a turn later). */
export function recordResolvedUrls(): string[] {
  const { port1, port2 } = new MessageChannel();
  const urls: string[] = [];
  port1.on('message', (url: string) => urls.push(url));
  port1.unref();
  const hook = `let port;
export async function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url, { data: { port: port2 }, transferList: [port2] });
  return urls;
}
