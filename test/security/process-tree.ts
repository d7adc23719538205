/**
 * The node processes below this test process (sandbox processes, whatever wraps them): read
 * from /proc through the fault suite's tree walk, each with the executable it runs.
 */
import fs from 'node:fs';
import { descendants } from '../faults/processes.ts';

/** Live descendants of this process: pid → the executable it runs. */
export function descendantExecutables(): Map<number, string> {
  const out = new Map<number, string>();
  for (const pid of descendants()) {
    try {
      out.set(pid, fs.readlinkSync(`/proc/${pid}/exe`));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Live descendants running this Node executable. */
export function sandboxNodes(): number[] {
  const node = fs.realpathSync(process.execPath);
  return [...descendantExecutables()].filter(([, exe]) => exe === node).map(([pid]) => pid);
}
