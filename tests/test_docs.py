"""The docs quote what memprobe prints or writes now: the sample budget file is what `memprobe budget` writes, a
quoted console view has the lines memprobe prints for that command (and none it prints only under a flag the command
does not pass), the verbs listed are the verbs, the MCP example call fits the tool's schema, and the heartbeat line
quoted is the progress printer's. Fast: the committed run directories in tests/data/, no probe is run."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from conftest import invoke

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TINY_ROWWISE = ROOT / "tests" / "data" / "cpu" / "tiny-rowwise"
BF16, ROWWISE = ROOT / "tests" / "data" / "cuda" / "bf16-legacy", ROOT / "tests" / "data" / "cuda" / "rowwise-legacy"
DIFF_TINY = ROOT / "tests" / "data" / "cpu" / "diff-tiny"


def _blocks(text: str, lang: str = "") -> list[str]:
    """The fenced blocks of Markdown ``text`` in ``lang`` ("" for those without a language)."""
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, re.M | re.S)


def _section(path: Path, heading: str) -> str:
    """A heading's section of a Markdown file (up to the next heading of its level)."""
    return re.split(r"\n## ", path.read_text().split(f"\n{heading}\n", 1)[1], maxsplit=1)[0]


# -- docs/gate.md: the sample budget file --------------------------------------------------------------------------

_FIGURE = re.compile(r'"\d+(\.\d+)? [KMGT]i?B"|(?<== )\d+(?=\s|$)')


def _modulo_figures(text: str) -> list[str]:
    """A budget file's lines with its sizes and the versions of its header left out."""
    return [_FIGURE.sub("SIZE", line) for line in text.splitlines() if not line.startswith("# (")]


def test_the_sample_budget_is_what_memprobe_budget_writes(tmp_path):
    from memprobe.budget import StarterBudget, budget_text, load_budget
    from memprobe.config import config_from_values
    from memprobe.rundir.load import load_report

    section = _section(DOCS / "gate.md", "## The budget file")
    assert "What `memprobe budget --recipe rowwise --layers 2 --headroom 10%` wrote on the CPU" in section
    sample, *others = _blocks((DOCS / "gate.md").read_text(), "toml")
    # the command quoted, run on the CPU: its flags as the configuration, a committed CPU run's figures
    starter = StarterBudget("ffn-rowwise", headroom=0.1, headroom_text="10%", relative="+5%")
    written = budget_text(starter, config_from_values({"recipe": "rowwise", "layers": 2}), load_report(TINY_ROWWISE))
    assert _modulo_figures(sample) == _modulo_figures(written)
    assert sample == (ROOT / "memprobe.toml").read_text()  # "this project's own memprobe.toml", figures and all
    assert sample == _blocks(section, "toml")[0]
    # every other budget file the page shows is one memprobe reads
    for i, block in enumerate(others):
        (tmp_path / f"b{i}.toml").write_text(block)
        load_budget(tmp_path / f"b{i}.toml")


# -- docs/cli.md and the README: the console views quoted ----------------------------------------------------------

_LABEL = re.compile(r"^([a-z][a-z0-9 ]*?)(?: \(|, |:)")


def _labels(text: str) -> list[str]:
    """The labelled lines of a console view (``verdict:``, ``measured peaks (cpu-profiler):``, ``next:``), in order."""
    return [m.group(1) for line in text.splitlines() if ":" in line and (m := _LABEL.match(line))]


def _console(*args) -> str:
    proc = invoke(*args, env={"COLUMNS": "400"})  # no line wrapped: each labelled line is a line
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _quoted(path: Path, start: str) -> str:
    """The console block of ``path`` whose first line begins with ``start`` (a ``$ command`` line is left out)."""
    (block,) = [b for b in _blocks(path.read_text()) if b.startswith(start)]
    return block.split("\n", 1)[1] if block.startswith("$ ") else block


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """What memprobe prints now for a run (`memprobe show` renders a run's view as `memprobe run` printed it) and for a
    diff, and the labels of the lines printed only under a flag (--html)."""
    tmp = tmp_path_factory.mktemp("printed")
    run = _console("show", TINY_ROWWISE)
    diff = _console("diff", BF16, ROWWISE, "--out", tmp / "d")
    with_html = _console("diff", BF16, ROWWISE, "--out", tmp / "h", "--html", tmp / "h.html")
    flag_only = set(_labels(with_html)) - set(_labels(diff))
    assert flag_only == {"html report"}
    # the compact tables at the docs' 100 columns, of committed runs whose values were made in the model's code
    tables = {
        "run": _table(invoke("show", TINY_ROWWISE, env={"COLUMNS": "100"}).stdout, "Saved for backward"),
        "diff": _table(invoke("show", DIFF_TINY, env={"COLUMNS": "100"}).stdout, "What B keeps alive"),
    }
    return {"run": _labels(run), "diff": _labels(diff), "flag_only": flag_only, "tables": tables}


def _table(text: str, title: str) -> tuple[list[str], list[list[str]]]:
    """A compact table of a console view: its header's words and each row's cells (split where two spaces are)."""
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = [re.split(r"\s{2,}", line.strip()) for line in itertools.takewhile(_ROW.match, lines[k + 2 :])]
    return re.split(r"\s{2,}", lines[k + 1].strip()), rows


_ROW = re.compile(r"^\s*(\d+|only in|grown in|shrunk in) ")


