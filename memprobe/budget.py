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
from datetime import UTC
from pathlib import Path

from .analysis.diff import step_saved_bytes
from .analysis.verdict import limit_name
from .config import ProbeConfig
from .errors import ConfigError, MemprobeError
from .rundir import schema as S
from .rundir.read import digits, kind_of, out_of_range, read_text
from .targets import SELECTORS
from .vocab import DeviceType, DiffStatus, Metric, Phase, SavedKind, Verdict

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
    metric: str
    kind: str  # "absolute" | "relative"
    device: str | None  # None: any device; "cpu"/"cuda": measured there
    value: float  # bytes, or a fraction for relative limits
    line: int | None = None
    text: str = ""
    optional: bool = False  # a missing figure is a SKIP, not a failure


@dataclass
class Probe:
    name: str
    config: ProbeConfig
    limits: list[Limit] = field(default_factory=list)
    line: int | None = None


@dataclass
class Budget:
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
            from .policies import resolve_ops as check_ops

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
            return Limit(metric, "relative", None, parse_relative(value), line, str(value))
        return Limit(metric, "absolute", section, parse_size(value), line, str(value))
    except ValueError as e:
        raise BudgetError(f"{loc}: {e}") from None


def figures(report: S.Report) -> dict[str, int | None]:
    """The gate's metrics for one run report (bytes; None when the run lacks the figure)."""
    graphs = [g.peak_bytes for g in report.graph_memory or [] if g.peak_bytes is not None]
    phases = (report.memory.phases if report.memory else None) or {}
    out: dict[str, int | None] = {
        "saved_bytes": step_saved_bytes(report),
        "weight_derived_saved_bytes": _weight_derived_bytes(report),
        "graph_peak_bytes": max(graphs) if graphs else None,
    }
    for phase in Phase:
        out[f"{phase}_peak_bytes"] = phases[phase].peak_bytes if phase in phases else None
    out["forward_end_bytes"] = phases[Phase.FORWARD].end_bytes if Phase.FORWARD in phases else None
    peaks = [p.peak_bytes for p in phases.values()]
    out["step_peak_bytes"] = max(peaks) if peaks else None
    return out


def _weight_derived_bytes(report: S.Report) -> int | None:
    """What a run saves that is derived from weights: 0 when it saved nothing; None without a saved table."""
    rows = report.saved_tensors
    if rows:
        return sum(r.bytes for r in rows if r.kind == SavedKind.WEIGHT_DERIVED)
    return 0 if report.saved_totals else None


def evaluate(probe: Probe, report: S.Report, baseline: S.BaselineProbe | None) -> list[dict]:
    """One verdict per limit: PASS, FAIL or SKIP, with measured, limit and headroom in bytes."""
    device = report.device.type
    figs = figures(report)
    return [_verdict(probe.name, lim, figs.get(lim.metric), device, report, baseline) for lim in probe.limits]


def _verdict(name: str, lim: Limit, measured: int | None, device, report: S.Report, baseline: S.BaselineProbe | None) -> dict:
    v = {
        "probe": name,
        "name": limit_name(lim.metric, lim.kind, lim.device),
        "metric": lim.metric,
        "device": lim.device,
        "kind": lim.kind,
        "limit_text": lim.text,
        "line": lim.line,
        "measured": measured,
    }
    if lim.device is not None and lim.device != device:
        v.update(
            verdict=Verdict.SKIP, limit=int(lim.value), headroom=None, notice=f"limit for {lim.device}; this run was on {device}"
        )
    elif measured is None:  # fails closed: a limit that cannot be checked never passes
        v.update(limit=None, headroom=None, **_missing(lim, f"the run has no {lim.metric} figure"))
    elif lim.kind == "relative":
        flag = baseline_mismatch(baseline, report) if baseline else "no baseline stored (run with --update-baseline)"
        base = ((baseline.figures if baseline else None) or {}).get(lim.metric)
        if flag is None and base is None:
            v.update(limit=None, headroom=None, **_missing(lim, f"the baseline has no {lim.metric} figure"))
        elif flag is not None:
            v.update(verdict=Verdict.SKIP, limit=None, headroom=None, notice=flag)
        else:
            limit = int(base * (1 + lim.value))
            v.update(
                limit=limit, baseline=base, headroom=limit - measured, verdict=Verdict.PASS if measured <= limit else Verdict.FAIL
            )
    else:
        limit = int(lim.value)
        v.update(limit=limit, headroom=limit - measured, verdict=Verdict.PASS if measured <= limit else Verdict.FAIL)
    return v


