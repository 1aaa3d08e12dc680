"""Every output format escaped for itself (memprobe/text.py): hostile recorded labels are inert in Markdown (checked
with a real Markdown renderer), well formed in JUnit XML, cells in CSV (no formula, every line break quoted), and shown
as what they are on the terminal (bidi and zero-width characters made visible)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

from click.testing import CliRunner
from conftest import invoke
from test_gate import CUDA_BUDGET

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _invoke(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


HOSTILE = [
    "w` <img src=x onerror=alert(1)> `",
    "[c](javascript:alert(1))",
    "<script>alert(2)</script>",
    "cell | break\nnew row | x",
    "\x1b]52;c;cHduZWQ=\x07 osc52",
    "\u202eevil\u200b\u2028",
    '=HYPERLINK("http://x")',
    "@SUM(1)",
    "+1",
    "-1+1",
    "\t=1",
    "ctrl \x01\x0b\x0c\x1f chars",
]


def _hostile_run(tmp_path: Path, every: bool = False) -> Path:
    """ROWWISE with hostile text in its saved values' labels, modules and op chains (``every``: all of it in
    each, else one string each in turn) and in a finding."""
    run = _copy(ROWWISE, tmp_path / "hostile")

    def inject(r):
        for i, row in enumerate(r["saved_tensors"]):
            text = " ".join(HOSTILE) if every else HOSTILE[i % len(HOSTILE)]
            row["user"] = {**(row.get("user") or {"op": "x"}), "label": text, "module": text}
        r["findings"][0]["message"] = " ".join(HOSTILE)

    _edit(run / "report.json", inject)
    return run


def _rendered_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


def _assert_inert_markdown(markdown: str) -> None:
    """Rendered by a real Markdown renderer: no element of the labels' comes out live, no terminal control
    or invisible character is left raw, and every table row keeps its header's cells."""
    page = _rendered_html(markdown)
    for live in ("<img", "<script", "<a ", 'javascript:alert(1)"'):
        assert live not in page, (live, page)
    for ch in ("\x1b", "\x07", "\u202e", "\u200b", "\u2028"):
        assert ch not in markdown, repr(ch)
    for table in page.split("<table>")[1:]:
        head = len(re.findall(r"<th[ >]", table.split("</thead>")[0]))
        for row in table.split("<tbody>")[-1].split("</tbody>")[0].split("<tr>")[1:]:
            assert row.count("<td") == head, row


def test_diff_markdown_of_hostile_labels_is_inert(tmp_path):
    code, out, err = _invoke("diff", BF16, _hostile_run(tmp_path, every=True), "--markdown")
    assert code == 0, err
    _assert_inert_markdown(out)
    assert "\\u202e" in out and "\\x1b" in out  # shown, not executed


def test_gate_markdown_and_junit_of_hostile_labels_are_inert(tmp_path, monkeypatch):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(CUDA_BUDGET.replace('weight_derived_saved_bytes = "1 GiB"', "weight_derived_saved_bytes = 0"))
    summary = tmp_path / "summary.md"
    junit = tmp_path / "g.xml"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    hostile = _hostile_run(tmp_path, every=True)
    proc = invoke("gate", "--budget", budget, "--from", f"p={hostile}", "--junit", junit, "--markdown")
    assert proc.returncode == 1, proc.stderr
    _assert_inert_markdown(proc.stdout)
    _assert_inert_markdown(summary.read_text())
    root = ET.parse(junit).getroot()  # well formed, whatever the labels held
    text = "".join(f.text or "" for f in root.iter("failure"))
    assert "\\x01" in text and "<script>alert(2)</script>" in text  # shown as text, escaped by the XML itself


def test_csv_cells_never_start_a_formula(tmp_path):
    table = tmp_path / "t.csv"
    code, out, err = _invoke("show", _hostile_run(tmp_path), "--csv", table)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    cells = [v for row in rows for v in row.values() if v]
    assert all(not c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in cells), [c for c in cells if c[:1] in "=+-@\t\r"]
    assert '\'=HYPERLINK("http://x")' in cells and "'-1+1" in cells
    assert [int(row["bytes"]) for row in rows] == sorted(
        (int(row["bytes"]) for row in rows), reverse=True
    )  # numbers stay numbers


