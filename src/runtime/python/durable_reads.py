"""A durable run's clock and random reads (docs/durable.md), on the interpreter's side.

With the host recording (the run message's `dur`: a seed and the clock reads its journal holds),
`begin` seeds the `random` module's generator from the journal's seed, makes `uuid.uuid4` draw
from it, and routes time.time / time.time_ns / datetime.now / utcnow / today / date.today
through `read`: the journal's reads first, in order, then the live clock; every read is kept
and sent to the host with the run's next tool call (`take`). `end` puts the originals back, so
a run without a store reads its clock exactly as before (nothing is patched then).
Not covered (documented): os.urandom, secrets, random.SystemRandom, time.monotonic/perf_counter.
"""
import datetime as _dt
import random as _random
import time as _time
import uuid as _uuid

_orig_time = _time.time
_orig_time_ns = _time.time_ns
_orig_datetime = _dt.datetime
_orig_date = _dt.date
_orig_uuid4 = _uuid.uuid4

_state = None  # [replay list, next index, reads since the last call]


def read():
    """One clock read, in seconds since the epoch: the journal's next one, else the live clock."""
    state = _state
    if state is None:
        return _orig_time()
    replay, index = state[0], state[1]
    if index < len(replay):
        value = float(replay[index])
        state[1] = index + 1
    else:
        value = _orig_time()
    state[2].append(value)
    return value


def _time_ns():
    return int(read() * 1e9)


def _uuid4():
    return _uuid.UUID(int=_random.getrandbits(128), version=4)


class _DateTime(_orig_datetime):
    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(read(), tz)

    @classmethod
    def utcnow(cls):
        return cls.fromtimestamp(read(), _dt.timezone.utc).replace(tzinfo=None)

    @classmethod
    def today(cls):
        return cls.fromtimestamp(read())


class _Date(_orig_date):
    @classmethod
    def today(cls):
        return cls.fromtimestamp(read())


def begin(dur):
    """Starts recording for a run whose message carried `dur` ({seed: 4 ints, clock: [seconds]})."""
    global _state
    seed = 0
    for word in dur["seed"]:
        seed = (seed << 32) | (int(word) & 0xFFFFFFFF)
    _random.seed(seed)
    _state = [list(dur.get("clock") or []), 0, []]
    _time.time = read
    _time.time_ns = _time_ns
    _dt.datetime = _DateTime
    _dt.date = _Date
    _uuid.uuid4 = _uuid4


def take():
    """The reads made since the last call (sent with it), or None when there are none or no recording."""
    state = _state
    if state is None or not state[2]:
        return None
    reads, state[2] = state[2], []
    return reads


def end():
    """Stops recording: the originals are back."""
    global _state
    _state = None
    _time.time = _orig_time
    _time.time_ns = _orig_time_ns
    _dt.datetime = _orig_datetime
    _dt.date = _orig_date
    _uuid.uuid4 = _orig_uuid4
