"""A recorded run, or both sides of a diff, as one standalone Python script that reproduces it without memprobe
(``memprobe repro``): the model at its recorded sizes (a repro's source inlined, a Hugging Face config.json written
out, or the user's own model file imported by the path the run named), torchtitan's stack as the run applied it
(float8, activation checkpointing with its SAC save list written out, per-block torch.compile, FSDP2 on one process
or rank 0 of a fake world), the recorded steps, and a measurement of what autograd saves for backward in the last step
(``torch.autograd.graph.saved_tensors_hooks``: each storage once, parameters apart) and, on CUDA, of its peak.

The figures the script compares itself with (``--check``) are the run's own: saved for backward is what the compiled
graphs held at run time (``saved_totals.runtime_bytes``) plus what autograd saved outside them
(``saved_outside.total_bytes``): the two together are every tensor a pack hook sees in the measured forward and loss.

Rendering only: nothing is run or imported of what a record names. A recorded string reaches the script only as a
string literal (JSON-escaped) or a comment line (:func:`memprobe.text.py_text`); an op of the save list only once its
name has the form of one.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..config import ProbeConfig
from ..errors import ConfigError, RunDirError
from ..policies import normalize_op_name
from ..rundir import schema as S
from ..targets.base import ModelSource, literal
from ..text import py_text
from ..vocab import ChangeKind, DeviceType, MemorySource, PolicyDefault, Recipe, RunMode, RunStatus
from .repro_code import MAIN_APART, MAIN_RUN, MAIN_TOGETHER, MEASURE, stack_code


@dataclass(frozen=True)
class Side:
    """What one configuration of the script is: its run, its configuration, its model as source."""

    key: str  # "a" or "b" of a diff; "" for a run
    report: S.Report
    cfg: ProbeConfig
    model: ModelSource
    where: str  # the run directory, for errors


def side_of(report: S.Report, where: str, key: str = "") -> Side:
    """A recorded run as a side of a script; ConfigError (or RunDirError) naming what a standalone script cannot
    reproduce of it."""
    cfg = report.config.probe()
    _check_writable(report, cfg, where)
    model = cfg.target.source(cfg.seed)
    return Side(key, report, cfg, model, where)


def _check_writable(report: S.Report, cfg: ProbeConfig, where: str) -> None:
    if cfg.target.reproduces_itself:
        raise ConfigError(f"{where} is a run of your own script: the script itself reproduces it; run it without memprobe")
    if report.status != RunStatus.COMPLETE or report.mode == RunMode.ANALYSIS_ONLY:
        how = report.status if report.status != RunStatus.COMPLETE else "analysis-only"
        raise RunDirError(
            f"{where} is a run that measured nothing at run time ({how}): a repro embeds the figures of a complete, full "
            "run; record one with memprobe run"
        )
    if cfg.nproc > 1:
        raise ConfigError(
            f"{where} ran {cfg.nproc} ranks; a standalone script runs one process: record rank 0 of that world in one "
            f"process with --fake-world {cfg.nproc} and write the repro of that run"
        )
    if why := cfg.mode.unscriptable(cfg):
        raise ConfigError(f"{where} {why}")
    if report.float8 is not None and any(x.converted and len(x.weight_shape) == 3 for x in report.float8.linears):
        raise ConfigError(f"{where} trained grouped experts in float8 (torchao's MoE conversion): a repro does not write it yet")


def expected(report: S.Report, where: str) -> dict[str, int | None]:
    """What the run measured in its last step, as the script compares itself with it."""
    totals, outside = report.saved_totals, report.saved_outside
    compiled = totals.runtime_bytes if totals is not None else None
    if outside is None or (report.saved_tensors and compiled is None):
        raise RunDirError(
            f"{where} recorded no measured saved-for-backward figure (saved_totals.runtime_bytes and saved_outside, "
            "recorded by memprobe since it measures what autograd saves outside the compiled graphs): run it again"
        )
    parameters = (totals.parameter_runtime_bytes or 0) if totals is not None else 0
    peak = None
    memory = report.memory
    if memory is not None and memory.source == MemorySource.CUDA_ALLOCATOR and memory.phases:
        peak = max(p.peak_bytes for p in memory.phases.values())
    return {
        "saved_bytes": (compiled or 0) + outside.total_bytes,
        "parameter_bytes": parameters + outside.parameters_bytes,
        "peak_bytes": peak,
    }


# -- the header ------------------------------------------------------------------------------------------------------


def _libraries(sides: list[Side]) -> list[str]:
    libraries = ["torch"]
    if any(s.cfg.recipe != Recipe.BF16 for s in sides):
        libraries.append("torchao")
    for s in sides:
        libraries += [x for x in s.model.libraries if x not in libraries]
    return libraries


def _versions(report: S.Report, libraries: list[str]) -> dict[str, str | None]:
    versions = report.versions
    return {name: getattr(versions, name, None) for name in libraries}


def _versions_text(report: S.Report, libraries: list[str]) -> str:
    named = ", ".join(f"{k} {v}" for k, v in _versions(report, libraries).items() if v)
    versions = report.versions
    device = report.device.type or "?"
    on = f"{device} ({versions.device_name})" if versions.device_name else device
    return py_text(f"{named}, Python {versions.python or '?'}, on {on}")


def _command(report: S.Report) -> str:
    words = list(report.command or (report.process.command if report.process else []))
    if words and Path(words[0]).name in ("memprobe", "__main__.py"):
        words[0] = "memprobe"
    return py_text(shlex.join(words), limit=400) if words else "(not recorded)"


def stack_words(cfg: ProbeConfig) -> str:
    """The stack a configuration applies, in torchtitan's order, in words."""
    parts = [f"float8 {cfg.recipe} (torchao)" if cfg.recipe != Recipe.BF16 else "bf16 linears"]
    if words := cfg.mode.script_words(cfg):
        parts.append(words)
    parts.append("torch.compile per block" if cfg.compile else "eager")
    if cfg.fsdp:
        world = f"rank 0 of a fake world of {cfg.fake_world}" if cfg.fake_world else "one process"
        parts.append(f"FSDP2 per block and at the root ({world})" + ("" if cfg.reshard_after_forward else ", no reshard"))
    else:
        parts.append("no FSDP (the model cast to bf16)")
    return " -> ".join(parts)


