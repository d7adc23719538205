/**
 * Starts the normalizing thread (./pool.ts) on its compiled body, worker.js, or — running from
 * the sources under tsx (tests, `npm start`) — on worker.ts, after registering tsx's loader in
 * this thread: a worker thread does not inherit the loader hooks of the host's.
 */
import { workerData } from 'node:worker_threads';

const entry = String(workerData.entry);
if (entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(entry);
