"""The documented JSON form of a script's final value (docs/script-results.md, "What a script returns").

A value JSON cannot hold as it is gets one form of its own, and only that value is converted:
the rest of the structure stays as it was (before, one `set` turned the whole result into a
repr string). Each kind converted is counted, so the result envelope can say what happened
(`converted`). The JavaScript engines do the same in guest/guest-core.js (`faithful`).

Forms: set/frozenset -> list (sorted when its items sort), tuple -> list, datetime/date/time ->
ISO 8601 text, timedelta -> seconds, Decimal -> its exact text, Fraction -> number, bytes ->
base64 text, Enum -> its value, a dataclass -> dict of its fields, an object with `model_dump()`
(pydantic v2) or `dict()` (v1) -> that dict, NaN/inf -> "NaN"/"Infinity"/"-Infinity", a dict key
that is not a string -> its JSON text; anything else -> its repr, that value only.
"""
import base64
import dataclasses
import datetime
import decimal
import enum
import fractions
import math

# Distinct kinds of conversion reported (each with its count); more are converted, not listed.
MAX_KINDS = 16
# Nesting converted before a deeper value is given as its repr: the host refuses values nested
# past its maxDepth anyway (256), and Python's own recursion limit must never be reached here.
MAX_DEPTH = 300


class _Notes:
    def __init__(self):
        self.kinds = {}

    def note(self, kind, as_):
        key = (kind, as_)
        if key in self.kinds:
            self.kinds[key] += 1
        elif len(self.kinds) < MAX_KINDS:
            self.kinds[key] = 1

    def listed(self):
        return [{"kind": k, "as": a, "count": n} for (k, a), n in self.kinds.items()]


def _float(value, notes):
    if math.isfinite(value):
        return value
    text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    notes.note(text, "string")
    return text


def _key(key, notes):
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        # As json.dumps would write it, but said.
        notes.note("%s key" % type(key).__name__, "string")
        return "null" if key is None else ("true" if key is True else ("false" if key is False else repr(key)))
    notes.note("%s key" % type(key).__name__, "string (repr)")
    return repr(key)


def _convert(value, notes, depth):
    if value is None or isinstance(value, (str, bool, int)) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, float):
        return _float(value, notes)
    if depth > MAX_DEPTH:
        notes.note(type(value).__name__ + " nested too deep", "string (repr)")
        return repr(value)
    depth += 1
    if isinstance(value, dict):
        return {_key(k, notes): _convert(v, notes, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v, notes, depth) for v in value]
    if isinstance(value, tuple):
        # Named tuples keep their field names.
        if hasattr(value, "_asdict"):
            notes.note(type(value).__name__, "object")
            return _convert(dict(value._asdict()), notes, depth)
        return [_convert(v, notes, depth) for v in value]
    if isinstance(value, (set, frozenset)):
        notes.note(type(value).__name__, "array")
        items = list(value)
        try:
            items.sort()
        except TypeError:
            pass  # items of kinds that do not compare keep the set's own order
        return [_convert(v, notes, depth) for v in items]
    if isinstance(value, datetime.datetime):
        notes.note("datetime", "ISO 8601 string")
        return value.isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        notes.note(type(value).__name__, "ISO 8601 string")
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        notes.note("timedelta", "number of seconds")
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        notes.note("Decimal", "string")
        return str(value)
    if isinstance(value, fractions.Fraction):
        notes.note("Fraction", "number")
        return _float(float(value), notes)
    if isinstance(value, enum.Enum):
        notes.note(type(value).__name__ + " (Enum)", "its value")
        return _convert(value.value, notes, depth)
    if isinstance(value, (bytes, bytearray, memoryview)):
        notes.note(type(value).__name__, "base64 string")
        return base64.b64encode(bytes(value)).decode("ascii")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        notes.note(type(value).__name__ + " (dataclass)", "object")
        return {f.name: _convert(getattr(value, f.name), notes, depth) for f in dataclasses.fields(value)}
    for method in ("model_dump", "dict"):
        dump = getattr(value, method, None)
        if callable(dump) and not isinstance(value, type):
            try:
                dumped = dump()
            except Exception:
                continue
            if isinstance(dumped, dict):
                notes.note(type(value).__name__, "object (%s())" % method)
                return _convert(dumped, notes, depth)
    notes.note(type(value).__name__, "string (repr)")
    try:
        return repr(value)
    except Exception:
        return "<%s object>" % type(value).__name__


def to_json_form(value):
    """(the value in JSON-able form, the conversions made as [{kind, as, count}])."""
    notes = _Notes()
    return _convert(value, notes, 0), notes.listed()