def _figures_text(figures: dict[str, int | None], indent: str = "    ") -> list[str]:
    lines = [
        f"{indent}saved for backward: {figures['saved_bytes']:,} bytes (each storage once; parameters apart: "
        f"{figures['parameter_bytes']:,} bytes)"
    ]
    if figures["peak_bytes"] is not None:
        lines.append(f"{indent}peak of the step: {figures['peak_bytes']:,} bytes (torch.cuda.max_memory_allocated)")
    return lines


def _model_lines(sides: list[Side], libraries: list[str]) -> list[str]:
    lines = [f"It needs {', '.join(libraries)}; nothing else."]
    runs = sorted({f for s in sides for f in s.model.runs_files})
    if runs:
        lines.append(
            "It imports and runs your model's code, "
            + py_text(", ".join(runs))
            + ", as the run named it (a path relative to where you run this script):"
        )
        lines.append("your own code, run with your rights when you run this script; it is not copied here.")
    return lines


def _run_header(side: Side, out_name: str) -> str:
    libraries = _libraries([side])
    lines = [
        "Reproduces what autograd saves for backward in one training step, with torch alone.",
        "",
        f"The model: {py_text(side.model.about)}.",
        "The stack, in torchtitan's order: " + py_text(stack_words(side.cfg)) + ".",
        f"The run trained {side.cfg.steps} steps; the last is measured.",
        "",
        f"Recorded with {_versions_text(side.report, libraries)}, by:",
        f"    {_command(side.report)}",
        "That run measured in its last step:",
        *_figures_text(expected(side.report, side.where)),
        "",
        f"    python {out_name}            prints the figures this torch gives",
        f"    python {out_name} --check    and exits 1 unless they equal the recorded ones",
        "",
        *_model_lines([side], libraries),
    ]
    return _docstring(lines)


def _docstring(lines: list[str]) -> str:
    """The header: prose wrapped at 110 characters (a line indented by four spaces, a command, kept whole)."""
    import textwrap

    wrapped = [line if line.startswith("    ") or len(line) <= 110 else textwrap.fill(line, 110) for line in lines]
    return '"""' + "\n".join(wrapped).rstrip() + '\n"""\n'


# -- the code --------------------------------------------------------------------------------------------------------


def _settings(side: Side) -> dict:
    cfg = side.cfg
    settings: dict = {
        "device": str(side.report.device.type or DeviceType.CPU),
        "blocks": _blocks(side),
        "float8": None if cfg.recipe == Recipe.BF16 else cfg.recipe,
        "ac": cfg.ac,
    }
    if cfg.mode.policy:
        settings.update(_policy_settings(side))
    settings.update(cfg.mode.script_settings(cfg))
    settings.update(
        compile=cfg.compile,
        fsdp=cfg.fsdp,
        reshard_after_forward=cfg.reshard_after_forward,
        fake_world=cfg.fake_world,
        steps=cfg.steps,
        lr=cfg.lr,
    )
    return settings


