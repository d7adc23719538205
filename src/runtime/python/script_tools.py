"""The `tools` namespace a script sees, the errors its calls raise, and content it returns.

Loaded by bootstrap.py from its own directory (never from sys.path). Only names and call
plumbing live here; the protocol and the run loop are bootstrap.py's.
"""

import base64

# The script finds these classes among its globals, so tracebacks name them as the script's own.
SCRIPT_MODULE = "__main__"


class ToolCallError(Exception):
    """Base of every error a tool call raises in the script."""

    __module__ = SCRIPT_MODULE


class ToolError(ToolCallError):
    """The tool ran and returned an error result."""

    __module__ = SCRIPT_MODULE


class UnknownToolError(AttributeError):
    """The script asked for a tool that is not available in this run."""

    __module__ = SCRIPT_MODULE


_error_classes = {"ToolError": ToolError, "ToolCallError": ToolCallError}


def error_class(name):
    """A ToolCallError subclass named like the JavaScript error, so `except ToolError` works."""
    if not isinstance(name, str) or not name.isidentifier():
        return ToolCallError
    cls = _error_classes.get(name)
    if cls is None:
        cls = type(name, (ToolCallError,), {"__module__": SCRIPT_MODULE})
        _error_classes[name] = cls
    return cls


def sanitize(name):
    """Same rule as sanitizeToolName in names.ts."""
    out = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in name)
    return "_" + out if out == "" or out[0].isdigit() else out


def sanitize_path(name):
    """Same rule as scriptIdentifier in names.ts: a dotted name sanitizes segment by segment."""
    parts = name.split(".")
    if len(parts) > 1 and all(parts):
        return ".".join(sanitize(p) for p in parts)
    return sanitize(name)


def attach(node, key, value):
    node._members[key] = value


# A namespace lists every member up to this many; past it, the nearest few and the count.
LISTED_MEMBERS = 8


def missing_member(path, key, members):
    """The text for reading a member `path` lacks: the same words as unknownMemberMessage (closest.mjs)."""
    wanted = "%s.%s" % (path, echo(key)) if key.isidentifier() else "%s[%r]" % (path, echo(key))
    if not members:
        return "%s is not a tool; %s has no members" % (wanted, path)
    if len(members) <= LISTED_MEMBERS:
        return "%s is not a tool; %s has: %s" % (wanted, path, ", ".join(members))
    return "%s is not a tool; %s has %d members, closest: %s" % (wanted, path, len(members), ", ".join(closest(key, members)))


class Namespace:
    """A dotted name's prefix (`models` of `models.list`): its members are attributes."""

    __slots__ = ("_path", "_members")

    def __init__(self, path, members):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_members", members)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        members = object.__getattribute__(self, "_members")
        if key in members:
            return members[key]
        raise UnknownToolError(missing_member(self._path, key, list(members)))

    def __setattr__(self, key, value):
        raise AttributeError("%s is read-only" % self._path)

    def __dir__(self):
        return sorted(self._members)

    def __repr__(self):
        return "<namespace %s: %s>" % (self._path, ", ".join(sorted(self._members)))


class CallableNamespace(Namespace):
    """A name that is both a function and a namespace (`tools.ns()` and `tools.ns.top()`)."""

    __slots__ = ("_fn", "__name__", "__qualname__")

    def __init__(self, path, members, fn):
        super().__init__(path, members)
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "__name__", fn.__name__)
        object.__setattr__(self, "__qualname__", fn.__qualname__)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return "<function %s, namespace of: %s>" % (self._path, ", ".join(sorted(self._members)))


# MAX_RANKED_NAME_CHARS, RANKING_BUDGET_CELLS and MAX_ECHOED_NAME_CHARS of names.ts: a huge
# name costs no more than a long one, and a message quotes only an excerpt of it.
MAX_RANKED = 256
BUDGET_CELLS = 2000000
MAX_ECHOED = 120


def echo(name):
    """`name` as a message may quote it (echoName in names.ts)."""
    return name if len(name) <= MAX_ECHOED else "%s… (%d characters)" % (name[:MAX_ECHOED], len(name))


