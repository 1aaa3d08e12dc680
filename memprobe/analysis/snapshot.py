"""CUDA allocator snapshots: load them safely, find the step's peak, say what is alive there.

A snapshot (``torch.cuda.memory._dump_snapshot``) is a pickle of plain dicts and
lists. :func:`load_snapshot` reads it with an unpickler that refuses every global,
so a crafted file cannot run code, and refuses one that holds more events or stack
frames than memprobe works through for one file (a frame list the pickle shares among
events counted at each use: :func:`~memprobe.rundir.read.check_work`). :func:`attribute_peak`
replays the allocation trace, finds the moment of the most bytes allocated, and classifies
every block alive then by its allocation stack, the run's recorded output code and the
tensor registry written before the step. What a stack says is worked out once per distinct
frame list (torch shares one list among the events of one traceback; a crafted file may
share one among millions).
"""

from __future__ import annotations

import gc
import math
import os
import pickle
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import chain
from operator import is_, itemgetter, methodcaller
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MemprobeError
from ..names import block_prefix
from ..rundir.read import MAX_INT, check_work, work_limit
from ..vocab import AttributionSource, Category, LiveRole, Phase, PhaseEdge

if TYPE_CHECKING:  # the record's types: a snapshot read alone is read without them (analysis/snapshot_read.py)
    from ..rundir import schema as S
    from .peaks import Alive


class SnapshotError(MemprobeError):
    exit_code = 2


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):  # noqa: D401
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}: a CUDA snapshot holds only plain data")


class Snapshot(dict):
    """A loaded snapshot (its plain data, as a dict) and what memprobe derived from it, kept apart from
    the data and computed once per snapshot."""

    __slots__ = ("derived", "file_bytes")

    def __init__(self, data: dict, file_bytes: int | None = None):
        super().__init__(data)
        self.derived: dict = {}
        self.file_bytes = file_bytes  # the size of the file it was read from, as it was read


# Loading may take at most this much memory beyond what the process already maps: a pickle cannot
# honestly need more than a few times its size (a real snapshot takes ~4x in Python objects), but a
# crafted one can ask for gigabytes in a few bytes (a huge memo index). The bound is enforced by the
# address-space limit while the unpickler runs (Linux); see load_snapshot.
LOAD_BYTES_PER_FILE_BYTE = 32
LOAD_HEADROOM_BYTES = 256 * 2**20


# within one_load_per_file(): the snapshots loaded, by path
_LOADED: ContextVar[dict[Path, Snapshot] | None] = ContextVar("memprobe_loaded_snapshots", default=None)


@contextmanager
def one_load_per_file():
    """Within the block a snapshot file is loaded once: loaded again, it is the :class:`Snapshot` loaded first, with
    what was derived from it (a run's finish reads its snapshot for the attribution, then for the timeline; the file
    does not change meanwhile)."""
    token = _LOADED.set({})
    try:
        yield
    finally:
        _LOADED.reset(token)


def load_snapshot(path: str | Path, *, trusted: bool = False, follow: bool = False) -> Snapshot:
    """The snapshot as plain data; SnapshotError for anything else (never executes code).

    The file is streamed to the unpickler (no copy of it in memory) with the cyclic collector paused. Unless
    ``trusted`` (a snapshot this process just wrote), loading is bounded to ``LOAD_BYTES_PER_FILE_BYTE`` x the file's
    size + ``LOAD_HEADROOM_BYTES`` of memory. ``follow``: the path the user named, which may be a symbolic link."""
    loaded = _LOADED.get()
    if loaded is None:
        return _load_snapshot(Path(path), trusted=trusted, follow=follow)
    key = Path(path).absolute()
    if key not in loaded:
        loaded[key] = _load_snapshot(Path(path), trusted=trusted, follow=follow)
    return loaded[key]


def _load_snapshot(path: Path, *, trusted: bool, follow: bool) -> Snapshot:
    from ..rundir.read import open_bounded

    try:
        with open_bounded(path, f"snapshot {path}", kind="snapshot", follow=follow) as f:
            if not f.size:
                raise SnapshotError(f"snapshot {path} is empty")
            snap = _unpickle(f, path, None if trusted else LOAD_BYTES_PER_FILE_BYTE * f.size + LOAD_HEADROOM_BYTES)
            size = f.size
    except SnapshotError:
        raise
    except MemprobeError as e:  # the file cannot be opened or read, or grew past its bound while read
        raise SnapshotError(str(e)) from None
    if not isinstance(snap, dict) or "segments" not in snap or "device_traces" not in snap:
        raise SnapshotError(f"{path} is a pickle but not a CUDA memory snapshot (no segments/device_traces)")
    if not isinstance(snap["segments"], list) or not isinstance(snap["device_traces"], list):
        raise SnapshotError(f"{path}: segments/device_traces are not lists")
    try:
        _check_work(snap, f"snapshot {path}")
    except MemprobeError as e:
        raise SnapshotError(str(e)) from None
    return Snapshot(snap, size)


# what a pickle that is cut short, or is none, raises as the unpickler reads it
_NOT_A_PICKLE = (
    EOFError,
    ValueError,
    TypeError,
    IndexError,
    KeyError,
    AttributeError,
    RecursionError,
    OverflowError,
    UnicodeDecodeError,
)