def _blocks(side: Side) -> str:
    """The block container's attribute path, as the run found it (what it built is recorded: ``model``)."""
    shape = side.report.model
    return shape.blocks_attr if shape and shape.blocks_attr else side.cfg.blocks or "layers"


class Code(str):
    """Python source written as it is into the settings (an op, not a string)."""

    def __repr__(self) -> str:
        return str(self)


def _op(name: str, where: str) -> Code:
    try:
        ns, op, overload = normalize_op_name(name).split(".")
    except ConfigError as e:
        raise RunDirError(f"{where}: policy: {e}") from None
    return Code(f"torch.ops.{ns}.{op}.{overload}")


def _policy_settings(side: Side) -> dict:
    policy = side.report.policy
    if policy is None:
        policy = S.Policy.model_validate(side.cfg.policy().to_dict())
    where = f"{side.where}/report.json"
    if policy.default == PolicyDefault.SAVE:
        return {"recompute_list": [_op(o, where) for o in policy.recompute_ops]}
    return {
        "save_list": [_op(o, where) for o in policy.save_ops],
        "mm_every_second_recomputed": bool(policy.mm_every_second_recomputed),
    }


_COMMENTS = {
    "device": "where it trains",
    "blocks": "the container whose children are checkpointed, compiled and sharded one by one",
    "float8": "torchao float8 training of the linears, by recipe (None: bf16)",
    "ac": 'activation checkpointing per block: "none", "full", "op" (per-op SAC) or "memory-budget"',
    "save_list": "per-op SAC: the ops whose outputs are saved; every other op is recomputed in backward",
    "recompute_list": "per-op SAC: every op's output is saved but these ops'",
    "mm_every_second_recomputed": "torchtitan's rule: every second aten.mm of a block is recomputed",
    "memory_budget": "the compiler partitioner's activation memory budget (0: recompute what it can, 1: save)",
    "compile": "torch.compile each block (fullgraph)",
    "fsdp": "FSDP2 per block and at the root, bf16 parameters, fp32 reductions (False: the model cast to bf16)",
    "reshard_after_forward": "FSDP2 frees the unsharded parameters after forward",
    "fake_world": "rank 0 of a world of this many ranks over the fake process group (0: a world of one)",
    "steps": "the first compiles, the last is measured",
    "lr": "AdamW's learning rate",
}


def _settings_literal(settings: dict, indent: int = 0, first: str | None = None) -> str:
    """A settings dict, one key a line with what it means (``first``: a line before them, ``**COMMON``)."""
    pad = " " * (indent + 4)
    lines = [f"{pad}{first},"] if first else []
    for key, value in settings.items():
        text = literal(value, indent + 4) if not isinstance(value, list) else _list_literal(value, indent + 4)
        lines.append(f"{pad}{json.dumps(key)}: {text},  # {_COMMENTS[key]}")
    return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"


def _diff_settings(sides: list[Side]) -> str:
    """Both sides' settings: what they share once (``COMMON``), then each side's own: where they differ at a glance."""
    each = [_settings(s) for s in sides]
    keys = list(dict.fromkeys(k for e in each for k in e))
    common = {k: each[0][k] for k in keys if all(k in e and e[k] == each[0][k] for e in each)}
    own = [{k: v for k, v in e.items() if k not in common} for e in each]
    rows = "".join(f'    "{s.key}": {_settings_literal(o, 4, first="**COMMON")},\n' for s, o in zip(sides, own))
    return (
        "# what both sides share\n"
        f"COMMON = {_settings_literal(common)}\n\n"
        "# each side: the shared settings, and its own\n"
        "SETTINGS = {\n" + rows + "}"
    )


def _list_literal(values: list, indent: int) -> str:
    pad = " " * (indent + 4)
    return "[\n" + "".join(f"{pad}{v!r},\n" for v in values) + " " * indent + "]"


def _imports(sides: list[Side], extra: tuple[str, ...]) -> str:
    """The import lines as ruff's default isort writes them: the standard library, then the third-party libraries;
    ``import a.b as b`` as ``from a import b``; a line over 88 characters wrapped, one name a line."""
    lines = {_from_form(line) for line in set(extra) | {line for s in sides for line in s.model.imports}}
    third = ("torch", "torchao", "transformers")

    def section(line: str) -> int:
        return int(line.split()[1].split(".")[0] in third)

    def order(line: str):
        return (section(line), line.startswith("from "), line.split()[1].lower(), line)

    out, last = [], None
    for line in sorted(lines, key=order):
        if last is not None and section(line) != last:
            out.append("")
        out.append(_wrapped(line))
        last = section(line)
    return "from __future__ import annotations\n\n" + "\n".join(out) + "\n"


