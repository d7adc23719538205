/**
 * Which bench:peers subjects load on this machine: utcp code-mode needs isolated-vm's native
 * module built (isolated-vm.ts builds it once if need be); every subject is started once to see
 * that it answers. What cannot load is returned with its reason, for the bench to print loudly.
 */
import { Child } from './child.ts';
import { ensureIsolatedVm } from './isolated-vm.ts';
import { SUBJECTS, type SubjectName } from './subjects.ts';

export async function probe(main: string): Promise<{ present: SubjectName[]; absent: Record<string, string> }> {
  const absent: Record<string, string> = {};
  const ivm = await ensureIsolatedVm();
  if (!ivm.ok) absent['utcp-code-mode'] = ivm.reason;
  const only = process.env.BENCH_SUBJECTS?.split(',');
  const present: SubjectName[] = [];
  for (const s of SUBJECTS) {
    if (absent[s] || (only && !only.includes(s))) continue;
    const child = new Child(main, 'serve', s);
    const m = await child.next();
    if (m.type === 'ready') present.push(s);
    else absent[s] = String(m.reason ?? m.message ?? JSON.stringify(m));
    await child.close();
  }
  return { present, absent };
}
