/**
 * One `bench:peers` subject in a process of its own, forked by bench/peers.ts and driven over
 * IPC, so that no subject's heap, workers or garbage weigh on another's figures, and its tree
 * RSS is its own. Every time is taken here, around the subject's own call; the IPC hop is not
 * in any figure.
 *
 *   argv: <mode> <subject>
 *   serve: answers { type: 'run', workload, conversation, once } with { type: 'done', ms, dropped },
 *          { type: 'burst', id } (32 new conversations at once, each a 100-call script) with
 *          { type: 'done', ms }, and { type: 'floor' } with { type: 'floor', samples }, until closed;
 *   cold:  imports the subject's package, sets it up, runs `return 1` once and reports
 *          { type: 'cold', importedMs, firstMs }: times since this process started
 *          (`performance.now()` counts from `performance.timeOrigin`, taken as node starts), so
 *          node's own start, every import and the setup are on the clock, as a user's
 *          process start → first result;
 *   rss:   one 100-call run, then { type: 'one' }; on 'go', 32 conversations at once (kept
 *          open), then { type: 'burst' }; the parent samples this tree from the sampler process meanwhile.
 * A subject that cannot load (a native module missing) reports { type: 'absent', reason }.
 */
import { CONVERSATIONS, cpuExpected, floorSampleMs, megabytePayload, NO_PAYLOAD, type WorkloadName } from './workloads.ts';
import { prepareSubject, SUBJECTS, type Opener, type Subject, type SubjectName } from './subjects.ts';

/** How long a subject's close may take before the process leaves without it. */
const CLOSE_BOUND_MS = 10_000;
/** Floor samples per request: many, so that their median is the floor and not one GC pause. */
const FLOOR_SAMPLES = 15;

type Request =
  | { type: 'run'; workload: WorkloadName; conversation: string; once?: boolean }
  | { type: 'burst'; id: string }
  | { type: 'floor' }
  | { type: 'go' }
  | { type: 'close' };

const [mode, name] = process.argv.slice(2) as ['serve' | 'cold' | 'rss', SubjectName];
if (!SUBJECTS.includes(name)) throw new Error(`unknown subject ${name}`);
const send = (message: Record<string, unknown>) => process.send!(message);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

// A cold sample runs only `return 1`: it builds neither the megabyte nor the CPU answer.
const payload = mode === 'serve' ? megabytePayload() : NO_PAYLOAD;
let opener: Opener;
try {
  opener = await prepareSubject(name, payload);
} catch (error) {
  send({ type: 'absent', reason: errorText(error) });
  process.exit(0);
}
const importedMs = performance.now();

const requests: Request[] = [];
let wake: (() => void) | null = null;
process.on('message', (message: Request) => {
  requests.push(message);
  wake?.();
});
process.on('disconnect', () => process.exit(0));
async function nextRequest(): Promise<Request> {
  while (requests.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  wake = null;
  return requests.shift()!;
}

/**
 * 32 new conversations, each running the 100-call script, all at once; `keep`: the
 * conversations stay open after (their kept sessions, where the subject keeps any, count in the
 * memory figure), else each ends after its script, as a finished conversation does.
 */
const burst = (subject: Subject, id: string, keep: boolean) =>
  Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => subject.run('conversation', `${id}-${i}`, !keep)));

let subject: Subject | undefined;
try {
  if (mode === 'cold') {
    subject = await opener();
    await subject.run('return1', 'cold');
    send({ type: 'cold', importedMs, firstMs: performance.now() });
  } else if (mode === 'rss') {
    subject = await opener();
    await subject.run('conversation', 'one');
    send({ type: 'one' });
    if ((await nextRequest()).type !== 'go') throw new Error('expected go');
    await burst(subject, 'rss', true);
    send({ type: 'burst' });
    await nextRequest();
  } else {
    cpuExpected(); // before any clock: the CPU workload's check compares against it
    subject = await opener();
    send({ type: 'ready' });
    for (;;) {
      const request = await nextRequest();
      if (request.type === 'floor') {
        send({ type: 'floor', samples: Array.from({ length: FLOOR_SAMPLES }, () => floorSampleMs(payload.text)) });
        continue;
      }
      if (request.type !== 'run' && request.type !== 'burst') break;
      const droppedBefore = subject.dropped?.() ?? 0;
      const t = performance.now();
      if (request.type === 'burst') await burst(subject, request.id, false);
      else await subject.run(request.workload, request.conversation, request.once);
      const ms = performance.now() - t;
      send({ type: 'done', ms, dropped: (subject.dropped?.() ?? 0) - droppedBefore });
    }
  }
} catch (error) {
  send({ type: 'failed', message: errorText(error) });
} finally {
  // Bounded: utcp's client.close() at times never settles (seen once in three cold samples);
  // this process is ending anyway, and exit frees what a close would have.
  await Promise.race([subject?.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_BOUND_MS).unref())]);
  // Some peers keep handles open after close (utcp's client): leave on our own, having answered.
  process.exit(0);
}