def _unpickle(f, path: Path, bound: int | None):
    """The plain data of the open snapshot ``f``, unpickled within ``bound`` bytes of memory (None: unbounded)."""
    try:
        with _memory_bound(bound), collector_paused():
            return _PlainUnpickler(f).load()
    except pickle.UnpicklingError as e:
        raise SnapshotError(f"snapshot {path} refused: {e}") from None
    except MemoryError:
        raise SnapshotError(
            f"snapshot {path} needs more memory to load than a file of {f.size} bytes can (bound: {bound} bytes); refused"
        ) from None
    except _NOT_A_PICKLE as e:
        raise SnapshotError(f"snapshot {path} is truncated or not a pickle ({type(e).__name__})") from None


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while the block runs (as it was after): unpickling a snapshot makes
    millions of small dicts and lists, none of which can be part of a cycle, and each batch of them made the collector
    walk the growing heap again (``pickle.load`` of a 100 MB snapshot took 2.8 s with it, 0.85 s without: see
    docs/benchmarks.md). Reference counting still frees everything as usual."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _check_work(snap: dict, where: str) -> None:
    """The snapshot's events (trace entries and segment blocks) and their stack frames, each list counted at every use,
    within the per-file bounds: counted by length, before any of it is analysed."""
    blocks = [seg.get("blocks") for seg in snap["segments"] if type(seg) is dict]
    lists = [t for t in snap["device_traces"] if type(t) is list] + [b for b in blocks if type(b) is list]
    check_work(where, "events", sum(map(len, lists)), "allocator events and blocks")
    if sum(map(_frames_at_most, lists)) > work_limit("frames"):  # maybe more than there are: counted exactly
        frames = sum(map(_frame_count, lists))
        check_work(where, "frames", frames, "stack frames (a frame list shared among events counted at each use)")


_FRAMES = itemgetter("frames")


def _frames_at_most(items: list) -> int:
    """At least the stack frames of ``items`` that :func:`_frame_count` counts: where every item is a dict with
    frames, the lengths of their frames summed in C loops (frames that are no list counted by their length too), else
    the exact count. The hot loop of a snapshot's bounds (once per event)."""
    try:
        return sum(map(len, map(_FRAMES, items)))
    except (KeyError, TypeError):  # an item that is no dict or has no frames, or frames without a length
        return _frame_count(items)


def _frame_count(items: list) -> int:
    """The stack frames of the items of ``items`` that are dicts whose frames are a list."""
    get, _dict, _list = dict.get, dict, list
    return sum(len(fr) for item in items if type(item) is _dict and type(fr := get(item, "frames")) is _list)


@contextmanager
def _memory_bound(extra: int | None):
    """Cap this process's address space at its current size + ``extra`` bytes while the block runs."""
    if extra is None:
        yield
        return
    try:
        import resource

        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):  # not Linux: no bound to set
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mapped + extra
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft != resource.RLIM_INFINITY and soft <= want:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


MARKER_FUNCTION = "_phase_marker"
MAX_FRAME_TEXT = 4096  # characters of a frame's function or file name (a path's most: PATH_MAX)


def _frames(ev: dict) -> list[dict]:
    """An event's or block's stack frames that have the shape memprobe reads (str name and filename of at most
    4096 characters each, int line within 64 bits); anything else in a snapshot is ignored, never expanded (a crafted
    name could be a nested list whose text is exponentially long, or a string of millions of characters shared by
    every frame; a line of 100,000 digits is no number Python prints)."""
    fr = ev.get("frames")
    if not isinstance(fr, list):
        return []
    if _well_formed(fr):
        return fr
    return [
        f
        for f in fr
        if isinstance(f, dict)
        and isinstance(f.get("name"), str)
        and isinstance(f.get("filename"), str)
        and isinstance(f.get("line", 0), int)
        and -MAX_INT <= f.get("line", 0) <= MAX_INT
        and len(f["name"]) <= MAX_FRAME_TEXT
        and len(f["filename"]) <= MAX_FRAME_TEXT
    ]


_NAME_AND_FILE = itemgetter("name", "filename")
_LINE = methodcaller("get", "line", 0)
_FRAME_KEY = itemgetter("filename", "line", "name")


def _well_formed(fr: list) -> bool:
    """Whether every frame of a list passes :func:`_frames`'s checks, each check run over the whole list in C (a real
    snapshot's hundreds of thousands of stacks, each its own list); False sends the list through the check frame by
    frame (a bool line, say, which that check takes)."""
    if set(map(type, fr)) - {dict}:
        return False
    try:
        texts = list(chain.from_iterable(map(_NAME_AND_FILE, fr)))
    except KeyError:
        return False
    lines = list(map(_LINE, fr))
    if set(map(type, texts)) - {str} or set(map(type, lines)) - {int}:
        return False
    if lines and (min(lines) < -MAX_INT or max(lines) > MAX_INT):
        return False
    return not texts or max(map(len, texts)) <= MAX_FRAME_TEXT


class PerStack:
    """What is derived from a stack, once per distinct stack: a snapshot shares one list among many events (and a
    crafted one among millions), so each use costs a lookup, not a walk of the list; a real snapshot gives each
    event a list of its own, mostly of a few hundred distinct stacks, found again by their frames (file, line and
    name, each checked to be a bounded str or an int first). Kept only while the snapshot that holds the lists lives
    (the lists' identities are keys)."""

    def __init__(self, derive):
        self.derive, self.known, self.by_frames, self.by_frame_objects = derive, {}, {}, {}
        self.by_ends: dict[tuple, list] = {}  # (length, first and last frame objects) -> [(list, derived)]

    def __call__(self, ev: dict):
        fr = ev.get("frames")
        known = self.known.get(id(fr))
        if known is not None:
            return known[0]
        # a list of the very frame objects of a list seen before (torch's dump shares its frames among the events'
        # lists, each event's list its own): that list's, without checking and keying its frames again. Found by its
        # length and its end frames' identities, then compared object by object (no hash of every frame: this runs
        # once per event of a real snapshot); a few such lists per key. A list found so is kept nowhere (the next
        # event's is another list); one found otherwise, by all its frames' identities (a crafted file's lists that
        # share their ends) or by its content, is kept by its identity, found again at the cost of a lookup.
        if type(fr) is list and fr:
            ends = (len(fr), id(fr[0]), id(fr[-1]))
            seen = self.by_ends.get(ends)
            if seen is None:
                seen = self.by_ends[ends] = []
            else:
                for other, derived in seen:
                    if all(map(is_, other, fr)):
                        return derived
            derived = self._by_objects(ev, fr)
            if len(seen) < _SAME_ENDS:
                seen.append((fr, derived))
        else:
            derived = self._by_objects(ev, fr) if type(fr) is list else self._derive(ev, fr)
        self.known[id(fr)] = (derived, fr)  # the list kept alive with its key
        return derived

    def _by_objects(self, ev: dict, fr: list):
        objects = tuple(map(id, fr))
        derived = self.by_frame_objects.get(objects, _NONE)
        if derived is _NONE:
            derived = self.by_frame_objects[objects] = self._derive(ev, fr)
        return derived

    def _derive(self, ev: dict, fr):
        frames = _frames(ev)
        try:
            content = tuple(map(_FRAME_KEY, frames)) if frames is fr else None
        except KeyError:  # a frame with no line
            content = None
        if content is None:
            return self.derive(frames)
        if content not in self.by_frames:
            self.by_frames[content] = self.derive(frames)
        return self.by_frames[content]