def _missing(lim: Limit, why: str) -> dict:
    """The verdict on a limit whose figure is missing: FAIL, or SKIP when the budget marks it optional."""
    name = limit_name(lim.metric, lim.kind, lim.device)
    if lim.optional:
        return {"verdict": Verdict.SKIP, "notice": f"{why} (optional)"}
    return {"verdict": Verdict.FAIL, "notice": f"{why}; a limit that cannot be checked fails (optional = [{name!r}] skips it)"}


def baseline_mismatch(baseline: S.BaselineProbe, report: S.Report) -> str | None:
    """Why a baseline must not be compared with this run, or None."""
    bd, rd = baseline.device, report.device.type
    if bd != rd:
        return f"baseline recorded on {bd}, this run on {rd}: not compared"
    for k in ("torch", "torchao"):
        b, r = getattr(baseline.versions, k, None), getattr(report.versions, k, None)
        if b != r:
            return f"baseline recorded with {k} {b}, this run has {r}: not compared"
    return None


BASELINE_VERSION = 1


def baseline_entry(report: S.Report) -> S.BaselineProbe:
    """What --update-baseline stores for one probe: its figures, versions and device, and the
    parts of the report a diff needs (so a later breach can be explained against it)."""
    from datetime import datetime

    mem, att, v = report.memory, report.attribution, report.versions
    return S.BaselineProbe(
        created_utc=datetime.now(UTC).isoformat(timespec="seconds"),
        figures=figures(report),
        versions=S.BaselineVersions(torch=v.torch, torchao=v.torchao, memprobe=v.memprobe, device_name=v.device_name),
        device=report.device.type,
        report=S.BaselineReport(
            config=S.Config.model_validate(report.config.probe().to_dict()),
            device=report.device,
            versions=report.versions,
            status=report.status,
            saved_tensors=report.saved_tensors,
            saved_totals=report.saved_totals,
            saved_outside=report.saved_outside,
            compile_coverage=report.compile_coverage,
            graph_memory=[
                S.BaselineGraphMemory(graph_id=g.graph_id, kind=g.kind, peak_bytes=g.peak_bytes, saved_bytes=g.saved_bytes)
                for g in report.graph_memory or []
            ],
            memory=S.BaselineMemory(
                source=mem.source if mem else None, baseline=mem.baseline if mem else None, phases=mem.phases if mem else None
            ),
            attribution=S.BaselineAttribution(
                source=att.source,
                phases={
                    p: S.BaselineAttributionPhase(by_category_bytes=x.by_category_bytes) for p, x in (att.phases or {}).items()
                },
            )
            if att
            else None,
        ),
    )


def load_baseline(path: Path) -> S.Baseline:
    """The stored baseline (checked like every file memprobe reads), or an empty one if there is none."""
    from .rundir import load
    from .rundir.read import kind_of

    if kind_of(path) == "missing":
        return S.Baseline(memprobe_baseline=BASELINE_VERSION, probes={})
    try:
        return load.load_baseline(path)
    except MemprobeError as e:
        raise BudgetError(str(e)) from None


def _names(item) -> list[str]:
    """A saved value's names: the user's terms (``silu(layers.*.ffn.w1)``) and the op chain when it differs."""
    from .analysis.saved import value_names

    return [n for n in value_names(item) if n]


def _named(item) -> str:
    names = _names(item)
    return names[0] if len(names) == 1 else f"{names[0]} [{names[1]}]"


def explain_breach(report: S.Report, entry: S.BaselineProbe | None) -> dict:
    """Why a probe breached its budget: the diff against its stored baseline when it is comparable,
    else the largest saved values and findings. ``exprs`` are the saved values named in ``lines``
    (a renderer sets them as code)."""
    if entry is not None and entry.report and baseline_mismatch(entry, report) is None:
        return _against_baseline(report, entry.report)
    from .analysis.saved import MODULE_STATE, group_rows
    from .units import fmt_bytes

    findings = report.findings[:3]
    lines = [f.message + (f" Fix: {f.fix}." if f.fix else "") for f in findings]  # the fix as the verdict says it
    exprs = [f.expr for f in findings if f.expr]
    for g in group_rows([r for r in report.saved_tensors if r.kind not in MODULE_STATE])[:5]:
        lines.append(f"{_named(g)} x{g.count}: {fmt_bytes(g.bytes)} ({g.kind}; {g.reason})")
        exprs += _names(g)
    return {
        "headline": "No comparable baseline; the largest saved-for-backward values and findings:",
        "lines": lines,
        "exprs": list(dict.fromkeys(exprs)),
    }