def _why_forms() -> set[str]:
    """Every wording of "why" a compact table may print for the values of the committed rowwise runs (the default
    dims' runs keep the same values, for the same reasons)."""
    from memprobe.analysis.saved import group_rows
    from memprobe.report.words import why_saved_forms
    from memprobe.rundir.load import load_diff, load_report

    values = [*group_rows(load_report(DIFF_TINY / "b").saved_tensors), *load_diff(DIFF_TINY / "diff.json").items]
    return {form for v in values for form in why_saved_forms(v)}


@pytest.mark.parametrize(
    "doc, command, view",
    [
        ("docs/cli.md", "$ memprobe run --recipe rowwise --ac-policy torchtitan-2025-01\n", "run"),
        ("README.md", "memprobe run  rowwise  ffn", "run"),  # the output of the command above it
        ("docs/cli.md", "$ memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01\n", "diff"),
    ],
)
def test_a_quoted_console_view_has_the_lines_memprobe_prints(printed, doc, command, view):
    quoted = _quoted(ROOT / doc, command)
    known = set(printed[view]) | printed["flag_only"]
    # the labelled lines quoted (a wrapped line's continuation is no label memprobe prints) are those it prints now,
    # in its order, and none it prints only under a flag the command does not pass (--html's "html report:")
    assert [label for label in _labels(quoted) if label in known] == printed[view], (doc, command)
    # its table has the columns memprobe prints at that width, and says why a value is kept as memprobe says it
    header, rows = _table(quoted, "Saved for backward" if view == "run" else "What B keeps alive")
    assert header == printed["tables"][view][0] and rows, (doc, header)
    assert {row[-1] for row in rows} <= _why_forms(), (doc, [row[-1] for row in rows])
    # a run directory of the default --out is named as memprobe names it
    for path in re.findall(r"(memprobe-runs/\S+?)[/ ]", quoted):
        assert re.fullmatch(r"memprobe-runs/\d{8}T\d{6}Z-[\w.-]+", path), path


def test_the_narrow_tables_quoted_are_what_memprobe_prints():
    """docs/cli.md quotes the compact tables of the committed run and diff at 80 columns: each run of lines quoted
    between `...` is, line for line, what `memprobe show` prints for that directory at that width."""
    (block,) = [b for b in _blocks((DOCS / "cli.md").read_text()) if b.startswith("$ COLUMNS=80 memprobe show")]
    commands = re.split(r"^\$ ", block, flags=re.M)[1:]
    assert len(commands) == 2
    for quoted in commands:
        command, rest = quoted.split("\n", 1)
        env, verb, path = re.fullmatch(r"COLUMNS=(\d+) memprobe (show) (\S+)", command).groups()
        shown = invoke(verb, ROOT / path, env={"COLUMNS": env}).stdout
        parts = [p.strip("\n") for p in rest.split("...") if p.strip()]
        assert parts, command
        for part in parts:
            assert part + "\n" in shown, (command, part)


_FIX = re.compile(r"--recompute-op ([\w.:]+)|remove ([\w.:]+) from the SAC save list|\(([\w.:]+) is in its save list\)")


def test_a_fix_quoted_in_the_docs_names_the_op_as_the_flag_takes_it():
    """The docs quote a fix as memprobe spells it everywhere: the op as `--recompute-op` takes it (`aten.abs`), never
    its overload (`aten.abs.default`) or its torch path (`torch.ops.aten.abs.default`)."""
    from memprobe.policies import flag_op, normalize_op_name

    quoted = 0
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for m in _FIX.finditer(path.read_text()):
            op = next(g for g in m.groups() if g)
            if op != "OP":  # the flag's own help
                assert op == flag_op(normalize_op_name(op)), (path.name, m.group(0))
                quoted += 1
    assert quoted >= 10


def test_the_verbs_listed_are_the_verbs():
    from memprobe.cli.main import cli

    (listing,) = [b for b in _blocks((DOCS / "cli.md").read_text()) if b.startswith("memprobe run [FLAGS]")]
    assert sorted(re.findall(r"^memprobe (\w+)", listing, re.M)) == cli.list_commands(None)


# -- docs/mcp.md and docs/reports.md ---------------------------------------------------------------------------------


def test_the_mcp_example_call_fits_the_tools_schema():
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("mcp", reason="the MCP SDK is the optional extra memprobe[mcp]")
    import json

    from memprobe.mcp.arguments import RunConfig

    (call,) = [json.loads(b) for b in _blocks((DOCS / "mcp.md").read_text(), "json") if '"name": "run"' in b]
    jsonschema.validate(call["arguments"]["config"], RunConfig.model_json_schema())
    assert RunConfig.model_validate(call["arguments"]["config"]).model_dump(exclude_unset=True) == call["arguments"]["config"]


def test_the_heartbeat_line_quoted_is_the_printers(capsys):
    from memprobe.progress import progress_printer

    (quoted,) = re.findall(r"`( +[\d.]+s still waiting on .*?)`", (DOCS / "reports.md").read_text())
    started, stage, waited = 6.2, "[a] step 1/2 (compiling)", 80  # as quoted
    clock = iter([100.0, 100.0 + started, 100.0 + started + waited]).__next__
    p = progress_printer(enabled=True, clock=clock, heartbeat=False)
    p.live = False
    p(stage)
    p.beat()
    assert capsys.readouterr().err.splitlines()[-1] == quoted
