"""The memory budget file (``memprobe.toml``) and its evaluation against runs.

::

    [probes.ffn-rowwise]              # a named probe: memprobe run flags as keys
    recipe = "rowwise"
    layers = 2
    ac_policy = "torchtitan"

    [probes.ffn-rowwise.limits]       # device-independent (derived from the compiled graphs)
    saved_bytes = "24 MiB"
    weight_derived_saved_bytes = 0    # 0 forbids them
    graph_peak_bytes = "16 MiB"

    [probes.ffn-rowwise.limits.cpu]   # measured on the CPU (profiler); skipped on CUDA runs
    forward_peak_bytes = "48 MiB"

    [probes.ffn-rowwise.limits.cuda]  # measured on CUDA (allocator); skipped on CPU runs
    forward_peak_bytes = "6 GiB"

    [probes.ffn-rowwise.limits.baseline]   # relative to the stored baseline
    saved_bytes = "+5%"

Sizes are ``"24 MiB"``, ``"1.5 GiB"``, ``"512 KB"`` or plain integers of bytes.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.verdict import limit_name
from ..config import ProbeConfig
from ..errors import ConfigError, MemprobeError
from ..rundir.read import digits, kind_of, out_of_range, read_text
from ..targets import SELECTORS
from ..vocab import DeviceType, LimitKind, Metric
from .toml import toml_value

# the figures a limit may name (each one's meaning: its .doc), derived from the graphs or measured
GRAPH_METRICS = {m: m.doc for m in (Metric.SAVED_BYTES, Metric.WEIGHT_DERIVED_SAVED_BYTES, Metric.GRAPH_PEAK_BYTES)}
MEASURED_METRICS = {m: m.doc for m in Metric if m not in GRAPH_METRICS}
DEVICES = tuple(DeviceType)
ALL_METRICS = {**GRAPH_METRICS, **MEASURED_METRICS}


class BudgetError(MemprobeError):
    """An invalid budget file: exit 2, naming the file and line."""

    exit_code = 2


_UNITS = {
    "b": 1,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
}
# ASCII digits only: float() reads other scripts' digits too ("١٢ MiB"), which a budget file has no use for
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$", re.ASCII)
MAX_SIZE = 2**63  # bytes: 8 EiB
MAX_RELATIVE = 1000.0  # +100000% over the baseline
# a probe's name becomes the name of its run directory under the gate's --out: one plain word
PROBE_NAME = re.compile(r"[^\W_][\w-]{0,99}")  # whole: PROBE_NAME.fullmatch(name)
_RELATIVE = re.compile(r"^\s*\+\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*$", re.ASCII)


def parse_size(value) -> int:
    """``"24 MiB"`` / ``"1.5 GiB"`` / ``1048576`` -> bytes; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a size cannot be negative: {value}")
        if value > MAX_SIZE:
            raise ValueError(f"a size of at most 2**63 bytes (8 EiB), not an integer of {digits(value)} digits")
        return value
    if not isinstance(value, str):
        raise ValueError(f"not a size: {value!r}")
    m = _SIZE.match(value)
    if not m:
        raise ValueError(f'not a size: {value!r} (use e.g. "24 MiB", "1.5 GiB" or bytes)')
    number, unit = m.group(1), (m.group(2) or "b").lower()
    if unit not in _UNITS:
        raise ValueError(f"unknown unit {m.group(2)!r} in {value!r} (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)")
    n = float(number) * _UNITS[unit]
    if not math.isfinite(n) or n > MAX_SIZE:
        raise ValueError(f"a size of at most 2**63 bytes (8 EiB), not {_short(value)}")
    if n != int(n) and unit == "b":
        raise ValueError(f"a byte count must be whole: {value!r}")
    return int(round(n))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_relative(value) -> float:
    """``"+5%"`` -> 0.05."""
    m = _RELATIVE.match(value) if isinstance(value, str) else None
    if not m:
        raise ValueError(f'a baseline limit is a percentage like "+5%", not {_short(value)}')
    fraction = float(m.group(1)) / 100
    if not fraction <= MAX_RELATIVE:
        raise ValueError(f"a baseline limit of at most +{MAX_RELATIVE * 100:.0f}%, not {_short(value)}")
    return fraction


@dataclass
class Limit:
    """One limit of a probe: the figure it bounds, how it is given, and where the file gives it."""

    metric: Metric
    kind: LimitKind
    device: DeviceType | None  # None: any device; cpu or cuda: measured there ([limits.cpu], [limits.cuda])
    value: float  # bytes, or the share above the baseline's figure for a relative limit
    line: int | None = None
    text: str = ""  # as the file writes it ("8 MiB", "+5%")
    optional: bool = False  # a missing figure is a SKIP, not a failure


