// The sandbox's loop body, whatever carries its frames: what a sandbox process and a sandbox
// thread (engines/quickjs/main.mjs blocks between frames for both) share. It holds the
// conversations' VMs (their sessions), the spare VMs, the runs in progress and the interrupt
// handler that stops a script at its deadline or cancel; the frames it sends go through `io`,
// the only thing that differs between those two places.
import { GuestRun } from './vm.mjs';
import { rawCrossing } from './crossing.mjs';
import { CatalogStore, MISSING_CATALOG } from '../../sandbox/catalogs.mjs';
import { imageRestorer, memoryImage } from './memory-image.mjs';
import { buildTemplate, guestSources, IMAGE_FILE, readTemplateImage, templateKey, vmOptionsFor } from './template.mjs';

/**
 * @typedef {object} LoopIo
 * @property {(header: object, payloads?: string[]) => void} send a frame to the host
 * @property {(conv: string, session: object | null) => void} sendParked a parked session to the host
 * @property {(run: number) => boolean} cancelPosted whether the host posted a cancel of `run`
 * @property {() => boolean} framesWaiting whether the host announced a frame not yet taken
 */

/**
 * Prepares the template and the first spare VM, then returns the loop's entry points:
 * `dispatch(frame)` for each frame from the host, in order (the next after the last settled),
 * and `prepare()` for work done only while no frame waits.
 *
 * @param {object} options
 * @param {any} options.quickjs the quickjs-wasi module
 * @param {WebAssembly.Module} options.wasmModule its compiled WebAssembly
 * @param {string} options.digest the digest of the WebAssembly's bytes (template.mjs)
 * @param {string | undefined} options.imagePath a template image other than the package's (tests)
 * @param {number} options.spareVms fresh VMs kept ready for runs of conversations that have none
 * @param {boolean} options.oneRunAtATime one running VM here (a thread): prepare no
 *   spare while a run waits for the host, or its answer would wait behind the restore
 * @param {LoopIo} options.io
 */