# how a value that grew against the baseline is said to have grown
_GREW = {DiffStatus.ONLY_B: "new", DiffStatus.GROWN: DiffStatus.GROWN.value}


def _against_baseline(report: S.Report, baseline: S.BaselineReport) -> dict:
    """A breach explained by the diff against the stored baseline's report: the values that are new or grew."""
    from .analysis.diff import diff_reports
    from .units import fmt_bytes

    d = diff_reports(baseline, report)
    delta = (d.totals.step_saved_bytes or d.totals.saved_bytes).delta  # the gate's saved_bytes: outside counted
    items = [it for it in d.items if it.status in _GREW][:5]
    sign = "+" if (delta or 0) >= 0 else ""
    return {
        "headline": f"Against the baseline it saves {sign}{fmt_bytes(delta)} for backward per step:",
        "lines": [_grown_line(it) for it in items]
        or ["no saved value grew; the breach is in measured memory outside the saved values"],
        "exprs": [x for it in items for x in _names(it)],
    }


def _grown_line(it: S.DiffItem) -> str:
    """One value that is new or grew against the baseline: its name, how much, why, and the hint (for this run)."""
    from .units import fmt_bytes

    hint = (it.hint or "").replace("B's", "this run's").replace(" in B ", " here ")
    sign = "+" if it.delta_bytes > 0 else ""
    return f"{_named(it)} x{it.count}: {sign}{fmt_bytes(it.delta_bytes)} ({_GREW[it.status]}; {it.reason}). Hint: {hint}"


# -- writing a budget (memprobe budget) ------------------------------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else toml_value(key)


def toml_value(value) -> str:
    """A TOML value for a string, bool, int, finite float or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"TOML has no value for {value!r} here")
        return repr(value)
    if isinstance(value, str):
        out = []
        for ch in value:
            if ch in '\\"':
                out.append("\\" + ch)
            elif ch < " " or ch == "\x7f":
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def size_text(n: int, headroom: float) -> str:
    """Bytes with headroom, rounded up to 0.01 MiB, as a budget-file size."""
    import math

    mib = math.ceil(n * (1 + headroom) / 1024**2 * 100) / 100
    return f"{mib:.2f} MiB"


def budget_text(name: str, cfg: ProbeConfig, report: S.Report, headroom: float, headroom_text: str, relative: str) -> str:
    """A starter memprobe.toml for one probe: its flags, and limits with headroom over this run's figures."""
    figs = figures(report)
    device = report.device.type
    v = report.versions
    defaults = ProbeConfig().to_dict()
    t = ("probes", name)
    header = ".".join(toml_key(k) for k in t)
    lines = [
        f"# memprobe budget, written by `memprobe budget` from a {device} run",
        f"# ({v.device_name}, torch {v.torch}, torchao {v.torchao})",
        f"# with {headroom_text} headroom over the measured figures. Reference: docs/gate.md",
        "",
        f"[{header}]",
    ]
    for key, value in cfg.to_dict().items():
        if value != defaults[key] or (key == "recipe" and not cfg.target.runs_itself):
            lines.append(f"{key} = {toml_value(value)}")
    lines += ["", f"[{header}.limits]", f"saved_bytes = {toml_value(size_text(figs['saved_bytes'], headroom))}"]
    wd = figs["weight_derived_saved_bytes"] or 0
    lines.append(
        "weight_derived_saved_bytes = 0  # none measured: forbid them"
        if wd == 0
        else f"weight_derived_saved_bytes = {toml_value(size_text(wd, headroom))}"
    )
    if figs["graph_peak_bytes"] is not None:
        lines.append(f"graph_peak_bytes = {toml_value(size_text(figs['graph_peak_bytes'], headroom))}")
    lines += ["", f"[{header}.limits.{device}]"]
    for metric in ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes"):
        if figs.get(metric) is not None:
            lines.append(f"{metric} = {toml_value(size_text(figs[metric], headroom))}")
    lines += ["", f"[{header}.limits.baseline]", f"saved_bytes = {toml_value(relative)}", ""]
    return "\n".join(lines)