_NONE = object()  # no entry (a derived value may be anything, None too)
_SAME_ENDS = 8  # lists of one length and end frames compared object by object, at most (PerStack)


MARKER_BLOCK_BYTES = 512  # a 1-byte tensor: the allocator's smallest block


def _marker_stack(frames: list[dict]) -> bool:
    return any(f["name"] == MARKER_FUNCTION and f["filename"].endswith("memory.py") for f in frames)


def _is_marker(ev: dict, marker_stack=None) -> bool:
    # the size test first: it rules out nearly every event without looking at its stack
    size = ev.get("size")
    if not (isinstance(size, int) and size <= MARKER_BLOCK_BYTES):
        return False
    return marker_stack(ev) if marker_stack is not None else _marker_stack(_frames(ev))


def _cached(snap: dict, key, compute):
    """Derived data computed once per loaded :class:`Snapshot` (a plain dict: computed each time)."""
    cache = getattr(snap, "derived", None)
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _cache_get(snap: dict, key):
    return (getattr(snap, "derived", None) or {}).get(key)


def step_start(snap: dict, device: int | None = None) -> tuple | None:
    """The replay state at the measured step's first marker, saved by :func:`replay` (None before it ran):
    :func:`walk_trace` can start there instead of at the beginning of the history."""
    return _cache_get(snap, ("resume", device))


def trace_events(snap: dict, device: int | None) -> list[dict]:
    """The device's allocator events that have the fields memprobe reads (computed once per snapshot)."""
    return _cached(snap, ("trace", device), lambda: _valid_trace(snap, device))


def _device_trace(snap: dict, device: int | None) -> list:
    """The device's trace as recorded (the longest when ``device`` is None); empty when there is none."""
    traces = snap["device_traces"]
    if device is None:
        sizes = [len(t) if isinstance(t, list) else 0 for t in traces]
        device = max(range(len(traces)), key=lambda i: sizes[i]) if traces else 0
    if device >= len(traces) or not isinstance(traces[device], list):
        return []
    return traces[device]


def _valid_trace(snap: dict, device: int | None) -> list[dict]:
    """The events with an int (exactly: not a bool) address and size within 64 bits, a str action and a time that is
    such an int or a finite float (:func:`_well_formed_events`), each block event's size made its block's
    (:func:`block_size`: the trace records what was asked for; :class:`_BlockSizes` follows the large pool's
    blocks)."""
    raw = _device_trace(snap, device)
    valid = _well_formed_events(raw)
    _BlockSizes(snap, raw).follow(valid)
    return valid


def _well_formed_events(raw: list) -> list[dict]:
    """The entries of ``raw`` that are events memprobe reads (:func:`_valid_trace`), tested one by one; the test
    written out in one comprehension, names bound locally (a call per field cost as much as the rest of the
    reading)."""
    get, _dict, _int, _str, top, finite = dict.get, dict, int, str, _MAX, _finite
    return [
        e
        for e in raw
        if type(e) is _dict
        and type(addr := get(e, "addr")) is _int
        and type(size := get(e, "size")) is _int
        and 0 <= addr < top
        and 0 <= size < top
        and type(get(e, "action")) is _str
        and ((type(when := get(e, "time_us", 0)) is _int and 0 <= when < top) or finite(when))
    ]


MIN_BLOCK_BYTES = 512  # the CUDA caching allocator's smallest block, and the multiple it rounds every size up to
SMALL_POOL_MAX_BYTES = 1 << 20  # kSmallSize: a block up to this size comes from the small pool (2 MiB segments)
SMALL_SEGMENT_BYTES = 2 << 20  # kSmallBuffer: a small-pool segment; a large-pool segment is never this size
ROUNDUP_INTERVALS = 16  # roundup_power2_divisions' size intervals: [0, 2 MiB), [2, 4) ... [32 GiB, ...), by log2


def _allocator_settings(snap: dict) -> dict:
    """The snapshot's ``allocator_settings`` (PYTORCH_CUDA_ALLOC_CONF as the allocator read it), or {} where it has
    none that is a dict."""
    settings = snap.get("allocator_settings") if isinstance(snap, dict) else None
    return settings if isinstance(settings, dict) else {}


def roundup_divisions(snap: dict) -> tuple[int, ...]:
    """The allocator's ``roundup_power2_divisions`` per size interval, from the snapshot's ``allocator_settings``
    (keyed by each interval's start in MiB: "1", "2", "4" ... "32768"); all 0 (no power-of-two rounding, the
    default) where the snapshot does not say."""
    table = _allocator_settings(snap).get("roundup_power2_divisions")
    if not isinstance(table, dict):
        return (0,) * ROUNDUP_INTERVALS
    out = []
    for i in range(ROUNDUP_INTERVALS):
        d = table.get(str(1 << i))
        out.append(d if type(d) is int and 0 <= d <= 1 << 20 else 0)
    return tuple(out)