def distance(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diag, prev[0] = prev[0], i
        for j in range(1, len(b) + 1):
            up = prev[j]
            prev[j] = min(up + 1, prev[j - 1] + 1, diag + (a[i - 1] != b[j - 1]))
            diag = up
    return prev[len(b)]


def closest(wanted, names, limit=3):
    """The distance closestNames in names.ts uses; ties go by code point rather than locale order."""
    w = wanted[:MAX_RANKED].lower()
    budget = [BUDGET_CELLS]

    def measure(other):
        o = other[:MAX_RANKED].lower()
        cells = len(w) * len(o)
        if cells > budget[0]:
            return abs(len(w) - len(o))
        budget[0] -= cells
        return distance(w, o)

    def nearest(n):
        # A name that is already an identifier is its own sanitized form: measured once.
        cut = n[:MAX_RANKED]
        sanitized = sanitize(cut)
        d = measure(n)
        return d if sanitized == cut else min(d, measure(sanitized))

    ranked = sorted(names, key=lambda n: (nearest(n), n))
    return ranked[:limit]


class ToolTable:
    """The tools of the current run: host names, identifier aliases, and helper globals.

    `call(name, args)` is the coroutine function that performs a call over the protocol.
    """

    def __init__(self, call):
        self.call = call
        self.names, self.tool_set, self.aliases, self.collisions = [], frozenset(), {}, {}
        self.fns = {}
        self.helpers = {}

    def update(self, spec):
        """Replaces the table; returns the helper globals that are no longer offered."""
        self.names = list(spec["names"])
        self.tool_set = frozenset(self.names)
        self.aliases = dict(spec["aliases"])
        self.collisions = dict(spec["collisions"])
        self.fns = {}
        # Dotted keys (`tools.a.b`): each prefix's direct members, so `tools.a` is a namespace.
        self.children = {}
        for key in list(self.aliases) + [n for n in self.names if n not in self.aliases]:
            if key not in self.aliases and sanitize_path(key) != key:
                continue
            parts = key.split(".")
            for i in range(1, len(parts)):
                self.children.setdefault(".".join(parts[:i]), set()).add(parts[i])
        retired = self.helpers
        self.helpers = self.build_helpers(spec["helpers"], spec.get("cuts") or {})
        return retired

    def build_helpers(self, helpers, cuts):
        """Root name → function or namespace, for helper globals named by dotted paths."""
        nodes = {}
        prefixes = {ident.rsplit(".", 1)[0] for ident in helpers if "." in ident}
        for ident, name in sorted(helpers.items(), key=lambda item: item[0].count(".")):
            parts = ident.split(".")
            fn = self.make_fn(name, ident, cuts.get(ident))
            if ident in prefixes:
                fn = CallableNamespace(ident, {}, fn)
            for i in range(1, len(parts)):
                prefix = ".".join(parts[:i])
                if prefix not in nodes:
                    nodes[prefix] = Namespace(prefix, {})
                    if i > 1:
                        attach(nodes[".".join(parts[:i - 1])], parts[i - 1], nodes[prefix])
            if len(parts) > 1:
                attach(nodes[".".join(parts[:-1])], parts[-1], fn)
            nodes[ident] = fn
        return {ident: node for ident, node in nodes.items() if "." not in ident}

    def tool(self, key):
        fn = self.fns.get(key)
        if fn is not None:
            return fn
        if key in self.tool_set:
            name = key
        elif key in self.aliases:
            name = self.aliases[key]
        elif key in self.children:
            fn = self.fns[key] = Namespace("tools." + key, {c: self.tool(key + "." + c) for c in sorted(self.children[key])})
            return fn
        elif key in self.collisions:
            raise UnknownToolError("tools.%s is ambiguous: it could mean %s; use tools[\"name\"]"
                                   % (key, ", ".join(repr(n) for n in self.collisions[key])))
        else:
            # A namespace a misspelt key may have meant (`tools.modls`) ranks with the tools.
            roots = {k.split(".")[0] for k in self.children} - self.tool_set - set(self.aliases)
            shown = lambda n: "tools.%s" % n if n in roots else "%r (tools.%s)" % (n, sanitize(n))
            near = ", ".join(shown(n) for n in closest(str(key), self.names + sorted(roots)))
            raise UnknownToolError("No tool named %r. %s" % (echo(str(key)), "Closest: " + near if near else "No tools are available."))
        fn = self.make_fn(name, sanitize_path(name))
        children = self.children.get(key)
        if children:
            fn = CallableNamespace("tools." + key, {}, fn)
        self.fns[key] = fn
        for child in sorted(children or ()):
            attach(fn, child, self.tool(key + "." + child))
        return fn

    def make_fn(self, name, ident, cut=None):
        call = self.call

        async def tool(args=None, **kwargs):
            if kwargs:
                if args is not None and not isinstance(args, dict):
                    raise TypeError("%s() takes either one positional argument or keyword arguments" % ident)
                args = dict(args or {}, **kwargs)
            if cut:
                # The host reads no more than this (ToolBinding.maxArgumentChars): a megabyte
                # name or query is cut here rather than sent whole over the pipe.
                if isinstance(args, str):
                    args = args[:cut]
                elif isinstance(args, dict):
                    args = {k: v[:cut] if isinstance(v, str) else v for k, v in args.items()}
            return await call(name, args)

        tool.__name__ = ident
        tool.__qualname__ = "tools." + ident
        return tool


class Tools:
    """The `tools` global: `tools.x__run(...)` and `tools["x--run"](...)` return coroutines."""

    __slots__ = ("_table",)

    def __init__(self, table):
        object.__setattr__(self, "_table", table)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return self._table.tool(key)

    def __getitem__(self, key):
        return self._table.tool(key)

    def __contains__(self, key):
        return key in self._table.tool_set or key in self._table.aliases

    def __dir__(self):
        keys = set(self._table.aliases) | {n for n in self._table.names if n.isidentifier()} | set(self._table.children)
        return sorted(k for k in keys if "." not in k)

    def __repr__(self):
        return "<tools: %s>" % ", ".join(self._table.names)


# Content a script returns (src/code-execution/returned-content.ts decides and checks it): the
# same recognition as isMediaObject there, so a returned image is not cut at the value cap.
MEDIA_PAYLOAD = {"image": "data", "audio": "data", "resource_link": "uri"}
# The JavaScript engines' maxReturnBytes: content may be as large in both languages.
CONTENT_VALUE_CAP = 8 << 20


def is_media(item):
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind == "resource":
        return ("uri" in item and ("text" in item or "blob" in item)) or isinstance(item.get("resource"), dict)
    return isinstance(kind, str) and MEDIA_PAYLOAD.get(kind) in item


def returns_content(value):
    """Whether a run's value is content for the model rather than JSON."""
    return is_media(value) or (isinstance(value, list) and any(is_media(item) for item in value))


def _base64_bytes(item):
    out = dict(item)
    for key in ("data", "blob"):
        if isinstance(out.get(key), (bytes, bytearray, memoryview)):
            out[key] = base64.b64encode(bytes(out[key])).decode("ascii")
    if isinstance(out.get("resource"), dict):
        out["resource"] = _base64_bytes(out["resource"])
    return out


def content_json(value):
    """The value with bytes payloads (`data`, `blob`) as base64 text, the form JSON carries."""
    if isinstance(value, list):
        return [_base64_bytes(item) if isinstance(item, dict) else item for item in value]
    return _base64_bytes(value)


def caller_site(frame, script_prefix):
    """(line, column) of the innermost script frame at or above `frame`, 1-based, or None.

    Asked only for runs that want call sites (an approval gate may need to show the line).
    A call awaited directly has the script's frame behind it; one started through a helper the
    script did not write (asyncio.gather) may have none, and then there is no site to report.
    """
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(script_prefix):
            column = 0
            try:
                positions = list(code.co_positions())
                position = positions[frame.f_lasti // 2] if frame.f_lasti >= 0 else None
                if position is not None and position[2] is not None:
                    column = position[2] + 1
            except (AttributeError, IndexError):
                # Before 3.11 there are no column positions; the line alone is still useful.
                pass
            return frame.f_lineno, column
        frame = frame.f_back
    return None