@dataclass
class Probe:
    """A ``[probes.NAME]`` table: the configuration its run takes, and its limits."""

    name: str
    config: ProbeConfig
    limits: list[Limit] = field(default_factory=list)
    line: int | None = None


@dataclass
class Budget:
    """A budget file, read and checked: its probes by name, in the file's order."""

    path: Path
    probes: dict[str, Probe]


_KEY_PART = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))\s*(?:\.|$)')


def _dotted(text: str) -> tuple | None:
    """A TOML dotted key as its parts (``probes."a.b".limits`` -> ``("probes", "a.b", "limits")``), or None."""
    parts, pos = [], 0
    while pos < len(text):
        m = _KEY_PART.match(text, pos)
        if not m or m.end() == pos:
            return None
        parts.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
    return tuple(parts) or None


def _line_index(text: str) -> dict[tuple, int]:
    """(table path, key) -> line number, for naming the line of a semantic error."""
    index: dict[tuple, int] = {}
    table: tuple = ()
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()  # plain string operations: no regular expression that backtracks over a long line
        if line.startswith("[") and not line.startswith("[[") and "]" in line:
            table = _dotted(line[1 : line.rindex("]")].strip()) or ()
            index.setdefault((table, None), no)
            continue
        key = _dotted(line.partition("=")[0].strip()) if "=" in line else None
        if key:
            index.setdefault((table + key[:-1], key[-1]), no)
    return index


def _where(path: Path, lines: dict, table: tuple, key: str | None = None) -> str:
    """``file:line`` of a key: its line, or the header of a sub-table of that name, or the table's own header."""
    no = lines.get((table, key)) or lines.get((table + (key,), None)) or lines.get((table, None))
    return f"{path}:{no}" if no else str(path)


def load_budget(path: str | Path, *, resolve_ops: bool = True) -> Budget:
    """The budget file, checked: its probes' configurations as `memprobe run` would take them (op names
    resolved against the installed torch unless ``resolve_ops`` is false), its limits by metric."""
    path = Path(path)
    text, data = _read_toml(path)
    where = _Lines(path, text)
    bad = out_of_range(data, floats=False)  # a float that is not finite is the configuration's to name
    if bad is not None:
        *table, key = bad[0].split("[")[0].split(".")
        raise BudgetError(f"{where(tuple(table), key)}: {bad[0]}: {bad[1]}")
    unknown_top = [k for k in data if k != "probes"]
    if unknown_top:
        raise BudgetError(f"{where((), unknown_top[0])}: unknown key {unknown_top[0]!r} (the file holds [probes.NAME] tables)")
    probes_data = data.get("probes")
    if not isinstance(probes_data, dict) or not probes_data:
        raise BudgetError(f"{path}: no probes: add a [probes.NAME] table")
    return Budget(path, {name: _probe(name, body, where, resolve_ops) for name, body in probes_data.items()})


def _read_toml(path: Path) -> tuple[str, dict]:
    """The budget file's text and data: a regular file of at most 1 MiB, never waited on (a FIFO is refused)."""
    if kind_of(path) == "missing":
        raise BudgetError(f"{path}: no such budget file (write one with `memprobe budget`)")
    try:
        text = read_text(path, str(path), kind="budget", follow=True)
    except MemprobeError as e:
        raise BudgetError(str(e)) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BudgetError(f"{path}: TOML syntax error: {e}") from None
    except RecursionError:
        raise BudgetError(f"{path}: TOML nested too deep") from None
    except ValueError as e:  # an integer of more than 4,300 digits
        raise BudgetError(f"{path}: a value TOML cannot hold here ({' '.join(str(e).split())[:120]})") from None


class _Lines:
    """Where a key of the budget file is: ``where(table, key)`` is its ``file:line``; ``line(table, key)`` its line."""

    def __init__(self, path: Path, text: str):
        self.path, self.lines = path, _line_index(text)

    def __call__(self, table: tuple, key: str | None = None) -> str:
        return _where(self.path, self.lines, table, key)

    def line(self, table: tuple, key: str | None = None) -> int | None:
        return self.lines.get((table, key))