export async function startSandboxLoop({ quickjs, wasmModule, digest, imagePath, spareVms, oneRunAtATime, io }) {
  /** How often (ms) a busy script checks whether the host has sent a frame (a cancel). */
  const CANCEL_CHECK_MS = 2;

  /** The run whose code executes right now (one at a time: the loop has one thread). */
  let current = null;
  let nextCancelCheck = 0;
  /**
   * Runs inside the guest's execution, possibly with almost no stack left (a script recursing to
   * its limit). So it reads no frame — a frame half-consumed there was lost, and the process then
   * slept in read(2) for good — only the cancel board, and anything that throws here just means
   * "not now": the next check retries.
   */
  function interruptHandler() {
    if (current === null) return false;
    try {
      if (current.shouldInterrupt()) return true;
      const now = performance.now();
      if (now >= nextCancelCheck) {
        nextCancelCheck = now + CANCEL_CHECK_MS;
        if (io.cancelPosted(current.id)) current.cancelled = true;
        return current.shouldInterrupt();
      }
    } catch {
      // Out of stack inside the handler: nothing was consumed, so nothing is lost.
    }
    return false;
  }

  const { QuickJS, JSException, JSValueHandle } = quickjs;
  const vmOptions = vmOptionsFor(quickjs, wasmModule, interruptHandler);

  /**
   * The template every VM is restored from (template.mjs): the package's image of it when that was
   * built from exactly this engine and guest code, else built here. Restoring copies its memory
   * into a new WebAssembly instance (about 2 ms), where creating a VM and evaluating the guest
   * code takes 100 ms and more; the frozen state is part of that memory, so it costs runs nothing.
   * A template built here is itself the first spare: restoring a copy of it cost a cold start
   * 300–570 ms of wall time on the loaded 2-core machine.
   */
  async function makeTemplate() {
    const sources = guestSources();
    const shipped = readTemplateImage(imagePath ?? IMAGE_FILE, templateKey(digest, sources, vmOptions));
    if (shipped.image) return { snapshot: shipped.image, token: shipped.image.token, vm: null };
    const { image, vm } = await buildTemplate(QuickJS, vmOptions, sources);
    return { snapshot: image, token: image.token, vm };
  }
  /** Restores VMs from memory images (memory-image.mjs). */
  const restoreVm = imageRestorer(QuickJS, vmOptions);
  const template = await makeTemplate();

  /**
   * A fresh VM with the prelude installed, the bridge unbound and no tools installed; or, from a
   * parked session's snapshot, that session's VM as it was left (its installed catalog with it).
   * The control function's token is the template's: its box is never released, so it is in every
   * memory image taken from the template's descendants.
   */
  async function createGuest(snapshot = template.snapshot, catalog = null, existing = null) {
    const vm = existing ?? (await restoreVm(snapshot));
    const control = vm.importHandle(template.token);
    // The bridge's calls go to the crossing, not to a callback registered with the library.
    const crossing = rawCrossing(vm, JSValueHandle);
    const exports = vm._getExports();
    // vm.callFunction builds a DataView and an argument array per call (about 15 µs, more than the
    // rest of a tool call); this calls the control function through the exports directly.
    let argv = exports.wasm_malloc(8 * 4);
    // The cells this thread allocated in the VM: freed when it goes, and before a parked session's
    // image is taken, so that a session parked and restored again and again does not collect them.
    const releaseCells = () => {
      crossing.dispose();
      if (argv !== 0) exports.wasm_free(argv);
      argv = 0;
    };
    return {
      vm,
      control,
      exports,
      /** Id of the catalog whose bindings the VM holds installed (null: none, or unnamed). */
      catalog,
      exception: () => new JSException(vm.getException()),
      crossing,
      /**
       * Calls control(...args), each a handle or a value pointer (the caller frees its own);
       * returns true when it returned true. Throws a JSException if it threw.
       */
      callControl(args) {
        const memory = crossing.memory();
        for (let i = 0; i < args.length; i++) memory.writeUInt32LE(typeof args[i] === 'number' ? args[i] : args[i].ptr, argv + 4 * i);
        const result = exports.qjs_call(control.ptr, vm.undefined.ptr, args.length, argv);
        try {
          if (exports.qjs_is_exception(result)) throw new JSException(vm.getException());
          return exports.qjs_is_bool(result) !== 0 && exports.qjs_get_bool(result) !== 0;
        } finally {
          exports.qjs_free_value(result);
        }
      },
      /**
       * The VM's state, to be restored on another thread (a parked session): its linear memory
       * without the blocks that are all zero (most of a VM's memory: 15 of a fresh VM's 21 pages),
       * read straight from the instance rather than from a full copy first.
       */
      snapshot() {
        releaseCells();
        return { ...memoryImage(exports), catalog: this.catalog };
      },
      bindBridge(fn) {
        crossing.bind(fn);
      },
      dispose() {
        try {
          releaseCells();
          control.dispose();
          vm.dispose();
        } catch {
          // A VM that trapped may fail to free; its instance goes with the last reference.
        }
      },
    };
  }

  /**
   * conversation id → { conv, guest: its VM between runs (its session), busy: whether a run uses
   * the slot, dropped: the host ended the conversation while a run used it }
   */
  const conversations = new Map();
  /**
   * Kept VMs (sessions) one process holds at most; past it the least recently used is disposed
   * and its conversation's next run starts fresh (and says so). A backstop: the host drops
   * sessions fairly across tenants at 32 (pool.ts PROCESS_SESSIONS), below this.
   */
  const MAX_KEPT = 64;
  /** Slots holding a kept VM, least recently used first. */
  const keptSlots = new Set();

  function keep(slot, guest) {
    slot.guest = guest;
    keptSlots.delete(slot);
    keptSlots.add(slot);
    for (const oldest of keptSlots) {
      if (keptSlots.size <= MAX_KEPT) break;
      keptSlots.delete(oldest);
      oldest.guest?.dispose();
      oldest.guest = null;
      // Nothing of it is left here: the slot goes too (its next run starts fresh either way).
      if (conversations.get(oldest.conv) === oldest) conversations.delete(oldest.conv);
    }
  }
  const spares = [];
  /** run id → GuestRun */
  const runs = new Map();

  /**
   * The VM for a run: the conversation's kept VM unless the host asked for a fresh one (`fresh`
   * is then true in the result). A run of a conversation whose slot is busy gets a VM of its own.
   */
  async function takeGuest(conv, wantFresh) {
    if (typeof conv === 'string') {
      let slot = conversations.get(conv);
      // A slot dropped while its run went on belongs to the ended conversation: this is a new one.
      if (slot === undefined || slot.dropped) conversations.set(conv, (slot = { conv, guest: null, busy: false, dropped: false }));
      if (!slot.busy) {
        slot.busy = true;
        let kept = slot.guest;
        slot.guest = null;
        keptSlots.delete(slot);
        if (kept !== null && wantFresh) {
          kept.dispose();
          kept = null;
        }
        const guest = kept ?? spares.pop() ?? (await createGuest());
        return { guest, slot, fresh: kept === null };
      }
    }
    return { guest: spares.pop() ?? (await createGuest()), slot: null, fresh: true };
  }

  /** The tool catalogs this process holds; a VM keeps the bindings of the last one it installed. */
  const catalogs = new CatalogStore();

  async function startRun(header, payloads, parked) {
    const code = payloads[0];
    const catalog = catalogs.take(header, payloads);
    // A session parked by another thread continues here: its VM becomes the conversation's kept one.
    if (parked !== undefined && typeof header.conv === 'string' && header.fresh === false) await unpark(header.conv, parked);
    const { guest, slot, fresh } = await takeGuest(header.conv, header.fresh !== false);
    guest.exports.qjs_set_memory_limit(header.heapMb * 1024 * 1024);
    const run = new GuestRun(header, guest, fresh, slot !== null, (ended) => {
      runs.delete(ended.id);
      if (slot !== null && ended.keep && !slot.dropped && conversations.get(header.conv) === slot) keep(slot, guest);
      else guest.dispose();
      if (slot !== null) {
        slot.busy = false;
        if (slot.dropped && conversations.get(header.conv) === slot) conversations.delete(header.conv);
      }
      io.send({ t: 'idle', run: ended.id, slots: conversations.size });
    }, io.send);
    runs.set(run.id, run);
    if (catalog === null) return run.fail('sandbox', undefined, MISSING_CATALOG);
    execute(run, () => run.start(code, catalog, header.sites === true));
  }

  /** Runs guest code for `run`, with the interrupt handler watching it. */
  function execute(run, work) {
    current = run;
    nextCancelCheck = performance.now() + CANCEL_CHECK_MS;
    try {
      work();
    } catch (error) {
      // Anything escaping the run's own handling is an engine fault: that run alone ends.
      const info = error instanceof JSException ? error : { message: String(error?.message ?? error) };
      run.engineFailure(info);
    } finally {
      current = null;
    }
  }

  /**
   * Threads: the conversation's kept VM leaves this thread as a snapshot the host holds (parked),
   * so a run of another conversation can take the thread without the session waiting behind it.
   * The answer carries no snapshot when nothing was kept.
   */
  function park(conv) {
    const slot = conversations.get(conv);
    let session = null;
    if (slot !== undefined && !slot.busy && slot.guest !== null) {
      try {
        session = slot.guest.snapshot();
      } catch {
        session = null; // a VM that cannot be copied is not kept: the next run starts fresh
      }
      slot.guest.dispose();
      slot.guest = null;
      keptSlots.delete(slot);
      conversations.delete(conv);
    }
    io.sendParked(conv, session);
  }

  async function unpark(conv, parked) {
    const slot = conversations.get(conv) ?? { conv, guest: null, busy: false, dropped: false };
    if (slot.busy || slot.guest !== null) return;
    conversations.set(conv, slot);
    keep(slot, await createGuest(parked, parked.catalog));
  }

  function dispatch(frame) {
    const { header, payloads } = frame;
    switch (header.t) {
      case 'run':
        return startRun(header, payloads, frame.parked);
      case 'park':
        return park(header.conv);
      case 'res': {
        const run = runs.get(header.run);
        // Answers for a run that already ended are expected and dropped.
        if (run === undefined || !run.running) return;
        run.setRemaining(header.ms);
        return execute(run, () => run.deliver(header, payloads));
      }
      case 'cancel': {
        const run = runs.get(header.run);
        if (run !== undefined) run.cancel();
        else io.send({ t: 'idle', run: header.run });
        return;
      }
      case 'drop': {
        const slot = conversations.get(header.conv);
        if (slot === undefined) return;
        // A run still using it (cancelled, not yet stopped): the slot goes when that run ends.
        if (slot.busy) slot.dropped = true;
        else {
          conversations.delete(header.conv);
          keptSlots.delete(slot);
          slot.guest?.dispose();
        }
        return;
      }
      default:
        throw new Error(`unexpected ${String(header.t)} frame`);
    }
  }

  /**
   * Work done only when no frame is waiting: preparing VMs for the next runs. A thread runs one
   * VM at a time, so it prepares none while its run waits for the host: the answer would wait
   * behind the restore (the first restore of a thread took 150–175 ms, most of a cold run's
   * time, behind its first tool call's answer).
   */
  async function prepare() {
    if (oneRunAtATime && runs.size > 0) return;
    while (spares.length < spareVms && !io.framesWaiting()) spares.push(await createGuest());
  }

  spares.push(await createGuest(template.snapshot, null, template.vm));
  template.vm = null;
  return { dispatch, prepare };
}
