/**
 * The bounded pool of QuickJS sandbox threads or processes shared by every conversation of a
 * runtime: where every QuickJS run is placed.
 *
 * The rule this file enforces: **guest code never runs on the host's event loop.** Every VM runs
 * on a worker thread of the host (thread.ts; the default) or in a sandbox process
 * (sandbox-process.ts; `isolation: 'bwrap'` or `quickjsThreads: false`): a place the host can
 * stop from outside at any instruction (`Worker.terminate()`, a kill), whatever the engine is
 * doing. The host's thread only hands frames over. There is no other kind of place in `VmHost`.
 *
 * A process hosts many conversations' VMs and serves up to `runsPerProcess` runs at once (they
 * interleave while scripts wait on tool calls). A conversation's VM lives in one process
 * (affinity), so its runs go there. Runs beyond capacity wait in one queue, served fairly across conversations (serveQueue), bounded in
 * length and in time, and are refused past either bound. Warm processes stay between bursts;
 * idle conversations and idle processes are reclaimed after configurable delays.
 *
 * Ending one run (time limit, abort) cancels it inside its process, whose interrupt handler
 * stops the script: the process and the other runs in it live on. Only a process that does not
 * confirm the cancel in time is killed, failing the runs it hosted.
 */
import type { JsLimits } from '../../limits.ts';
import { CapacityError, waitInQueue, type ResolvedPoolOptions, type Waiting } from '../pool-options.ts';
import type { ChildMessage, ParkedSession } from '../../protocol.ts';
import { SandboxProcess, type ProcessEnd, type ProcessListener, type SandboxProcessOptions } from '../../sandbox-process.ts';
import type { RunProcess } from '../../session.ts';
import { SandboxThread } from './thread.ts';
import { placeOnThread } from './thread-placement.ts';
import { overBudget, tenantOf, type HeldSession } from '../../../session-budget.ts';

/** Where VMs run: a sandbox process or a worker thread of the host (thread.ts); nothing else. */
type VmHost = SandboxProcess | SandboxThread;

/** Threads one tenant's runs may hold at once (QuickjsPool.tenantFull says why half). */
export const tenantThreads = (maxProcesses: number): number => Math.max(1, Math.floor(maxProcesses / 2));

/** How long a process may take to confirm a cancelled run before it is killed. */
const CANCEL_GRACE_MS = 2_000;
/**
 * Fairness on threads: a run that has held its thread this long is a long one. While every thread
 * holds such a run, a waiting run gets a thread beyond `maxProcesses` (up to `overflowThreads`
 * more): spinning runs then share the cores with it through the OS's scheduler instead of making
 * it wait for one of them to end (six spinning conversations made a neighbour's `return 1` wait
 * for their time limit). Short runs never start these threads: a burst of them waits its turn, as
 * before. 100 ms: well above a warm run (0.3–5 ms) and a thread's start (80–300 ms under load)
 * is the larger part of what a waiting run then pays.
 */
const FAIR_SLICE_MS = 100;
/**
 * Sessions a sandbox process keeps between runs, counted by the host and evicted fairly across
 * tenants (session-budget.ts): one tenant's many conversations cannot clear another's session.
 * The process's own cap (sandbox-loop.mjs MAX_KEPT, 64) is a backstop above it, so it never
 * chooses while runs in flight (at most `runsPerProcess`) keep theirs on top of these.
 */
const PROCESS_SESSIONS = 32;

interface Host {
  process: VmHost;
  ready: boolean;
  /** Runs placed here (starting or running). */
  load: number;
  /** Of those, runs that reported their outcome and only await their idle confirmation. */
  finishing: number;
  listeners: Map<number, ProcessListener>;
  conversations: Set<string>;
  cancelling: Map<number, NodeJS.Timeout>;
  idleSince: number;
  /** When its current runs began (its load went from 0 to 1): the age FAIR_SLICE_MS is judged by. */
  busySince: number;
  /** Conversation slots the process said it held at its last idle (its own map, not ours). */
  slots: number;
  /** How the process ended, once the pool has lost it. */
  end?: ProcessEnd;
  /**
   * Killed by the pool (a cancel it never confirmed) and not yet gone: it takes no run. A run
   * placed there in that window failed as "exited unexpectedly" (seen on threads).
   */
  doomed?: boolean;
}