def _from_form(line: str) -> str:
    words = line.split()
    if len(words) == 4 and words[0] == "import" and words[2] == "as" and words[1].rpartition(".")[2] == words[3]:
        module, _, name = words[1].rpartition(".")
        return f"from {module} import {name}"
    return line


def _wrapped(line: str) -> str:
    if len(line) <= 88 or not line.startswith("from "):
        return line
    head, _, names = line.partition(" import ")
    return f"{head} import (\n" + "".join(f"    {n.strip()},\n" for n in names.split(",")) + ")"


def _build_function(name: str, model: ModelSource) -> str:
    body = "\n".join(f"    {line}" for line in model.build)
    doc = "The model in fp32 on ``device``, and the batch ``model(*batch)`` runs."
    return f'def {name}(device):\n    """{doc}"""\n{body}\n    return model, batch\n'


def _model_section(sides: list[Side], names: list[str]) -> str:
    """The model's definitions (once when the sides share them) and a build function per name."""
    definitions = []
    for s in sides:
        if s.model.definitions and s.model.definitions not in definitions:
            definitions.append(s.model.definitions)
    if len(definitions) > 1:
        raise ConfigError(
            f"the sides of {sides[0].where} build different models ({sides[0].model.about}; {sides[1].model.about}): "
            "write a repro of each side's run directory"
        )
    about = sides[0].model.about if len({s.model.about for s in sides}) == 1 else "one model per side"
    head = f"# -- the model: {py_text(about)} " + "-" * 10 + "\n\n"
    code = (definitions[0] + "\n\n\n") if definitions else ""
    builds = {name: _build_function(name, s.model) for s, name in zip(sides, names)}  # one when the sides share it
    return head + code + "\n\n".join(builds.values())


def _float8_skip(sides: list[Side]) -> tuple[str, ...]:
    skip: list[str] = []
    for s in sides:
        skip += [x for x in s.model.float8_skip if x not in skip]
    return tuple(skip)


def _features(sides: list[Side]) -> set[str]:
    """The parts of the stack some side uses: only their code is written."""
    used = set()
    for s in sides:
        c = s.cfg
        used |= {
            name
            for name, on in (
                ("float8", c.recipe != Recipe.BF16),
                (c.mode.script_step, c.mode.script_step is not None),  # full, op, budget: the mode's step
                ("save_all", c.mode.policy and c.policy().default == PolicyDefault.SAVE),
                ("compile", c.compile),
                ("fsdp", c.fsdp),
                ("cast", not c.fsdp),
                ("fake", bool(c.fake_world)),
            )
            if on
        }
    return used


def run_script(report: S.Report, where: str, out_name: str = "repro.py") -> str:
    """The standalone script of a recorded run."""
    side = side_of(report, where)
    features = _features([side])
    code, imports = stack_code(features, _float8_skip([side]))
    parts = [
        _run_header(side, out_name),
        _imports([side], imports),
        _model_section([side], ["build"]),
        "",
        "",
        "# -- the configuration as recorded " + "-" * 10,
        "",
        f"SETTINGS = {_settings_literal(_settings(side))}",
        "",
        "# what the recorded run measured in its last step, and the versions it ran with",
        f"EXPECTED = {literal(expected(report, where))}",
        f"RECORDED_WITH = {literal(_versions(report, _libraries([side])))}",
        "",
        code,
        MEASURE,
        MAIN_RUN,
    ]
    return "\n".join(parts)


# -- a diff ----------------------------------------------------------------------------------------------------------


def diff_together(change: S.Change | None, reports: dict[str, S.Report]) -> bool:
    """Whether both sides of a diff run from one interpreter: only their configuration differs (or nothing), and
    both ran with the same interpreter (sides of two interpreters with the same versions may still differ in what
    else they hold)."""
    same_python = len({_python(r) for r in reports.values()}) == 1
    return same_python and change is not None and change.kind in (ChangeKind.CONFIGURATION, ChangeKind.NONE)


def _minimized_lines(minimized: S.ReproMinimized | None) -> list[str]:
    if minimized is None:
        return []
    lines = [
        "",
        "Made smaller first (memprobe repro --minimize), each step checked to keep " + py_text(minimized.difference) + ",",
        "from the diff recorded by:",
        "    " + py_text(minimized.recorded_by, limit=400),
    ]
    lines += ["    as recorded:  A " + py_text(minimized.given.a), "                  B " + py_text(minimized.given.b)]
    lines += ["    minimal:      A " + py_text(minimized.minimal.a), "                  B " + py_text(minimized.minimal.b)]
    return lines


