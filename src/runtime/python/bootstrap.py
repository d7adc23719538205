"""toolcell Python runner: the interpreter side of the warm-process protocol.

Started by runner.ts as `python3 -I -X utf8 bootstrap.py VALUE_CAP` with four pipes:
fd 0/1 carry newline-delimited JSON (the protocol), fd 2 is the script's stderr and fd 3 its
stdout. At startup the protocol fds are duplicated away and fd 0 is pointed at /dev/null, so
nothing the script does (print, os.write(1, ...), a subprocess) can reach the protocol channel.

Each run message carries a fresh random token; the run's `done` frame and its end-of-output
markers repeat it, so the host recognises a frame or marker that was not written for this run
(nothing secret is on the command line or in the environment). When a run ends, every process
it started is killed, and a thread it left running makes the host restart the interpreter, so
nothing a run started can act (or write output) during a later run.

Plain Python 3.8+, standard library only. Without the OS layer (bubblewrap, see
src/runtime/isolation/) this is a robustness boundary, not a sandbox: the script runs with the
full rights of this process.
"""
import sys

if sys.version_info < (3, 8):
    sys.stderr.write("toolcell: Python 3.8 or newer is required, found %s\n" % sys.version.split()[0])
    sys.exit(3)

import ast
import asyncio
import builtins
import faulthandler
import importlib.util
import inspect
import json
import linecache
import os
import signal
import threading
import time
import traceback
import types


def load_sibling(name):
    """Loads a module next to this file without putting this directory on the script's sys.path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("toolcell_" + name, path)
    module = importlib.util.module_from_spec(spec)
    # No __pycache__ beside the library's sources (they may be read-only); the script's own
    # imports keep the normal setting.
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


st = load_sibling("script_tools")
sh = load_sibling("script_helpers")
jf = load_sibling("json_forms")
dr = load_sibling("durable_reads")
# Frames from these files are the runner's own: hidden from tracebacks, never interrupted.
OUR_FILES = frozenset((sys._getframe().f_code.co_filename, st.__file__, sh.__file__, jf.__file__))
SCRIPT_PREFIX = "<run "
CO_COROUTINE = inspect.CO_COROUTINE
TLA_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


class AwaitLoopEntries(ast.NodeTransformer):
    """`asyncio.run(x)` and `<loop>.run_until_complete(x)` in the script's top-level code become
    `await x`.

    The script already runs inside the runner's event loop (top-level `await` works), where
    those calls raise "cannot be called from a running event loop"; models write them anyway,
    often behind `if __name__ == "__main__":`. Inside a function they are left alone: there the
    script chose to block, and the error it gets says so.
    """

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        entry = isinstance(f, ast.Attribute) and len(node.args) >= 1 and (
            (f.attr == "run" and isinstance(f.value, ast.Name) and f.value.id == "asyncio")
            or f.attr == "run_until_complete")
        if not entry:
            return node
        return ast.copy_location(ast.Await(value=node.args[0]), node)


def fatal(what):
    """The runner itself failed: report on the run's stderr and exit so the host starts afresh."""
    try:
        os.write(2, ("toolcell: %s\n%s" % (what, traceback.format_exc())).encode("utf-8", "backslashreplace"))
    finally:
        os._exit(70)


def on_cpu_cap(signum, frame):
    """RLIMIT_CPU's soft limit was reached: exit with 152 (128 + SIGXCPU), which the host reads
    as the CPU time cap (cap-errors.ts). Processes the script forked keep the default action."""
    os._exit(152)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def safe_str(obj, convert=str):
    """str() or repr() of a script object, which may itself raise."""
    try:
        return convert(obj)
    except Exception as e:
        return "<%s failed: %s: %s>" % (convert.__name__, type(e).__name__, e)