interface Conversation {
  /** Where its VM lives; null while its session is parked in the host (threads). */
  host: Host | null;
  active: number;
  lastUsed: number;
  /** Its process holds a VM kept from its last run (a session the next run continues). */
  session: boolean;
  /** Bytes of that kept VM's memory, as its last run reported (src/runtime/session-budget.ts). */
  keptBytes: number;
  /** Ended while a run used it: dropped once its last run is over. */
  ending: boolean;
  /** Its tenant (src/runtime/session-budget.ts): the conversation id up to its first '/'. */
  tenant: string;
  /** Threads: its thread was asked to park the kept VM; the next run waits for the snapshot. */
  parking: boolean;
  /** Threads: the kept VM, parked in the host; the next run restores it on any free thread. */
  parked?: ParkedSession;
}

interface Waiter extends Waiting<Host> {
  conversation: string | undefined;
}

export class QuickjsPool {
  private readonly maxProcesses: number;
  private runsPerProcess: number;
  /** maxQueued and queueTimeoutMs: the queue's bounds (waitInQueue). */
  private readonly queueBounds: ResolvedPoolOptions;
  private readonly idleVmMs: number;
  private readonly idleProcessMs: number;
  private readonly minProcesses: number;
  /** Bytes the sessions between runs may hold, kept VMs and parked images together (src/runtime/session-budget.ts). */
  private readonly sessionBudget: number;
  private readonly hosts = new Set<Host>();
  private readonly conversations = new Map<string, Conversation>();
  private readonly queue: Waiter[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  /**
   * Threads: whether an idle thread is kept in reserve (placeOnThread). Not until the pool has
   * a second conversation to serve, or a run found no thread idle: a host with one conversation
   * would pay for a thread it never uses (10–16 MB of RSS, the most of its fixed cost after its
   * first run that could go).
   */
  private reserveWanted = false;
  /** Serves the queue again once the threads' runs have all turned long (FAIR_SLICE_MS). */
  private fairTimer: NodeJS.Timeout | undefined;
  /** Processes started, killed (crash, stuck cancel) and reclaimed (idle) over the pool's life. */
  readonly counts = { started: 0, killed: 0, reclaimed: 0 };

  constructor(
    options: ResolvedPoolOptions,
    /** How its sandbox processes start: entry file, OS layer, the operator's caps (JsRuntimeOptions.caps; none on threads, which take only the entry). */
    private readonly start: Omit<SandboxProcessOptions, 'engine' | 'heapMb' | 'contextify'> = {},
    /**
     * Run VMs on worker threads of the host, one running VM per thread, instead of in sandbox
     * processes: a busy VM then holds only its own thread (see README, isolation model).
     */
    private readonly threads = false,
    /** Threads: how many beyond `maxProcesses` may start for runs that wait behind long ones (FAIR_SLICE_MS). */
    private readonly overflowThreads = 0,
  ) {
    ({
      maxProcesses: this.maxProcesses,
      runsPerProcess: this.runsPerProcess,
      idleVmMs: this.idleVmMs,
      idleProcessMs: this.idleProcessMs,
      minProcesses: this.minProcesses,
    } = options);
    this.queueBounds = options;
    this.sessionBudget = options.sessionBudgetMb * 1024 * 1024;
    if (threads) this.runsPerProcess = 1;
    const every = Math.max(20, Math.min(this.idleVmMs, this.idleProcessMs, 60_000) / 2);
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  /** Starts the warm processes. */
  warm(): void {
    for (let i = this.hosts.size; i < this.minProcesses; i++) this.spawn();
  }

  /**
   * Live processes, conversations with a VM, queued runs, and the conversation slots the
   * processes reported holding after their last runs (for monitoring and tests).
   */
  get size(): { processes: number; conversations: number; queued: number; processSlots: number; sessionBytes: number } {
    let processSlots = 0;
    for (const h of this.hosts) processSlots += h.slots;
    const sessionBytes = this.heldSessions().reduce((sum, s) => sum + s.bytes, 0);
    return { processes: this.hosts.size, conversations: this.conversations.size, queued: this.queue.length, processSlots, sessionBytes };
  }

  /**
   * A channel for one run of `conversation` (undefined: a run of its own, on a spare VM).
   * Rejects with a CapacityError when the run cannot be placed within the queue bounds, with
   * the signal's reason when aborted while waiting.
   */
  async acquire(conversation: string | undefined, runId: number, limits: JsLimits, signal?: AbortSignal, reset = false): Promise<RunChannel> {
    if (this.closed) throw new CapacityError('the runtime is closed');
    let host = this.place(conversation);
    if (host === null) host = await this.wait(conversation, signal); // bound by serveQueue
    else this.bind(host, conversation);
    try {
      if (!host.ready) await host.process.ready;
      // Lost after this run was placed but before it listens (in the turn it became ready, or
      // when a release handed the run this process and a later frame of the same chunk broke
      // it): the runs it hosted were told, this one would wait out its whole time limit.
      if (host.end !== undefined) throw new Error(host.end.message);
    } catch (error) {
      this.unbind(host, conversation);
      throw error;
    }
    const c = conversation === undefined ? undefined : this.conversations.get(conversation);
    const fresh = reset || c === undefined || c.host !== host || !c.session || !host.process.alive;
    // A parked session travels with the run's frame; it is the host's no longer.
    const parked = c?.host === host ? c.parked : undefined;
    if (c !== undefined) delete c.parked;
    return new RunChannel(this, host, runId, conversation, limits, fresh, fresh ? undefined : parked);
  }

  /**
   * @internal a run is over: `kept` says whether its process kept its VM as the
   * conversation's session (false when the run ended without the process reporting).
   */
  settleSession(channel: RunChannel, kept: boolean, bytes: number): void {
    if (channel.conversation === undefined) return;
    const c = this.conversations.get(channel.conversation);
    if (c === undefined || c.host !== channel.host) return;
    c.session = kept;
    c.keptBytes = kept ? bytes : 0;
    this.enforceBudget();
  }

  /** Sessions between runs and their bytes: a parked image's, else its kept VM's memory. */
  private heldSessions(): HeldSession[] {
    const held: HeldSession[] = [];
    for (const [name, c] of this.conversations) {
      if (c.active > 0 || c.ending) continue;
      const bytes = c.parked?.data.byteLength ?? (c.session && c.host !== null ? c.keptBytes : 0);
      if (bytes > 0) held.push({ name, bytes, lastUsed: c.lastUsed });
    }
    return held;
  }

  /**
   * Drops sessions until those between runs fit in the budget, fairly across tenants
   * (src/runtime/session-budget.ts). A dropped conversation's next run starts fresh and says so.
   */
  private enforceBudget(): void {
    for (const name of overBudget(this.heldSessions(), this.sessionBudget)) this.drop(name, this.conversations.get(name)!);
    if (this.threads) return;
    // A sandbox process keeps its sessions itself: the host counts them per process, by the same
    // fair rule, so that the process's own cap (sandbox-loop.mjs) never chooses.
    for (const host of this.hosts) {
      if (host.conversations.size <= PROCESS_SESSIONS) continue;
      const held: HeldSession[] = [];
      for (const name of host.conversations) {
        const c = this.conversations.get(name)!;
        held.push({ name, bytes: 1, lastUsed: c.lastUsed, pinned: c.active > 0 || c.ending || !c.session });
      }
      for (const name of overBudget(held, PROCESS_SESSIONS)) this.drop(name, this.conversations.get(name)!);
    }
  }

  private bind(host: Host, conversation: string | undefined): void {
    if (host.load === 0) host.busySince = performance.now();
    host.load++;
    host.process.ref();
    if (this.threads) this.vacate(host, conversation);
    if (conversation === undefined) return;
    let c = this.conversations.get(conversation);
    if (c === undefined) {
      c = { host, active: 0, lastUsed: 0, session: false, keptBytes: 0, tenant: tenantOf(conversation), ending: false, parking: false };
      this.conversations.set(conversation, c);
      host.conversations.add(conversation);
    } else if (c.ending) {
      // A run under the name of a conversation that ended while its last run finished: a new
      // conversation, which must not continue the old one's VM.
      c.ending = false;
      c.session = false;
    }
    if (c.host === null) {
      // Its session was parked: it goes on where the run was placed.
      c.host = host;
      host.conversations.add(conversation);
    }
    c.active++;
  }

  /**
   * Threads: a run is about to take `host`, which may keep other conversations' sessions. Those
   * are parked in the host first (the thread serves frames in order, so before the run starts),
   * so that none of them ever waits behind this run: their next runs restore them on any free
   * thread. Conversations without a kept VM just lose their affinity.
   */
  private vacate(host: Host, conversation: string | undefined): void {
    for (const name of host.conversations) {
      const c = this.conversations.get(name);
      if (name === conversation || c === undefined || c.host !== host || c.active > 0 || c.parking) continue;
      this.evict(host, name, c);
    }
  }

  /** Threads: takes an idle conversation off `host`: its kept session is parked in the host, else its affinity goes. */
  private evict(host: Host, name: string, c: Conversation): void {
    if (c.session) {
      c.parking = true;
      host.process.send({ t: 'park', conv: name }, []);
    } else {
      host.conversations.delete(name);
      c.host = null;
      host.process.send({ t: 'drop', conv: name }, []);
    }
  }

  /** Threads: a thread answered a park: the session is the host's now (or gone, if nothing was kept). */
  private parked(host: Host, conv: string, session: ParkedSession | null): void {
    const c = this.conversations.get(conv);
    if (c === undefined || !c.parking || c.host !== host) return; // dropped meanwhile
    c.parking = false;
    c.host = null;
    host.conversations.delete(conv);
    if (session === null) c.session = false;
    else c.parked = session;
    this.enforceBudget();
    this.serveQueue();
  }

  private unbind(host: Host, conversation: string | undefined): void {
    host.load--;
    if (host.load === 0) {
      host.idleSince = performance.now();
      host.process.unref();
    }
    if (conversation !== undefined) {
      const c = this.conversations.get(conversation);
      if (c !== undefined && c.host === host) {
        c.active--;
        c.lastUsed = performance.now();
        if (c.ending && c.active === 0) this.drop(conversation, c);
        else if (c.active === 0 && c.keptBytes > 0) this.enforceBudget(); // its session counts from now
      }
    }
    this.serveQueue();
  }

  /**
   * The conversation is over: its VM is freed in its process now, or once its runs in progress
   * are over. A later run under the same name starts on a fresh VM.
   */
  endConversation(conversation: string): void {
    const c = this.conversations.get(conversation);
    if (c === undefined) return;
    if (c.active > 0) c.ending = true;
    else this.drop(conversation, c);
  }

  /** Forgets the conversation and tells its process to free the VM it kept for it. */
  private drop(name: string, c: Conversation): void {
    this.conversations.delete(name);
    delete c.parked;
    if (c.host === null) return;
    c.host.conversations.delete(name);
    if (c.host.process.alive) c.host.process.send({ t: 'drop', conv: name }, []);
  }

  /**
   * Threads: whether the tenant `conversation` belongs to holds its most threads already: half
   * of `maxProcesses` (at least 1; the default pool's half is the number of cores). Its further
   * runs wait behind its own, so one serve client's many spinning conversations leave threads,
   * and cores, to everyone else. Measured (bench/neighbour-interleaved.ts, load 23–29, 2 cores):
   * with no cap, four spinners and a heavy script of one tenant took every thread, a neighbour's
   * session was parked and its next run waited 8.3 s for a thread to start beside them (30 s and
   * a capacity failure in another run); capped at `maxProcesses` − 1 (3), its p50 beside them was
   * 11.7–14.9 ms (1.4–1.6 alone); at half (2), 2.6–4.0 ms, p99 62–92 ms against 24–57 ms alone.
   */
  private tenantFull(conversation: string | undefined): boolean {
    if (!this.threads || conversation === undefined) return false;
    const tenant = tenantOf(conversation);
    let running = 0;
    for (const c of this.conversations.values()) if (c.tenant === tenant) running += c.active;
    return running >= tenantThreads(this.maxProcesses);
  }

  /** Where a run goes now, or null when it must wait. Starts a process when all are busy. */
  private place(conversation: string | undefined): Host | null {
    if (this.tenantFull(conversation)) return null; // served when one of its tenant's runs ends
    const pinned = conversation === undefined ? undefined : this.conversations.get(conversation);
    if (pinned?.parking) return null; // its session is on its way to the host
    if (pinned?.host === null) return this.placeOnThread(conversation); // parked: any free thread
    if (pinned !== undefined && this.threads && pinned.active === 0 && !pinned.session && (pinned.host.doomed || this.stopping(pinned.host))) {
      // Its last run was stopped (time limit, abort) and its VM went with it: nothing ties it to
      // that thread, which may still be inside one long operation until CANCEL_GRACE_MS ends it.
      // Waiting there made the conversation's next run wait out the grace (2.5–5 s measured).
      const stuck = pinned.host;
      stuck.conversations.delete(conversation!);
      pinned.host = null;
      if (stuck.process.alive) stuck.process.send({ t: 'drop', conv: conversation! }, []);
      return this.placeOnThread(conversation);
    }
    if (pinned?.host.doomed) return null; // placed again once the pool has lost it
    if (pinned !== undefined && pinned.host.process.alive) {
      return pinned.host.load < this.runsPerProcess && !this.stopping(pinned.host) ? pinned.host : null;
    }
    if (this.threads) return this.placeOnThread(conversation);
    let best: Host | null = null;
    let anyIdle = false;
    for (const h of this.hosts) {
      if (!h.process.alive || h.doomed || h.load >= this.runsPerProcess) continue;
      // A process whose runs have all finished is idle for this purpose: a conversation run
      // right after another (their idle confirmation still in flight) needs no new process.
      if (h.ready && h.load - h.finishing === 0) anyIdle = true;
      // Ready processes first, then the least loaded.
      if (best === null || (h.ready && !best.ready) || (h.ready === best.ready && h.load < best.load)) best = h;
    }
    if (!anyIdle && this.hosts.size < this.maxProcesses) {
      const fresh = this.spawn();
      if (best === null || !best.ready) best = fresh;
    }
    return best;
  }

  /** Threads: where a run goes (thread-placement.ts decides); null: it waits in the queue. */
  private placeOnThread(conversation?: string): Host | null {
    const hosts = [...this.hosts];
    const decision = placeOnThread({
      threads: hosts.map((h) => ({
        usable: h.process.alive && !h.doomed && !this.stopping(h),
        ready: h.ready,
        load: h.load,
        finishing: h.finishing,
        sessions: h.conversations.size,
      })),
      reserveWanted: this.reserveWanted,
      anotherConversation: conversation !== undefined && this.conversations.size > 0 && !this.conversations.has(conversation),
      roomForAnother: this.hosts.size < this.maxProcesses || (this.hosts.size < this.maxProcesses + this.overflowThreads && this.allLong()),
    });
    this.reserveWanted = decision.reserveWanted;
    const started = decision.start ? this.spawn() : null;
    if (decision.run === 'new') return started;
    // 'wait': served when a thread's confirmation unbinds it, or when a thread gets ready.
    return decision.run === 'wait' ? null : hosts[decision.run]!;
  }

  /**
   * Threads: still running a cancelled run's code (its cancel not yet confirmed). A run placed
   * there would wait behind it and, if the thread never confirms, die with it; a process runs
   * many VMs and keeps taking runs while one of them is cancelled.
   */
  private stopping(host: Host): boolean {
    return this.threads && host.cancelling.size > 0;
  }

  private wait(conversation: string | undefined, signal?: AbortSignal): Promise<Host> {
    return waitInQueue<Host, Waiter>(this.queue, this.queueBounds, signal, { conversation });
  }

  /**
   * Threads: every thread is busy, and every one that has started runs a run that has held it
   * FAIR_SLICE_MS or more. Threads still starting for earlier waiters do not count: waiters
   * behind long runs all get their threads at once, not one per FAIR_SLICE_MS.
   */
  private allLong(now = performance.now()): boolean {
    for (const h of this.hosts) if (h.load === 0 || (h.ready && now - h.busySince < FAIR_SLICE_MS)) return false;
    return true;
  }

  /**
   * Places waiting runs. Fair across conversations: the runs of conversations with the fewest
   * runs in progress go first, in arrival order among equals, so a conversation's extra runs
   * queue behind other conversations' first ones, not in front of them.
   */
  private serveQueue(): void {
    const running = (w: Waiter) => (w.conversation === undefined ? 0 : this.conversations.get(w.conversation)?.active ?? 0);
    const order = this.queue.length > 1 ? [...this.queue].sort((a, b) => running(a) - running(b)) : [...this.queue];
    for (const waiter of order) {
      const host = this.place(waiter.conversation);
      if (host === null) continue;
      // Bound now, before the next waiter is placed, so placements see each other's load.
      this.bind(host, waiter.conversation);
      waiter.resolve(host); // removes it from the queue
    }
    this.scheduleFair();
  }

  /** Threads: runs still wait and overflow threads may start: look again when the threads' runs turn long. */
  private scheduleFair(): void {
    if (this.queue.length === 0 || this.overflowThreads === 0 || this.closed || this.fairTimer !== undefined) return;
    if (this.hosts.size >= this.maxProcesses + this.overflowThreads) return;
    let latest = 0;
    for (const h of this.hosts) if (h.load > 0 && h.ready) latest = Math.max(latest, h.busySince);
    this.fairTimer = setTimeout(() => {
      this.fairTimer = undefined;
      this.serveQueue();
    }, Math.max(1, Math.ceil(latest + FAIR_SLICE_MS - performance.now())));
    this.fairTimer.unref();
  }

  private spawn(): Host {
    const process = this.threads
      ? new SandboxThread(this.start.entry)
      : new SandboxProcess({ ...this.start, engine: 'quickjs', heapMb: 0 });
    this.counts.started++;
    const host: Host = {
      process,
      ready: false,
      load: 0,
      finishing: 0,
      listeners: new Map(),
      conversations: new Set(),
      cancelling: new Map(),
      idleSince: performance.now(),
      busySince: 0,
      slots: 0,
    };
    this.hosts.add(host);
    process.listen({ message: (m) => this.route(host, m), end: (e) => this.lost(host, e) });
    process.unref();
    process.ready.then(
      () => {
        host.ready = true;
        // Its run starts now: its age (FAIR_SLICE_MS) counts from here, not from its thread's start.
        host.busySince = performance.now();
        if (host.load === 0) process.unref();
        this.serveQueue();
      },
      () => {
        // Runs waiting on it see the failure through their own `ready` await.
      },
    );
    return host;
  }

  private route(host: Host, message: ChildMessage): void {
    if (message.t === 'parked') return this.parked(host, message.conv, message.session);
    if (!('run' in message)) return;
    if (message.t === 'idle') {
      if (message.slots !== undefined) host.slots = message.slots;
      const timer = host.cancelling.get(message.run);
      if (timer !== undefined) {
        clearTimeout(timer);
        host.cancelling.delete(message.run);
        // A thread free again: runs that waited for it may go.
        if (this.threads && host.listeners.get(message.run) === undefined) queueMicrotask(() => this.serveQueue());
      }
    }
    const listener = host.listeners.get(message.run);
    if (listener !== undefined) return listener.message(message);
    // A cancel may cross the run's last messages, and a cancel of a run that had just ended is
    // answered with an idle: both are expected. Anything else names a run this process was
    // never given, or one long over: the process no longer follows the protocol.
    if (message.t === 'idle' || host.cancelling.has(message.run)) return;
    this.counts.killed++;
    host.process.breakBridge(`${message.t} for run ${message.run}, which is not running in this process`);
  }

  private lost(host: Host, end: ProcessEnd): void {
    host.end = end;
    this.hosts.delete(host);
    for (const timer of host.cancelling.values()) clearTimeout(timer);
    for (const name of host.conversations) {
      if (this.conversations.get(name)?.host === host) this.conversations.delete(name);
    }
    const listeners = [...host.listeners.values()];
    host.listeners.clear();
    for (const listener of listeners) listener.end(end);
    if (!this.closed) {
      // A process that never got ready is not replaced at once: it would crash-loop.
      if (host.ready) this.warm();
      this.serveQueue();
    }
  }

  /** @internal a run ended without an outcome: stop it in its process. */
  cancel(host: Host, runId: number): void {
    host.listeners.delete(runId);
    if (!host.process.alive || host.cancelling.has(runId)) return;
    host.process.postCancel(runId);
    host.process.send({ t: 'cancel', run: runId }, []);
    const timer = setTimeout(() => {
      host.cancelling.delete(runId);
      if (host.process.alive) {
        this.counts.killed++;
        host.doomed = true;
        host.process.kill();
      }
    }, CANCEL_GRACE_MS);
    timer.unref();
    host.cancelling.set(runId, timer);
  }

  /** @internal the run reported its outcome; its process confirms it is idle soon. */
  finishing(channel: RunChannel): void {
    if (channel.released || channel.finishing) return;
    channel.finishing = true;
    channel.host.finishing++;
  }

  /** @internal the run is over. */
  release(channel: RunChannel): void {
    if (channel.released) return;
    channel.released = true;
    if (channel.finishing) channel.host.finishing--;
    channel.host.listeners.delete(channel.runId);
    this.unbind(channel.host, channel.conversation);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [name, c] of this.conversations) {
      if (c.active > 0 || now - c.lastUsed < this.idleVmMs) continue;
      this.drop(name, c);
    }
    let spare = this.hosts.size - this.minProcesses;
    for (const h of this.hosts) {
      if (spare <= 0) break;
      if (!h.ready || h.load > 0 || now - h.idleSince < this.idleProcessMs) continue;
      if (h.conversations.size > 0) {
        // Threads: an idle thread that only keeps sessions hands them to the host (an image of
        // ~0.5 MB each, restored on any thread by their next run) and goes at the next sweep.
        // A thread is ~19 MB of RSS whatever it keeps (32 sessions on 1 thread: +20 MB; on 8:
        // +156 MB), and kept sessions used to hold their threads for idleVmMs (5 min).
        if (this.threads) {
          this.vacate(h, undefined);
          spare--;
        }
        continue;
      }
      spare--;
      this.hosts.delete(h);
      this.counts.reclaimed++;
      h.process.listen(null);
      h.process.kill();
    }
  }

  /** Refuses waiters and kills every process; resolves once they are gone. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.fairTimer);
    for (const waiter of [...this.queue]) waiter.reject(new CapacityError('the runtime is closed'));
    await Promise.all([...this.hosts].map((h) => h.process.stop()));
  }
}

/** One run's view of its shared process: frames tagged with its run id, kill = cancel. */
export class RunChannel implements RunProcess {
  released = false;
  finishing = false;
  /** The session ended the run (time limit, abort, close). */
  killed = false;

  constructor(
    private readonly pool: QuickjsPool,
    readonly host: Host,
    readonly runId: number,
    readonly conversation: string | undefined,
    private readonly limits: JsLimits,
    /** The run starts on a fresh VM: the process is told to drop any VM it kept. */
    readonly fresh: boolean,
    /** Threads: the conversation's parked session, restored by the thread before the run. */
    private readonly parked?: ParkedSession,
  ) {}

  send(header: unknown, payloads: readonly string[]): void {
    const h = header as { t?: unknown };
    if (h.t === 'run') {
      const { timeoutMs, heapMb } = this.limits;
      header = { ...h, conv: this.conversation ?? null, heapMb, ms: Number.isFinite(timeoutMs) ? timeoutMs : null, fresh: this.fresh };
    }
    if (h.t === 'run' && this.parked !== undefined && !(this.host.process instanceof SandboxProcess)) return this.host.process.send(header, payloads, this.parked);
    this.host.process.send(header, payloads);
  }

  listen(listener: ProcessListener | null): void {
    if (this.released) return;
    if (listener === null) this.host.listeners.delete(this.runId);
    else this.host.listeners.set(this.runId, listener);
  }

  /** The pool keeps the process referenced while it has runs. */
  ref(): void {}

  /** The catalogs are the process's: its VMs share what it holds. */
  get catalogs(): SandboxProcess['catalogs'] {
    return this.host.process.catalogs;
  }

  kill(): void {
    this.killed = true;
    this.pool.cancel(this.host, this.runId);
  }
}
