/**
 * Where a run goes when QuickJS runs on threads of the host (engines/quickjs/pool.ts), as a pure
 * decision over what the pool knows of its threads. A thread runs one VM at a time.
 *
 * The order: an idle thread, the one keeping the fewest sessions (those are parked in the host first, so none waits behind the run); else
 * a thread still starting; else a new thread. A
 * thread whose run has reported its outcome counts as idle for the reserve but takes no run of
 * another conversation: it is that conversation's thread, and a newcomer that took it would
 * leave the conversation to wait for a thread to start (tried: beside a spinning newcomer, a
 * neighbour's `return x + 1` took 240 ms instead of 1.2 ms, `noisy-neighbour.test.ts`). The
 * newcomer waits for a thread to start instead (80–130 ms on the 2-core machine).
 *
 * Threads are added for runs at once, not for conversations; and one idle thread is kept in
 * reserve, while there is room, once the pool has served more than one conversation or runs at
 * once: a conversation whose thread another run just took then finds one at once.
 */

/** What the decision needs of one thread. */
export interface ThreadState {
  /** Alive, not doomed, not still running a cancelled run. */
  usable: boolean;
  ready: boolean;
  /** Runs placed there (starting or running). */
  load: number;
  /** Of those, runs that reported their outcome and only await their idle confirmation. */
  finishing: number;
  /** Conversations whose sessions it keeps. */
  sessions: number;
}

export interface PlacementInput {
  /** Every thread, in the pool's order. */
  threads: readonly ThreadState[];
  /** Whether one idle thread is kept in reserve already (the pool remembers it). */
  reserveWanted: boolean;
  /** The run is of a conversation the pool does not hold, while it holds others. */
  anotherConversation: boolean;
  /** Whether a thread may be added (the pool is below its maximum). */
  roomForAnother: boolean;
}

export interface Placement {
  /** The index of the thread that takes the run; 'new' for the thread {@link start} adds; 'wait' to queue it. */
  run: number | 'new' | 'wait';
  /** Whether to start a thread now (for this run, or as the reserve). */
  start: boolean;
  /** The reserve rule from now on. */
  reserveWanted: boolean;
}

export function placeOnThread({ threads, reserveWanted: wanted, anotherConversation, roomForAnother }: PlacementInput): Placement {
  let reserveWanted = wanted || anotherConversation;
  let best = -1;
  let starting = -1;
  let idle = 0;
  let busy = 0;
  threads.forEach((t, i) => {
    if (!t.usable) return;
    if (t.load > 0) {
      // Free as soon as its confirmation arrives: it counts toward the reserve, so a quick next
      // run does not start a thread.
      if (t.ready && t.load === t.finishing) idle++;
      else busy++;
      return;
    }
    if (!t.ready) {
      if (starting < 0) starting = i;
      return;
    }
    idle++;
    const other = best < 0 ? undefined : threads[best]!;
    if (other === undefined || t.sessions < other.sessions) best = i;
  });
  // Runs at once: this one arrives while another runs.
  if (busy > 0 && idle === 0) reserveWanted = true;
  const start = idle <= (reserveWanted ? 1 : 0) && starting < 0 && roomForAnother;
  if (best >= 0) return { run: best, start, reserveWanted };
  if (start) return { run: 'new', start, reserveWanted };
  return { run: starting >= 0 ? starting : 'wait', start, reserveWanted };
}