def in_script(frame):
    """Whether the innermost frame that is either ours or the script's belongs to the script."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename in OUR_FILES:
            return False
        if filename.startswith(SCRIPT_PREFIX):
            return True
        frame = frame.f_back
    return False


# Audit events after which the script may have started processes (ctypes can call fork itself).
PROCESS_EVENTS = frozenset((
    "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec", "subprocess.Popen",
))
# After these the script holds native functions that may fork without another event: watch for good.
NATIVE_EVENTS = frozenset(("ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function"))


class Watch:
    """What the script did that can outlive its run: start processes, start raw threads."""

    def __init__(self):
        self.processes = False
        self.native = False
        self.raw_threads = False

    def __call__(self, event, args):
        try:
            if event in PROCESS_EVENTS:
                self.processes = True
            elif event in NATIVE_EVENTS:
                self.native = True
        except Exception:
            self.processes = True

    def watch_raw_threads(self):
        """Threads started through _thread directly are invisible to threading.enumerate(), and
        _thread raises no audit event: its entry points are wrapped instead. (threading keeps
        its own reference to the original, so its threads are counted the ordinary way.)"""
        import _thread
        for name in ("start_new_thread", "start_new", "start_joinable_thread"):
            original = getattr(_thread, name, None)
            if original is None:
                continue

            def started(*args, _original=original, **kwargs):
                self.raw_threads = True
                return _original(*args, **kwargs)

            setattr(_thread, name, started)


def become_subreaper():
    """Orphans of the script's processes are re-parented here, where the run's end finds them."""
    if os.getpid() == 1 or not sys.platform.startswith("linux"):
        return  # pid 1 of its own namespace already is
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass


def proc_table():
    """{pid: (ppid, state)} of every process visible in /proc (empty where there is none)."""
    table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split(b" ")
        table[int(name)] = (int(fields[1]), fields[0])
    return table


def descendants(root, table):
    found, todo = set(), [root]
    while todo:
        parent = todo.pop()
        for pid, (ppid, _) in table.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def others_in_namespace():
    """As pid 1 of its own namespace: whether any other process exists (one cheap listdir)."""
    try:
        return any(name.isdigit() and name != "1" for name in os.listdir("/proc"))
    except OSError:
        return True


def end_processes():
    """SIGKILLs every process this interpreter started (transitively) and reaps them."""
    me = os.getpid()
    for _ in range(200):
        table = proc_table()
        live = [p for p in descendants(me, table) if table[p][1] != b"Z"]
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not live:
            return
        time.sleep(0.001)


class Run:
    __slots__ = ("id", "token", "task", "pending", "next_call", "interrupting", "started", "cancel_requested", "sites")

    def __init__(self, run_id, token, sites=False):
        self.id = run_id
        self.token = token
        self.sites = sites
        self.task = None
        self.pending = {}
        self.next_call = 0
        self.interrupting = False
        self.started = False
        self.cancel_requested = False


class Runtime:
    def __init__(self, loop, fd_in, fd_out, value_cap, watch):
        self.loop, self.fd_in, self.fd_out, self.value_cap = loop, fd_in, fd_out, value_cap
        self.watch = watch
        self.out_backup, self.err_backup = os.dup(1), os.dup(2)
        self.inbuf = b""
        self.outq = []
        self.flush_scheduled = False
        self.eof = False
        self.run = None
        self.table = st.ToolTable(self.call)
        self.tools = st.Tools(self.table)
        # The script's globals are a fresh __main__ module, so pickle, multiprocessing and
        # dataclasses find what the script defines where they look for it.
        main_module = types.ModuleType("__main__")
        main_module.__builtins__ = builtins
        sys.modules["__main__"] = main_module
        self.globals = main_module.__dict__

    # -- protocol ---------------------------------------------------------------------------
    def write(self, data):
        write_all(self.fd_out, data)

    def queue(self, line):
        self.outq.append(line)
        if not self.flush_scheduled:
            self.flush_scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self):
        self.flush_scheduled = False
        if self.outq:
            data = ("\n".join(self.outq) + "\n").encode()
            self.outq.clear()
            self.write(data)

    def on_readable(self):
        data = os.read(self.fd_in, 1 << 16)
        if not data:
            self.eof = True
            self.loop.stop()
            return
        lines = (self.inbuf + data).split(b"\n")
        self.inbuf = lines.pop()
        try:
            for line in lines:
                if line:
                    self.dispatch(json.loads(line))
        except Exception:
            fatal("bad message from the host")

    def dispatch(self, msg):
        kind, run = msg["t"], self.run
        if kind == "result":
            fut = run.pending.pop(msg["id"], None) if run is not None and run.id == msg["run"] else None
            if fut is not None and not fut.done():
                fut.set_result(msg)
        elif kind == "run":
            if run is not None:
                raise RuntimeError("run %s requested while run %s is active" % (msg["run"], run.id))
            if "tools" in msg:
                for ident, fn in self.table.update(msg["tools"]).items():
                    if self.globals.get(ident) is fn:
                        del self.globals[ident]
            self.run = Run(msg["run"], msg["token"], msg.get("sites") is True)
            if "dur" in msg:
                dr.begin(msg["dur"])
            self.run.task = self.loop.create_task(self.guarded(self.run, msg["code"]))
        elif kind == "cancel":
            if run is not None and run.id == msg["run"]:
                # A task cancelled before its first step would never report; it checks the flag instead.
                run.cancel_requested = True
                if run.started:
                    run.task.cancel()
        else:
            raise ValueError("unknown message type %r" % (kind,))

    async def call(self, name, args):
        run = self.run
        if run is None:
            raise RuntimeError("tool %r was called after its script run ended" % name)
        payload = dumps(args)
        # What the script printed so far reaches the host now, while the call runs (live output).
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # the script closed or replaced the stream; the run's end reports it
                pass
        run.next_call += 1
        call_id = run.next_call
        fut = run.pending[call_id] = self.loop.create_future()
        site = st.caller_site(sys._getframe(1), SCRIPT_PREFIX) if run.sites else None
        # A durable run's clock reads since its last call go with this one (durable_reads.py).
        reads = dr.take()
        if reads is not None:
            payload += ',"clock":' + json.dumps(reads)
        if site is None:
            self.queue('{"t":"call","run":%d,"id":%d,"name":%s,"args":%s}' % (run.id, call_id, dumps(name), payload))
        else:
            self.queue('{"t":"call","run":%d,"id":%d,"name":%s,"args":%s,"line":%d,"col":%d}'
                       % (run.id, call_id, dumps(name), payload, site[0], site[1]))
        try:
            msg = await fut
        finally:
            run.pending.pop(call_id, None)
        if msg["ok"]:
            return msg.get("value")
        err = msg["error"]
        error = st.error_class(err.get("name"))(err.get("message", ""))
        # The traceback shows the calling line; the note names the tool it reached.
        error.tool = name
        error.add_note("(raised by tool %r)" % name)
        raise error

    # -- running ----------------------------------------------------------------------------
    async def execute(self, run, code):
        g = self.globals
        g.update(self.table.helpers)
        g.update(tools=self.tools, ToolError=st.ToolError, ToolCallError=st.ToolCallError, UnknownToolError=st.UnknownToolError)
        # Reinstalled at every run, like `tools`: a script that rebinds them only changes its own run.
        g.update(inspect=sh.inspect, print=sh.bounded_print)
        self.reset_streams()
        # A previous script may have replaced our handlers.
        signal.signal(signal.SIGINT, self.on_interrupt)
        signal.signal(signal.SIGALRM, self.on_interrupt)
        # The CPU time cap: SIGXCPU, then SIGKILL a second later. Exiting with a code of our own
        # names the cap; as pid 1 of a namespace the default action would be ignored.
        if hasattr(signal, "SIGXCPU"):
            signal.signal(signal.SIGXCPU, on_cpu_cap)
        done = {"t": "done", "run": run.id, "token": run.token, "outcome": "ok", "returnCode": 0}
        value = None
        try:
            if run.cancel_requested:
                raise asyncio.CancelledError()
            value = await self.evaluate(run.id, code, g)
            if inspect.iscoroutine(value):
                value.close()
                value = None
                self.report("toolcell: the last expression is a coroutine that never ran; did you forget `await`?\n")
        except SystemExit as e:
            exit_code = e.code
            if exit_code is not None and not isinstance(exit_code, int):
                self.report(safe_str(exit_code) + "\n")
                exit_code = 1
            done.update(outcome="exit", returnCode=exit_code or 0)
        except BaseException as e:
            outcome = {asyncio.CancelledError: "cancelled", KeyboardInterrupt: "interrupted"}.get(type(e), "error")
            stack = self.format_error(e)
            self.report(stack)
            done.update(outcome=outcome, returnCode=130 if outcome == "interrupted" else 1,
                        error={"name": type(e).__name__, "message": safe_str(e), "stack": stack})
        signal.setitimer(signal.ITIMER_REAL, 0)
        stray = self.finish(run)
        if stray:
            done["stray"] = stray
        line = dumps(done)
        if value is not None:
            line = line[:-1] + self.encode_value(value)
        self.flush()
        self.write((line + "\n").encode())

    async def guarded(self, run, code):
        """Runs `execute`, whose own failure (not the script's) leaves nothing to report with."""
        run.started = True
        try:
            await self.execute(run, code)
        except BaseException:
            # E.g. the script closed our pipes: this interpreter cannot report any more.
            fatal("the runner could not complete run %d" % run.id)

    def reset_streams(self):
        """Undoes what the last script did to sys.stdout/sys.stderr (replaced or closed them)."""
        for name, fd in (("__stdout__", 1), ("__stderr__", 2)):
            if getattr(sys, name).closed:
                setattr(sys, name, open(fd, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False))
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def report(self, text):
        """Writes to the run's stderr the way Python reports an uncaught error."""
        try:
            sys.__stderr__.write(text)
        except Exception:  # the script closed or broke the stream; the raw fd still reaches the run
            os.write(2, text.encode("utf-8", "backslashreplace"))

    async def evaluate(self, run_id, code, g):
        filename = "%s%d>" % (SCRIPT_PREFIX, run_id)
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        tree = AwaitLoopEntries().visit(ast.parse(code, filename, "exec"))
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        body = compile(tree, filename, "exec", TLA_FLAGS, dont_inherit=True)
        result = eval(body, g)
        if body.co_flags & CO_COROUTINE:
            await result
        if last is None:
            return None
        expr = compile(ast.Expression(last.value), filename, "eval", TLA_FLAGS, dont_inherit=True)
        value = eval(expr, g)
        if expr.co_flags & CO_COROUTINE:
            value = await value
        return value

    def encode_value(self, value):
        cap = self.value_cap
        if st.returns_content(value):
            # Checked by the host, which says what is wrong; here it only must not be cut.
            value, cap = st.content_json(value), max(cap, st.CONTENT_VALUE_CAP)
        converted = []
        try:
            text = dumps(value)
        except (TypeError, ValueError, RecursionError):
            # Only the values JSON cannot hold are given their documented forms (json_forms.py).
            try:
                value, converted = jf.to_json_form(value)
                text = dumps(value)
            except (TypeError, ValueError, RecursionError):
                text, converted = dumps(safe_str(value, repr)), [{"kind": type(value).__name__, "as": "string (repr)", "count": 1}]
        if len(text) > cap:
            return ',"valueTruncated":true}'
        if converted:
            return ',"value":%s,"converted":%s}' % (text, dumps(converted))
        return ',"value":%s}' % text

    @staticmethod
    def format_error(e):
        """The traceback Python would print, cut to the script's own frames.

        The runner's frames, the `ast.parse` frame a syntax error would show, and library frames
        below the script's call are all left out: the model can only fix its own lines.
        """
        report = traceback.TracebackException(type(e), e, e.__traceback__)
        seen, todo = set(), [report]
        while todo:
            te = todo.pop()
            if id(te) in seen:
                continue
            seen.add(id(te))
            te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename.startswith(SCRIPT_PREFIX)])
            todo.extend(x for x in (te.__cause__, te.__context__) if x is not None)
        return "".join(report.format())

    def stray_threads(self):
        """Threads the script left running (idle executor workers are given a moment to go)."""
        executor = getattr(self.loop, "_default_executor", None)
        if executor is not None:
            self.loop._default_executor = None
            workers = list(getattr(executor, "_threads", ()))
            try:
                executor.shutdown(wait=False, cancel_futures=True)
            except TypeError:  # Python 3.8
                executor.shutdown(wait=False)
            until = time.monotonic() + 0.05
            for t in workers:
                t.join(max(0.0, until - time.monotonic()))
        main = threading.main_thread()
        count = sum(1 for t in threading.enumerate() if t is not main and t.is_alive())
        if self.watch.raw_threads:
            count += 1
        return count

    def finish(self, run):
        """Ends a run: stray tasks and waits are cancelled, the run's processes are killed, output
        is flushed and fenced. Returns how many threads the script left running."""
        self.run = None
        dr.end()
        current = asyncio.current_task()
        for task in asyncio.all_tasks(self.loop):
            if task is not current:
                task.cancel()
        for fut in run.pending.values():
            fut.cancel()
        streams = [sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__]
        for i, stream in enumerate(streams):
            if any(stream is seen for seen in streams[:i]) or getattr(stream, "closed", False):
                continue
            try:
                stream.flush()
            except Exception as e:  # a stream the script replaced; say so in the run's stderr
                os.write(self.err_backup, ("toolcell: could not flush %s: %s\n" % (safe_str(stream, repr), e)).encode())
        # Before the fence, so nothing the run started can write past it.
        if self.watch.processes or self.watch.native or (os.getpid() == 1 and others_in_namespace()):
            end_processes()
            self.watch.processes = False
        stray = self.stray_threads()
        os.dup2(self.out_backup, 1)
        os.dup2(self.err_backup, 2)
        marker = ("\x1etoolcell:%s:%d\x1e" % (run.token, run.id)).encode()
        write_all(1, marker)
        write_all(2, marker)
        return stray

    def on_interrupt(self, signum, frame):
        """SIGINT from the host (and our SIGALRM retries): raise only inside the script's own code."""
        run = self.run
        if run is None or (signum == signal.SIGALRM and not run.interrupting):
            return
        run.interrupting = True
        if in_script(frame):
            run.interrupting = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            raise KeyboardInterrupt
        # Landed in the event loop or in our own code: try again shortly rather than corrupt state.
        signal.setitimer(signal.ITIMER_REAL, 0.01)

    def on_escaped(self, exc):
        """A KeyboardInterrupt/SystemExit escaped the loop from a task or callback the script made."""
        if self.run is not None:
            self.run.task.cancel()


def main():
    value_cap = int(sys.argv[1])
    sys.argv = [""]
    # Descriptors the host's own parent left inheritable are none of the script's business.
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        limit = -1
    os.closerange(4, limit if limit > 0 else 1 << 16)
    become_subreaper()
    watch = Watch()
    sys.addaudithook(watch)
    watch.watch_raw_threads()
    fd_in, fd_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(3, 1)
    os.close(3)
    # Line buffered, as on a terminal, so prints interleave with subprocess and os.write output.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="backslashreplace", line_buffering=True)
    faulthandler.enable(file=sys.__stderr__)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    rt = Runtime(loop, fd_in, fd_out, value_cap, watch)
    signal.signal(signal.SIGINT, rt.on_interrupt)
    signal.signal(signal.SIGALRM, rt.on_interrupt)
    loop.add_reader(fd_in, rt.on_readable)
    rt.write(b'{"t":"ready","version":%s,"pid":%d}\n' % (dumps(sys.version.split()[0]).encode(), os.getpid()))
    while not rt.eof:
        try:
            loop.run_forever()
        except BaseException as e:
            rt.on_escaped(e)
    os._exit(0)


if __name__ == "__main__":
    main()