def _probe(name: str, body, where: _Lines, resolve_ops: bool) -> Probe:
    """One ``[probes.NAME]`` table: its configuration and its limits."""
    t = ("probes", name)
    if not PROBE_NAME.fullmatch(name):
        raise BudgetError(
            f"{where(('probes',), name)}: probe name {_short(name)}: one word of letters, digits, - and _"
            " (it names the probe's run directory)"
        )
    if not isinstance(body, dict):
        raise BudgetError(f"{where(('probes',), name)}: probes.{name} must be a table")
    limits_data = body.get("limits", {})
    probe = Probe(name, _probe_config(name, body, where, resolve_ops), line=where.line(t))
    if not isinstance(limits_data, dict) or not limits_data:
        raise BudgetError(f"{where(t)}: probe {name!r} has no limits (add [probes.{name}.limits])")
    _add_limits(probe, limits_data, where)
    if not probe.limits:
        raise BudgetError(f"{where(t)}: probe {name!r} has no limits (add [probes.{name}.limits])")
    return probe


def _probe_config(name: str, body: dict, where: _Lines, resolve_ops: bool) -> ProbeConfig:
    """A probe's configuration: its table's keys but ``limits``, checked (and its ops resolved, ``resolve_ops``)."""
    cfg_keys = {k: v for k, v in body.items() if k != "limits"}
    empty = [k for k in SELECTORS if k in cfg_keys and cfg_keys[k] in ([], "")]
    if empty:  # given, but empty: the probe would build the default repro instead, silently
        raise BudgetError(
            f"{where(('probes', name), empty[0])}: probe {name!r}: {empty[0]} = {toml_value(cfg_keys[empty[0]])} names "
            f'nothing to probe: name it (command = ["python", "train.py"], model = "m.py:build") or leave the key out'
        )
    try:
        cfg = ProbeConfig.from_dict(cfg_keys)
        if resolve_ops:
            from ..policies import resolve_ops as check_ops

            check_ops(cfg_keys)
    except ConfigError as e:
        raise BudgetError(f"{where(('probes', name), e.field if e.field in cfg_keys else None)}: probe {name!r}: {e}") from None
    return cfg


def _add_limits(probe: Probe, limits_data: dict, where: _Lines) -> None:
    """The limits of ``[probes.NAME.limits]`` and its sections (cpu, cuda, baseline), added to ``probe``, and those
    it names optional marked."""
    lt = ("probes", probe.name, "limits")
    for key, value in limits_data.items():
        if key == OPTIONAL:
            continue
        if not isinstance(value, dict):
            probe.limits.append(_limit(key, value, None, where(lt, key), where.line(lt, key)))
            continue
        if key not in DEVICES + ("baseline",):
            raise BudgetError(f"{where(lt, key)}: unknown limits section {key!r} (cpu, cuda, baseline)")
        for metric, v in value.items():
            probe.limits.append(_limit(metric, v, key, where(lt + (key,), metric), where.line(lt + (key,), metric)))
    _mark_optional(probe, limits_data.get(OPTIONAL, []), where(lt, OPTIONAL))


OPTIONAL = "optional"  # [probes.NAME.limits] optional = ["graph_peak_bytes", "cpu.forward_peak_bytes"]


def _mark_optional(probe: Probe, names, loc: str) -> None:
    """The limits the budget lets pass as SKIP when the run has no figure for them."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BudgetError(f'{loc}: optional is a list of limit names, like ["graph_peak_bytes", "cpu.forward_peak_bytes"]')
    by_name = {limit_name(lim.metric, lim.kind, lim.device): lim for lim in probe.limits}
    for n in names:
        if n not in by_name:
            raise BudgetError(
                f"{loc}: optional names {_short(n)}, which is no limit of probe {probe.name!r} ({', '.join(by_name)})"
            )
        by_name[n].optional = True


def _limit(metric: str, value, section: str | None, loc: str, line: int | None) -> Limit:
    if metric not in ALL_METRICS:
        raise BudgetError(f"{loc}: unknown metric {metric!r} (one of: {', '.join(ALL_METRICS)})")
    if section is None and metric in MEASURED_METRICS:
        raise BudgetError(f"{loc}: {metric} is measured: put it under limits.cpu or limits.cuda")
    if section in DEVICES and metric not in MEASURED_METRICS:
        raise BudgetError(f"{loc}: {metric} is derived from the graphs, not measured: put it directly under limits")
    try:
        if section == "baseline":
            return Limit(Metric(metric), LimitKind.RELATIVE, None, parse_relative(value), line, str(value))
        device = DeviceType(section) if section is not None else None
        return Limit(Metric(metric), LimitKind.ABSOLUTE, device, parse_size(value), line, str(value))
    except ValueError as e:
        raise BudgetError(f"{loc}: {e}") from None
