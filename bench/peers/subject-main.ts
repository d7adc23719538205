/**
 * One `bench:peers` subject in a process of its own, forked by bench/peers.ts and driven over
 * IPC, so that no subject's heap, workers or garbage weigh on another's figures, and its tree
 * RSS is its own. Every time is taken here, around the subject's own call; the IPC hop is not
 * in any figure.
 *
 *   argv: <mode> <subject>
 *   serve: answers { type: 'run', workload, conversation } with { type: 'done', ms } until closed;
 *   cold:  opens the subject, runs `return 1` once, reports { type: 'cold', ms } and exits
 *          (module loading is done before the clock starts, as an embedder's import would be);
 *   rss:   one run, then { type: 'one' }; on 'go', 32 conversations at once, then { type: 'burst' };
 *          the parent samples this tree from the sampler process meanwhile.
 * A subject that cannot load (a native module missing) reports { type: 'absent', reason }.
 */
import { megabyteObject, CONVERSATIONS, type WorkloadName } from './workloads.ts';
import { prepareSubject, SUBJECTS, type Opener, type Subject, type SubjectName } from './subjects.ts';

/** How long a subject's close may take before the process leaves without it. */
const CLOSE_BOUND_MS = 10_000;

type Request = { type: 'run'; workload: WorkloadName; conversation: string } | { type: 'go' } | { type: 'close' };

const [mode, name] = process.argv.slice(2) as ['serve' | 'cold' | 'rss', SubjectName];
if (!SUBJECTS.includes(name)) throw new Error(`unknown subject ${name}`);
const send = (message: Record<string, unknown>) => process.send!(message);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const big = megabyteObject();
let opener: Opener;
try {
  opener = await prepareSubject(name, big);
} catch (error) {
  send({ type: 'absent', reason: errorText(error) });
  process.exit(0);
}

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

let subject: Subject | undefined;
try {
  if (mode === 'cold') {
    const t = performance.now();
    subject = await opener();
    await subject.run('return1', 'cold');
    send({ type: 'cold', ms: performance.now() - t });
  } else if (mode === 'rss') {
    subject = await opener();
    await subject.run('conversation', 'c0');
    send({ type: 'one' });
    if ((await nextRequest()).type !== 'go') throw new Error('expected go');
    await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => subject!.run('conversation', `c${i + 1}`)));
    send({ type: 'burst' });
    await nextRequest();
  } else {
    subject = await opener();
    send({ type: 'ready' });
    for (;;) {
      const request = await nextRequest();
      if (request.type !== 'run') break;
      const t = performance.now();
      await subject.run(request.workload, request.conversation);
      const ms = performance.now() - t;
      await subject.settle?.();
      send({ type: 'done', ms });
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