def block_size(size: int, divisions: tuple[int, ...] = (0,) * ROUNDUP_INTERVALS) -> int:
    """The bytes the CUDA caching allocator counts as allocated for a request of ``size`` bytes (``round_size`` of
    c10/cuda/CUDACachingAllocator.cpp): at least 512, a multiple of 512, or, where ``roundup_power2_divisions``
    is set for the size's interval, the next of that many equal steps between two powers of two. A snapshot's trace
    records the requested size; ``torch.cuda.max_memory_allocated()`` counts blocks (a large request may be handed
    a larger one: :class:`_BlockSizes`)."""
    if size == 0:
        return 0
    if size < MIN_BLOCK_BYTES:
        return MIN_BLOCK_BYTES
    index = min(max(size.bit_length() - 1 - 20, 0), ROUNDUP_INTERVALS - 1)
    d = divisions[index]
    if d > 1 and size > MIN_BLOCK_BYTES * d:
        return _next_division(size, d)
    return -(-size // MIN_BLOCK_BYTES) * MIN_BLOCK_BYTES


def _next_division(size: int, divisions: int) -> int:
    """``roundup_power2_next_division``: ``size`` rounded up to the next of ``divisions`` steps between the powers of
    two around it (a power of two stays itself)."""
    if size & (size - 1) == 0:
        return size
    floor = 1 << (size.bit_length() - 1)
    step = floor >> (divisions.bit_length() - 1)
    if step == 0:
        return floor << 1
    rounded = size & ~(step - 1)
    return size if rounded == size else rounded + step


class _BlockSizes:
    """Each block event's size made the size of the block the allocator handed out, in trace order (:meth:`follow`).

    A request becomes :func:`block_size`. A large one (over 1 MiB: the large pool) is handed the free block that
    starts at its address, split only where more than 1 MiB would remain (``should_split``), else whole: up to 1 MiB
    more than asked, which ``torch.cuda.max_memory_allocated()`` counts (measured on the H200: 14.1 MiB over 555.6
    MiB at odd sizes). So the large pool's blocks are followed from each ``segment_alloc`` (one free block), split
    at allocations, merged with free neighbours of their segment when returned, dropped at ``segment_free``. Where
    that cannot be known (a segment older than the recording, or expandable segments, which always split), the
    request's block size stands."""

    def __init__(self, snap: dict, raw: list):
        self.divisions = roundup_divisions(snap)
        # below this, a size that is a multiple of 512 B is its own block (small pool, no power-of-two rounding)
        self.exact_below = min(
            [SMALL_POOL_MAX_BYTES]
            + [max(0 if i == 0 else 1 << (20 + i), MIN_BLOCK_BYTES * d) for i, d in enumerate(self.divisions) if d > 1]
        )
        settings = _allocator_settings(snap)
        self.following = settings.get("expandable_segments") is not True
        self.split_limit = settings.get("max_split_size", -1)
        if type(self.split_limit) is not int or self.split_limit <= 0:
            self.split_limit = _MAX
        self.rounds = any(d > 1 for d in self.divisions)  # roundup_power2_divisions set: a multiple of 512 may grow
        self.returns = _free_action(raw)
        self.blocks: dict[int, list] = {}  # start -> [size, free, segment start] (large-pool segments followed)
        self.ends: dict[int, int] = {}  # end -> start, of those blocks
        self.members: dict[int, set[int]] = {}  # segment start -> its blocks' starts
        self.handed: dict[int, int] = {}  # address -> the size of the large block allocated there

    def follow(self, events: list[dict]) -> None:
        """Each block event of ``events`` (valid, in trace order) given the size of its block, in place. A size below
        ``exact_below`` that is a multiple of 512 B is its own block's and costs one test: the loop is written out,
        names bound locally (it runs once per event of a real snapshot's history)."""
        exact, rounds, divisions, returns, blocks = self.exact_below, self.rounds, self.divisions, self.returns, _BLOCK_ACTIONS
        hand, take_back, handed = self._hand, self._take_back, self.handed
        for e in events:
            size = e["size"]
            if size <= exact and not size & 511:
                continue
            action = e["action"]
            if action not in blocks:
                self._segment(e, action, size)
                continue
            if size & 511 or rounds:  # else the request is its block's size (a multiple of 512 B, kept)
                size = block_size(size, divisions)
            if size > SMALL_POOL_MAX_BYTES:
                if action == "alloc":
                    size = hand(e["addr"], size)
                elif action == returns:
                    size = take_back(e["addr"], size)
                else:
                    size = handed.get(e["addr"], size)
            e["size"] = size

    def _segment(self, e: dict, action: str, size: int) -> None:
        """A segment's event: a large-pool segment's blocks followed from its allocation to its free."""
        if action == "segment_alloc" and self.following and size != SMALL_SEGMENT_BYTES:
            self._put(e["addr"], size, True, e["addr"])
        elif action == "segment_free":
            for start in self.members.pop(e["addr"], ()):
                self._remove(start)
        elif action in ("segment_map", "segment_unmap"):  # expandable segments: every block split exactly
            self.following = False
            self.blocks.clear()
            self.ends.clear()
            self.members.clear()

    def _put(self, start: int, size: int, free: bool, segment: int) -> None:
        if start in self.blocks:  # a segment allocated twice at one address (a damaged trace): the later one holds
            self._remove(start)
        self.blocks[start] = [size, free, segment]
        self.ends[start + size] = start
        self.members.setdefault(segment, set()).add(start)

    def _remove(self, start: int) -> list:
        block = self.blocks.pop(start)
        self.ends.pop(start + block[0], None)
        self.members.get(block[2], set()).discard(start)
        return block

    def _hand(self, addr: int, size: int) -> int:
        """The block a large allocation at ``addr`` is handed: the free block there, split or whole (changed in
        place: it keeps its start and its segment)."""
        block = self.blocks.get(addr)
        if block is not None and block[1] and block[0] >= size:
            whole, segment = block[0], block[2]
            if size < self.split_limit and whole - size > SMALL_POOL_MAX_BYTES:  # should_split, the large pool's
                self.ends.pop(addr + whole, None)
                self.ends[addr + size] = addr
                block[0] = size
                self._put(addr + size, whole - size, True, segment)
            else:
                size = whole
            block[1] = False
        self.handed[addr] = size
        return size

    def _take_back(self, addr: int, size: int) -> int:
        """The block returned at ``addr`` made free, merged with the free blocks of its segment on either side: what
        :meth:`_remove` and :meth:`_put` would do, step by step, written out (this runs once per large free of a
        real snapshot's history: a method call per step cost a third of its reading)."""
        size = self.handed.pop(addr, size)
        blocks, ends, members = self.blocks, self.ends, self.members
        block = blocks.get(addr)
        if block is None or block[1]:
            return size
        whole, segment = block[0], block[2]
        del blocks[addr]  # _remove(addr)
        ends.pop(addr + whole, None)
        if (own := members.get(segment)) is not None:
            own.discard(addr)
        start = addr
        after = blocks.get(start + whole)
        if after is not None and after[1] and after[2] == segment:  # _remove(start + whole): merged into this one
            next_start = start + whole
            del blocks[next_start]
            ends.pop(next_start + after[0], None)
            if (own := members.get(segment)) is not None:
                own.discard(next_start)
            whole += after[0]
        before = ends.get(start)
        prior = blocks.get(before) if before is not None else None
        if prior is not None and prior[1] and prior[2] == segment and before + prior[0] == start:
            del blocks[before]  # _remove(before): this one merged into it
            ends.pop(before + prior[0], None)
            if (own := members.get(segment)) is not None:
                own.discard(before)
            start, whole = before, whole + prior[0]
        if start in blocks:  # _put(start, whole, True, segment), its list made anew as _put makes it
            self._remove(start)
        block[0], block[1] = whole, True
        blocks[start] = block
        ends[start + whole] = start
        members.setdefault(segment, set()).add(start)
        return size


_MAX = MAX_INT  # addresses, sizes and times of a real snapshot fit in 63 bits, as a record's figures do


def _integer(v) -> bool:
    """A field memprobe computes with as an integer: an int (not a bool) within 64 bits."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < _MAX


def _finite(v) -> bool:
    return isinstance(v, float) and math.isfinite(v) and abs(v) < _MAX


def _free_action(trace: list) -> str:
    """The event that returns a block: free_completed where the trace has it (newer torch); the trace as recorded
    (its entries not yet checked) or its valid events."""
    return "free_completed" if any(type(e) is dict and e.get("action") == "free_completed" for e in trace) else "free_requested"


def free_action_of(snap: dict, device: int | None) -> str:
    """The action that returns a block to the allocator in the device's trace (computed once per snapshot)."""
    return _cached(snap, ("free_action", device), lambda: _free_action(trace_events(snap, device)))


def blocks_before(snap: dict, device: int | None) -> dict[int, dict]:
    """The blocks alive when the device's recording began, by address (computed once per snapshot): each a dict of
    ``size``, ``frames`` (those of its segment block; none for a block the trace frees first) and ``pre_existing``."""
    return _cached(snap, ("pre_existing", device), lambda: _pre_existing(snap, trace_events(snap, device), device))


def _pre_existing(snap: dict, trace: list[dict], device: int | None) -> dict[int, dict]:
    """Blocks alive when recording began: alive at the end with no alloc in the trace,
    or freed in the trace before any alloc of theirs."""
    first: dict[int, dict] = {}
    for ev in trace:  # one pass: each address's first event
        if ev["action"] in _BLOCK_ACTIONS and ev["addr"] not in first:
            first[ev["addr"]] = ev
    blocks: dict[int, dict] = {}
    for b in _segment_blocks(snap, device):
        if b.get("state") in ("active_allocated", "active_pending_free") and b["address"] not in first:
            blocks[b["address"]] = {"size": b["size"], "frames": b.get("frames"), "pre_existing": True}
    for addr, ev in first.items():
        if ev["action"] != "alloc" and addr not in blocks:
            blocks[addr] = {"size": ev["size"], "frames": [], "pre_existing": True}
    return blocks


def _segment_blocks(snap: dict, device: int | None):
    """The blocks of the device's segments at the end of the recording that have an address and a size."""
    for seg in snap["segments"]:
        if not isinstance(seg, dict) or (device is not None and seg.get("device", device) != device):
            continue
        blocks_of = seg.get("blocks")
        for b in blocks_of if isinstance(blocks_of, list) else []:
            if isinstance(b, dict) and _integer(b.get("address")) and _integer(b.get("size")):
                yield b


_BLOCK_ACTIONS = frozenset(("alloc", "free_requested", "free_completed"))


def _known_markers(snap: dict, device: int | None) -> frozenset[int]:
    """The markers as already found (by :func:`replay`, searching for the run's expected number), else all."""
    for key, value in (getattr(snap, "derived", None) or {}).items():
        if key[:2] == ("markers", device):
            return value
    return _markers(snap, device)


def _markers(snap: dict, device: int | None, expected: int | None = None) -> frozenset[int]:
    """Trace indices of the phase-marker allocations. They all lie in the measured step at the
    end of the history: with ``expected`` known, the trace is searched backwards only until
    that many are found."""

    def compute():
        trace = trace_events(snap, device)
        found = []
        marker_stack = PerStack(_marker_stack)
        for i in range(len(trace) - 1, -1, -1):
            ev = trace[i]
            if ev["action"] == "alloc" and _is_marker(ev, marker_stack):
                found.append(i)
                if expected is not None and len(found) == expected:
                    break
        return frozenset(found)

    return _cached(snap, ("markers", device, expected), compute)


def walk_trace(snap: dict, device: int | None = None, resume: tuple | None = None):
    """Replay the trace once: yields ``(index, event, is_marker, live, total)`` after each event,
    ``live`` being the blocks allocated at that moment (address -> block) and ``total`` their bytes.
    Marker allocations (phase boundaries) are reported but not counted. ``resume``: a state
    ``(index, live, total)`` saved by :func:`replay` to start from instead of the beginning."""
    trace = trace_events(snap, device)
    markers = _known_markers(snap, device)
    free_action = free_action_of(snap, device)
    if resume is not None:
        start, live, total = resume[0], dict(resume[1]), resume[2]
    else:
        start = 0
        live = dict(blocks_before(snap, device))
        total = sum(b["size"] for b in live.values())
    yield start - 1, None, False, live, total
    for i in range(start, len(trace)):
        ev = trace[i]
        action = ev["action"]
        marker = i in markers
        if action == "alloc" and not marker:
            live[ev["addr"]] = {"size": ev["size"], "frames": ev.get("frames"), "index": i}
            total += ev["size"]
        elif action == free_action and ev["addr"] in live:
            total -= live.pop(ev["addr"])["size"]
        yield i, ev, marker, live, total


class _PhaseMarks:
    """What :func:`replay` does at the phase markers: each starts or ends the phase ``phase_names`` gives it in order;
    the phase a marker starts is ``current`` until one ends it (its peak is followed from there)."""

    def __init__(self, phase_names: list | None):
        self.names = phase_names or []
        self.markers: list[int] = []
        self.phases: dict[str, dict] = {}
        self.current: dict | None = None  # the figures of the phase under way

    def at(self, i: int, total: int) -> None:
        if len(self.markers) < len(self.names):
            name, edge = self.names[len(self.markers)]
            if edge == PhaseEdge.START:
                self.current = self.phases[name] = {"peak_bytes": total, "peak_index": i, "start_index": i}
            else:
                self.current = None
                self.phases.setdefault(name, {"peak_bytes": total, "peak_index": i, "start_index": i})["end_index"] = i
        self.markers.append(i)


def replay(snap: dict, device: int | None = None, phase_names: list | None = None) -> dict:
    """Replay the trace: the peak of bytes allocated, over the measured step and per phase.

    ``phase_names``: the run's ``[[phase, "start"|"end"], ...]`` in the order of the
    marker allocations in the trace. The step is the history from the first marker on
    (the whole history when it has no markers, e.g. a run that failed before measuring).
    The state at the first marker is kept, so that :func:`live_at` starts there. The replay of
    :func:`walk_trace`, written out in one loop (the hot loop of a snapshot's analysis): only an
    allocation can raise the level, so the peaks are looked at after allocations only.
    """
    has_markers = bool(_markers(snap, device, expected=len(phase_names) if phase_names else None))
    trace = trace_events(snap, device)
    markers = _known_markers(snap, device)
    free_action = free_action_of(snap, device)
    live = dict(blocks_before(snap, device))
    start_total = total = peak = sum(b["size"] for b in live.values())
    peak_index, in_step, marks = -1, not has_markers, _PhaseMarks(phase_names)
    for i, ev in enumerate(trace):
        action = ev["action"]
        if action == "alloc":
            if i in markers:
                if not marks.markers:  # the measured step begins: its peak is counted from here
                    in_step, peak, peak_index = True, total, i
                    _cached(snap, ("resume", device), lambda i=i, total=total: (i, dict(live), total))
                marks.at(i, total)
                continue
            size = ev["size"]
            live[ev["addr"]] = {"size": size, "frames": ev.get("frames"), "index": i}
            total += size
            if in_step and total > peak:
                peak, peak_index = total, i
            if marks.current is not None and total > marks.current["peak_bytes"]:
                marks.current["peak_bytes"], marks.current["peak_index"] = total, i
        elif action == free_action and ev["addr"] in live:
            total -= live.pop(ev["addr"])["size"]
    return {
        "events": len(trace),
        "start_bytes": start_total,
        "end_bytes": total,
        "peak_bytes": peak,
        "peak_index": peak_index,
        "marker_indices": marks.markers,
        "phases": marks.phases,
    }


def live_at(snap: dict, indices, device: int | None = None) -> dict[int, dict[int, dict]]:
    """The blocks alive right after each trace event in ``indices`` (-1: before the first event),
    all from one replay (from the measured step's start when :func:`replay` saved it)."""
    wanted = set(indices)
    out: dict[int, dict[int, dict]] = {}
    resume = step_start(snap, device)
    if resume is not None and min(wanted, default=-1) < resume[0]:
        resume = None
    for i, _ev, _marker, live, _total in walk_trace(snap, device, resume):
        if i in wanted:
            out[i] = dict(live)
            if len(out) == len(wanted):
                break
    return out


@dataclass(frozen=True)
class Named:
    """What a block of memory is: its category, its item, and the evidence for the name."""

    category: str
    item: str
    evidence: str


@dataclass(frozen=True)
class CodeBuffer:
    """A block an output-code statement allocated: its graph, its buffer and the invocation that ran it."""

    graph: str
    storage: str
    call: int


@dataclass(frozen=True)
class BackwardLive:
    """The blocks alive at the backward phase's replayed peak that a backward graph's statements allocated, and the
    bytes of all else alive there."""

    event_index: int
    peak_bytes: int
    buffers: list[tuple[CodeBuffer, int]]
    other_bytes: int


@dataclass(frozen=True)
class CodeLine:
    """What the storage allocated at one output-code line becomes."""

    storage: str
    role: str  # saved, output or temporary
    fx_node: str | None
    expr: str | None


class Classifier:
    """Names what a block is, from its stack, the run's output code and the tensor registry."""

    def __init__(self, report: S.Report, output_code_lines: dict[str, dict[int, CodeLine]]):
        snapshot = report.memory.snapshot if report.memory else None
        self.registry = (snapshot.tensor_registry if snapshot else None) or {}
        self.by_path: dict[str, str] = {}
        for g in report.graphs:
            if g.output_code_loaded_from:
                self.by_path[g.output_code_loaded_from] = g.graph_id
        self.lines = output_code_lines
        # the library call each output-code line makes (extern_kernels.mm, a fallback aten op): a block allocated at
        # such a line that allocates no buffer of the graph was allocated inside the library (cuBLAS's workspace)
        self.calls = {gm.graph_id: {k.line: k.kernel for k in gm.kernels or []} for gm in report.graph_memory or []}
        self.blocks = [inv.block for inv in report.invocations]
        self.calls_of: dict[int, list[int]] = defaultdict(list)  # a Dynamo graph's invocations, by index, in order
        for i, inv in enumerate(report.invocations):
            self.calls_of[inv.dynamo_graph].append(i)
        self.whole_model = report.model.whole_model if report.model else None
        self.code_frame = PerStack(self._code_frame)  # (graph, line) of a stack's first output-code frame, or None
        self._named = PerStack(self._named_by)  # what a stack alone says a block is, or None: its output code does

    def _code_frame(self, frames: list[dict]) -> tuple[str, int] | None:
        for f in frames:
            graph_id = self.by_path.get(f.get("filename"))
            if graph_id is not None:
                return graph_id, f.get("line")
        return None

    def _named_by(self, frames: list[dict]) -> Named | None:
        funcs = " ".join(f["name"] for f in frames)
        if "Workspace" in funcs:  # e.g. cuBLAS's, allocated lazily by the first matmul (inside a graph call)
            return Named(Category.LIBRARY_WORKSPACE, _workspace_owner(funcs), "workspace allocation in C++ stack")
        return None if self._code_frame(frames) is not None else _from_stack(frames)

    def classify(self, addr: int, block: dict) -> Named:
        reg = self.registry.get(str(addr))
        if reg is not None:
            return Named(reg.category, reg.name, "tensor registry (alive before the step)")
        named = self._named(block)
        if named is not None:
            return named
        graph_id, line = self.code_frame(block)
        return self._from_output_code(graph_id, line, block)

    def _from_output_code(self, graph_id: str, line, block: dict) -> Named:
        """A block allocated by a line of a graph's output code: what that line's storage becomes."""
        info = self.lines.get(graph_id, {}).get(line)
        where = f"{graph_id} output code line {line}"
        if info is None:
            call = self.calls.get(graph_id, {}).get(line)
            if call is not None and not call.startswith("triton"):
                # with Python stacks only (the default) a workspace's C++ frames are not recorded: the line says it
                why = f"{where} calls {call} and allocates no buffer of the graph"
                return Named(Category.LIBRARY_WORKSPACE, f"workspace of {call} ({where})", why)
            return Named(Category.INDUCTOR_TEMPORARY, where, where)
        if info.role == LiveRole.SAVED:
            item = info.expr or info.fx_node
            # the names of its op chain are under its block's, none for the whole model's (as the saved table's)
            block_name = block_prefix(self._block_for(graph_id, line, block), self.whole_model)
            if block_name:
                from .saved import prefix_block  # a run's names (the record's types): imported with a run's attribution

                item = prefix_block(item, block_name)
            return Named(Category.SAVED_FOR_BACKWARD, item, f"{where} -> {info.storage} -> {info.fx_node}")
        if info.role == LiveRole.OUTPUT:
            cat = Category.GRADIENT if graph_id.endswith(".backward") else Category.GRAPH_OUTPUT
            return Named(cat, info.expr or info.fx_node, f"{where} -> {info.storage}")
        return Named(Category.INDUCTOR_TEMPORARY, f"{info.storage} ({graph_id})", where)

    def code_buffer(self, block: dict) -> CodeBuffer | None:
        """The output-code buffer a block is, when a backward graph's allocation statement made it, with the
        invocation whose backward ran: the k-th backward call of a graph is its k-th forward call from the last
        (autograd runs the calls' backwards in the reverse of their order); None otherwise."""
        graph_id, line = self.code_frame(block) or (None, None)
        info = self.lines.get(graph_id, {}).get(line) if graph_id and graph_id.endswith(".backward") else None
        calls = self._calls(graph_id) if info is not None else []
        order = block.get("call_ordinal")
        if order is None or order >= len(calls):
            return None
        return CodeBuffer(graph=graph_id, storage=info.storage, call=calls[len(calls) - 1 - order])

    def _calls(self, graph_id: str) -> list[int]:
        """The invocations (their indices) of the Dynamo graph of ``graph_id`` (``g3.forward``: graph 3), in order."""
        return self.calls_of.get(int(graph_id.split(".")[0][1:]), [])

    def _block_for(self, graph_id: str, line: int, block: dict) -> str | None:
        calls = self._calls(graph_id)
        # the k-th allocation from this line in the trace is the k-th call of the graph
        order = block.get("call_ordinal")
        if order is not None and order < len(calls):
            return self.blocks[calls[order]]
        return None


# a block no output code allocated, named by a file of its stack: (the file's part of its path, category, name, why)
_STACK_FILES = (
    ("_fsdp_param.py", Category.FSDP_UNSHARDED_PARAMETER, "FSDP unsharded parameters", "_fsdp_param.py in stack"),
    (
        "_fsdp_collectives.py",
        Category.FSDP_COLLECTIVE_BUFFER,
        "FSDP all-gather / reduce-scatter buffer",
        "_fsdp_collectives.py in stack",
    ),
    ("torch/optim/", Category.OPTIMIZER_TEMPORARY, "optimizer step", "torch/optim in stack"),
)
_BACKWARD_FUNCTIONS = ("backward", "_engine_run_backward", "run_backward")


def _from_stack(frames: list[dict]) -> Named:
    """A block no output code allocated: named by the libraries and code in its stack."""
    names = [(f["filename"], f["name"]) for f in frames]
    files = " ".join(fn for fn, _ in names)
    for needle, category, name, why in _STACK_FILES:
        if needle in files:
            return Named(category, name, why)
    if any(n in _BACKWARD_FUNCTIONS for _, n in names) or "torch/autograd/" in files:
        return Named(Category.EAGER_AUTOGRAD, "autograd engine", "autograd in stack")
    user = next((_frame_text(f) for f in frames if _is_user_file(f["filename"])), None)
    if user is not None:
        return Named(Category.EAGER_AUTOGRAD, user, "allocated in eager Python code")
    top = next((_frame_text(f) for f in frames if f["filename"].endswith(".py")), None)
    return Named(Category.OTHER, top or "no Python frame", "no rule matched")


def _is_user_file(filename: str) -> bool:
    """A Python file neither torch's nor torchao's."""
    return filename.endswith(".py") and "/torch/" not in filename and "/torchao/" not in filename


def _frame_text(frame: dict) -> str:
    return f"{frame['filename']}:{frame.get('line')} {frame['name']}"


def _workspace_owner(funcs: str) -> str:
    for needle, owner in (("BlasLt", "cuBLASLt workspace"), ("Blas", "cuBLAS workspace"), ("cudnn", "cuDNN workspace")):
        if needle in funcs:
            return owner
    return "library workspace"


def output_code_line_map(graph_memory: list[S.GraphMemory]) -> dict[str, dict[int, CodeLine]]:
    """graph_id -> {allocation line: what the storage allocated there becomes}."""
    out: dict[str, dict[int, CodeLine]] = {}
    for gm in graph_memory:
        if gm.allocations is None:
            continue
        by_storage = {r.storage: r for r in gm.returned or [] if r.storage and not r.is_input}
        lines: dict[int, CodeLine] = {}
        for line, storage, _nbytes in gm.allocations:
            ret = by_storage.get(storage)
            lines[line] = CodeLine(
                storage=storage,
                role=ret.role if ret else LiveRole.TEMPORARY,
                fx_node=ret.fx_node if ret else None,
                expr=ret.expr if ret else None,
            )
        out[gm.graph_id] = lines
    return out


def attribute_peak(snap: dict, report: S.Report, top: int = 15) -> S.Attribution:
    """What is alive at the step's peak and at each phase's peak, by category and item.

    Needs the report's ``graph_memory`` (the simulated output code) to name what Inductor allocated. The replays run
    with the cyclic collector paused (a block dict per allocation, none of them in a cycle).
    """
    return attribute_snapshot(snap, report, top)[0]


def attribute_snapshot(snap: dict, report: S.Report, top: int = 15) -> tuple[S.Attribution, BackwardLive | None]:
    """:func:`attribute_peak`, and the backward graphs' buffers alive at backward's peak (None without a backward
    phase), from the same replay."""
    from .peaks import StepFigures, step_attribution, summarize_alive  # the record's types: a run's attribution's

    meta = report.memory.snapshot if report.memory else None
    with collector_paused():
        rep = replay(snap, phase_names=(meta.phase_markers if meta else None))
        classifier = Classifier(report, output_code_line_map(report.graph_memory or []))
        ordinal_of_index = call_ordinals(snap, classifier)
        ends = [ph["end_index"] for ph in rep["phases"].values() if "end_index" in ph]
        moments = live_at(snap, [rep["peak_index"], *(ph["peak_index"] for ph in rep["phases"].values()), *ends])

    def blocks(index: int):
        for addr, block in moments[index].items():
            yield addr, ({**block, "call_ordinal": ordinal_of_index.get(block["index"])} if "index" in block else block)

    def at(index: int) -> Alive:
        def named():
            for addr, block in blocks(index):
                c = classifier.classify(addr, block)
                yield c.category, c.item, block["size"], c.evidence

        return summarize_alive(named(), index, "snapshot.pickle (the allocator history)", top)

    def backward(ph: dict) -> BackwardLive:
        found, other = [], 0
        for _addr, block in blocks(ph["peak_index"]):
            buffer = classifier.code_buffer(block)
            if buffer is None:
                other += block["size"]
            else:
                found.append((buffer, block["size"]))
        return BackwardLive(ph["peak_index"], ph["peak_bytes"], found, other)

    def phase(ph: dict) -> S.AttributionPhase:
        out = at(ph["peak_index"]).at_peak(ph["peak_bytes"])
        return out.model_copy(update={"at_end": at(ph["end_index"]).at_end()}) if "end_index" in ph else out

    step = at(rep["peak_index"])
    backward_phase = rep["phases"].get(Phase.BACKWARD)
    return step_attribution(
        AttributionSource.CUDA_SNAPSHOT,
        step,
        StepFigures(
            events=rep["events"],
            start_bytes=rep["start_bytes"],
            peak_bytes=rep["peak_bytes"],
            peak_phase=_phase_at(rep["peak_index"], rep["phases"]),
            phases={name: phase(ph) for name, ph in rep["phases"].items()},
            measured=["block sizes and allocation stacks (allocator history)", "peak moments (trace replay)"],
            inferred=[
                "saved-for-backward / graph-output / temporary: stack line -> output-code statement -> returned position",
                "which layer: the k-th allocation from an output-code line is the k-th call of that graph",
            ],
        ),
    ), (backward(backward_phase) if backward_phase else None)


def call_ordinals(snap: dict, classifier: Classifier) -> dict[int, int]:
    """Trace index -> which call of its graph made it: the allocations from each output-code
    line are numbered in trace order, the k-th being the k-th call of that graph."""
    ordinals: dict[tuple, int] = defaultdict(int)
    ordinal_of_index: dict[int, int] = {}
    trace = trace_events(snap, None)
    # the report's graph calls are the measured step's: count from its first phase marker (the history
    # before it holds earlier steps' calls of the same graphs), as replay() found them
    first = min(_known_markers(snap, None), default=0)
    for i in range(first, len(trace)):
        ev = trace[i]
        if ev.get("action") != "alloc":
            continue
        key = classifier.code_frame(ev)
        if key is not None:
            ordinal_of_index[i] = ordinals[key]
            ordinals[key] += 1
    return ordinal_of_index


def _phase_at(index: int, phases: dict[str, dict]) -> str | None:
    for name, ph in phases.items():
        if ph["start_index"] <= index <= ph.get("end_index", index):
            return name
    return None