def _diff_header(diff: S.DiffResult, sides: list[Side], out_name: str, minimized: S.ReproMinimized | None) -> str:
    libraries = _libraries(sides)
    a, b = sides
    together = diff_together(diff.change, {s.key: s.report for s in sides})
    ea, eb = (expected(s.report, s.where) for s in sides)
    delta = eb["saved_bytes"] - ea["saved_bytes"]
    lines = [
        "Reproduces a difference in what autograd saves for backward in one training step, with torch alone.",
        "",
        f"The model: {py_text(a.model.about)}.",
        "What differs: " + py_text(diff.change.text if diff.change else "not recorded") + ".",
    ]
    for s in sides:
        lines.append(f"Side {s.key.upper()}: " + py_text(stack_words(s.cfg)) + ".")
        lines.append(f"    recorded with {_versions_text(s.report, libraries)}")
    lines += [f"Each side trains {a.cfg.steps} steps; the last is measured.", "", "Recorded by:", f"    {_command(a.report)}"]
    lines += _minimized_lines(minimized)
    differing = [item for item in diff.items if item.delta_bytes][:3]
    if differing:
        lines += ["", "B saves " + f"{delta:+,} bytes for backward against A; what differs most:"]
    else:  # no compiled graph's value differs (an A/A, a version that changed nothing, a change outside them)
        where = "outside the compiled graphs, whose values are the same" if delta else "no saved value differs"
        lines += ["", f"B saves {delta:+,} bytes for backward against A; {where}."]
    for item in differing:
        lines.append(f"    {item.delta_bytes:+,} bytes  " + py_text(item.label or item.expr, limit=200))
    for s, e in ((a, ea), (b, eb)):
        lines += [f"Side {s.key.upper()} measured:", *_figures_text(e)]
    lines.append("")
    if together:
        lines += [
            f"    python {out_name}               runs each side in a fresh process and exits 1 unless B - A is as recorded",
            f"    python {out_name} --check       and each side's figures too",
            f"    python {out_name} --side a      one side alone (--check: its figures)",
        ]
    else:
        lines += [
            "The sides ran with different software: run this script once under each side's interpreter.",
            f"    A: {py_text(_python(a.report))} {out_name} --side a --check",
            f"    B: {py_text(_python(b.report))} {out_name} --side b --check",
            "each prints its side's figures (above) and exits 1 unless they are the recorded ones.",
        ]
        lines += [py_text(f"    side {s.key.upper()} set {k}={v}") for s in sides for k, v in _env(s.report).items()]
    lines += ["", *_model_lines(sides, libraries)]
    return _docstring(lines)


def _python(report: S.Report) -> str:
    return report.process.python if report.process and report.process.python else "python"


def _env(report: S.Report) -> dict:
    return dict(report.process.env) if report.process and report.process.env else {}


def diff_script(
    diff: S.DiffResult,
    reports: dict[str, S.Report],
    where: str,
    out_name: str = "repro.py",
    minimized: S.ReproMinimized | None = None,
) -> str:
    """The standalone script of a diff: both sides' configurations, each side's figures, and the difference."""
    sides = [side_of(reports[k], f"{where}/{k}", k) for k in ("a", "b")]
    together = diff_together(diff.change, reports)
    features = _features(sides)
    code, imports = stack_code(features, _float8_skip(sides))
    same_build = sides[0].model.build == sides[1].model.build
    names = ["build", "build"] if same_build else ["build_a", "build_b"]
    builds = "{" + ", ".join(f'"{s.key}": {n}' for s, n in zip(sides, names)) + "}"
    figures = {s.key: expected(s.report, s.where) for s in sides}
    recorded = {s.key: _versions(s.report, _libraries(sides)) for s in sides}
    parts = [
        _diff_header(diff, sides, out_name, minimized),
        _imports(sides, imports + (("import json", "import subprocess") if together else ())),
        _model_section(sides, names),
        "",
        "",
        f"BUILD = {builds}",
        "",
        "# -- the configurations as recorded, by side " + "-" * 10,
        "",
        _diff_settings(sides),
        "",
        "# what each side measured in its last step, and the versions it ran with",
        f"EXPECTED = {literal(figures)}",
        f"RECORDED_WITH = {literal(recorded)}",
        "",
        code,
        MEASURE,
        MAIN_TOGETHER if together else MAIN_APART,
    ]
    return "\n".join(parts)
