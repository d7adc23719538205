"""The helpers every Python script gets beside `tools`: `inspect` and a bounded `print`.

Loaded by bootstrap.py from its own directory. Neither is a tool call: nothing is dispatched,
nothing is recorded. Counterparts of the JavaScript helpers (src/runtime/js/guest/inspect.js),
in the same spirit and with the same bounds:

- `inspect(value, depth=3, max_chars=2000)` describes a value's shape: types, keys, lengths of
  lists and strings with a sample element, so a script can learn a large result's structure
  in a few hundred characters before deciding what to print or return.
- `print(...)` is the builtin print, except that containers are written with a bounded `repr`
  (depth, items and string length limited, like reprlib): a huge or deeply nested value never
  floods the output. Strings and other objects print as usual.
"""
import builtins
import reprlib

SHAPE_ITEMS_KEYS = 25
SHAPE_STRING = 40
SHAPE_MAX = 2000


class _Budget:
    __slots__ = ("left",)

    def __init__(self, left):
        self.left = left


def _short(text, limit):
    return text if len(text) <= limit else text[:limit] + "…"


def _shape(value, depth, limit, budget, ancestors):
    if budget.left <= 0:
        return "…"
    if value is None or isinstance(value, (bool, int, float, complex)):
        out = repr(value)
    elif isinstance(value, str):
        out = repr(value) if len(value) <= SHAPE_STRING else "str(%d) %s" % (len(value), repr(_short(value, SHAPE_STRING)))
    elif isinstance(value, (bytes, bytearray)):
        out = "%s(%d)" % (type(value).__name__, len(value))
    elif id(value) in ancestors:
        out = "[Circular]"
    elif isinstance(value, dict):
        name = "dict" if type(value) is dict else type(value).__name__
        if depth > limit:
            out = "%s{…%d keys}" % (name if name != "dict" else "", len(value))
        elif not value:
            out = "{}"
        else:
            ancestors.add(id(value))
            parts = []
            for i, (k, v) in enumerate(value.items()):
                if i >= SHAPE_ITEMS_KEYS or budget.left <= 0:
                    parts.append("… %d more keys" % (len(value) - i))
                    break
                key = repr(k) if not isinstance(k, str) else repr(_short(k, 60))
                budget.left -= len(key) + 2
                parts.append("%s: %s" % (key, _shape(v, depth + 1, limit, budget, ancestors)))
            ancestors.discard(id(value))
            out = ("" if name == "dict" else name) + "{" + ", ".join(parts) + "}"
    elif isinstance(value, (list, tuple, set, frozenset)):
        name = type(value).__name__
        n = len(value)
        if depth > limit or n == 0:
            out = "%s(%d)" % (name, n)
        else:
            ancestors.add(id(value))
            sample = _shape(next(iter(value)), depth + 1, limit, budget, ancestors)
            ancestors.discard(id(value))
            out = "%s(%d) [%s%s]" % (name, n, sample, ", …" if n > 1 else "")
    else:
        try:
            attrs = vars(value)
        except TypeError:
            attrs = None
        name = type(value).__name__
        if attrs and depth <= limit:
            out = name + " " + _shape(dict(attrs), depth, limit, budget, ancestors)
        else:
            try:
                out = "%s %s" % (name, _short(repr(value), SHAPE_STRING))
            except Exception:
                out = "<%s>" % name
    budget.left -= len(out) if len(out) < 64 else 0
    return out


def inspect(value, depth=3, max_chars=SHAPE_MAX):
    """A compact description of `value`'s shape (types, keys, lengths, a sample element), at most `max_chars` characters."""
    max_chars = max(100, int(max_chars))
    try:
        text = _shape(value, 0, max(0, int(depth)), _Budget(max_chars), set())
    except Exception as e:  # a hostile __repr__ or property: the value stays opaque
        text = "<uninspectable %s: %s>" % (type(value).__name__, type(e).__name__)
    if len(text) > max_chars:
        text = text[:max_chars] + "… (truncated at %d characters)" % max_chars
    return text


class _BoundedRepr(reprlib.Repr):
    def __init__(self):
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = self.maxarray = 100
        self.maxdict = 100
        self.maxstring = 10000
        self.maxlong = 400
        self.maxother = 400

    def repr_str(self, x, level):
        if len(x) <= self.maxstring:
            return repr(x)
        return repr(x[: self.maxstring]) + "… %d more characters" % (len(x) - self.maxstring)


_bounded = _BoundedRepr()
_CONTAINERS = (list, tuple, dict, set, frozenset)
LOG_MAX = 16384


def _render(value):
    if isinstance(value, _CONTAINERS):
        text = _bounded.repr(value)
        return text if len(text) <= LOG_MAX else text[:LOG_MAX] + "… (truncated at %d characters)" % LOG_MAX
    return value


def bounded_print(*args, **kwargs):
    """print(), with containers written as a bounded repr (like reprlib) so no value floods the output."""
    builtins.print(*[_render(a) for a in args], **kwargs)


bounded_print.__name__ = bounded_print.__qualname__ = "print"