CSV_HOSTILE = ["mm(x)\r=cmd|'/C calc'!A0", "a\n+SUM(1)", "b\r\n-2", 'q"uote', "com,ma", "\r\r@x", "plain"]


def _csv_of_modules(tmp_path: Path, modules: list[str]) -> tuple[Path, str]:
    """A copy of the rowwise run whose saved values' modules are ``modules`` in turn, and its table as `show --csv`
    writes it."""
    run = _copy(ROWWISE, tmp_path / "X")

    def inject(r):
        for i, row in enumerate(r["saved_tensors"]):
            row["user"] = {"op": "x", "label": "x", **(row.get("user") or {}), "module": modules[i % len(modules)]}

    _edit(run / "report.json", inject)
    table = tmp_path / "t.csv"
    proc = invoke("show", run, "--csv", table)
    assert proc.returncode == 0, proc.stderr
    return run, table.read_bytes().decode()


def test_csv_quotes_every_line_break_and_neutralises_formulas_after_one(tmp_path):
    run, raw = _csv_of_modules(tmp_path, CSV_HOSTILE)
    # a reader that starts a row at any CR or LF never sees one start with a formula ...
    assert not [piece for piece in re.split(r"\r\n|\r|\n", raw) if piece[:1] in ("=", "+", "-", "@")]
    # ... and a CSV reader reads every cell whole: as many rows as saved values, each label inert but its own
    rows = list(csv.DictReader(io.StringIO(raw, newline="")))
    assert len(rows) == len(json.loads((run / "report.json").read_text())["saved_tensors"])
    cells = {v for row in rows for v in row.values()}
    assert {"mm(x)\r'=cmd|'/C calc'!A0", "a\n'+SUM(1)", "b\r\n'-2", 'q"uote', "com,ma", "'\r'\r'@x"} <= cells
    for cell in ("mm(x)\r'=cmd", "a\n'+SUM(1)", 'q""uote', "com,ma"):
        assert f'"{cell}' in raw, cell  # quoted in the file itself


# every break a CSV reader may start a line or a record at (Python's str.splitlines takes each), and a formula after it
CSV_BREAKS = {"VT": "\x0b", "FF": "\x0c", "FS": "\x1c", "GS": "\x1d", "RS": "\x1e", "NEL": "\x85", "LS": "\u2028", "PS": "\u2029"}


def test_csv_quotes_a_cell_after_any_line_or_record_separator(tmp_path):
    """A label holding VT, FF, FS, GS, RS, NEL, U+2028 or U+2029 before a formula, or an ``=`` anywhere: each cell is
    quoted, and the formula after the break neutralised (they went out unquoted, and a reader that splits lines at
    them started a row at ``=cmd|...``)."""
    _, raw = _csv_of_modules(tmp_path, [f"mm(x){ch}=cmd|'/C calc'!A0" for ch in CSV_BREAKS.values()] + ["a=b"])
    assert not [line for line in raw.splitlines() if line[:1] in ("=", "+", "-", "@")]  # a row never starts a formula
    cells = {v for row in csv.DictReader(io.StringIO(raw, newline="")) for v in row.values()}
    for name, ch in CSV_BREAKS.items():
        assert f"mm(x){ch}'=cmd|'/C calc'!A0" in cells, name  # read whole, inert
        assert f"\"mm(x){ch}'=cmd" in raw, name  # quoted in the file itself
    assert '"a=b"' in raw and "a=b" in cells


def test_the_terminal_shows_bidi_and_zero_width_characters(tmp_path):
    proc = invoke("show", _hostile_run(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for ch in ("\u202e", "\u200b", "\u2028", "\x1b", "\x07"):
        assert ch not in proc.stdout
    assert "\\u202eevil\\u200b\\u2028" in proc.stdout.replace("\n", "").replace(" ", "")
