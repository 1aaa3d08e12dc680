"""The user's own training script, unmodified, under `memprobe run -- COMMAND` (memprobe/capture/script.py): its
graphs, saved values and memory measured from inside its process, held to a ground truth the script computes itself
without memprobe; its failures in one line; a diff of two of its runs, of one run against itself, and of the script
under another interpreter without memprobe."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, run_cli_signalled, script_truth
from test_versions import lean  # noqa: F401  (the fixture: interpreters with torch and nothing of memprobe's)

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
PLAIN = ROOT / "tests" / "scripts" / "plain_loop.py"
SCRIPT = ("python", str(PLAIN), "--steps", "5")  # memprobe stops it after --steps 2 (the second measured)


def _truth(tmp_path: Path, *args: str) -> int:
    return script_truth(PLAIN, tmp_path, *args)


def _report(run) -> dict:
    return json.loads((run.path / "report.json").read_text())


@pytest.mark.parametrize("variant", [(), ("--no-checkpoint",)], ids=["checkpointed", "not-checkpointed"])
def test_a_plain_scripts_saved_bytes_equal_its_own_count(made, tmp_path, variant):
    """The compiled blocks' saved values (graph-derived and at run time) and what autograd saves outside them (the
    embedding's ids, the head's input, the loss's log-probabilities) add up to what the script counts itself."""
    report = _report(made("run", "--steps", "2", "--", *SCRIPT, *variant))
    assert report["status"] == "complete" and report["config"]["command"] == [*SCRIPT, *variant]
    totals, outside = report["saved_totals"], report["saved_outside"]
    assert totals["agree"] and totals["runtime_bytes"] + outside["total_bytes"] == _truth(tmp_path, *variant)
    assert {m["module"] for m in outside["modules"]} == {"embed", "head", "(loss)"}
    assert report["model"]["blocks_attr"] == "blocks" and report["model"]["blocks"] == 2
    assert set(report["memory"]["phases"]) == {"forward", "backward", "optimizer"}
    assert [i["block"] for i in report["invocations"]] == ["blocks.0", "blocks.1"]


def test_a_scripts_values_are_named_by_its_modules_and_lines(made):
    report = _report(made("run", "--steps", "2", "--", *SCRIPT, "--no-checkpoint"))
    rows = [r for r in report["saved_tensors"] if r["kind"] == "activation" and r["op"] != "input"]
    assert rows
    for r in rows:
        assert r["block"] in ("blocks.0", "blocks.1") and r["user"]["module"].startswith(r["block"])
        assert r["user"]["source"].startswith("tests/scripts/plain_loop.py:"), r["user"]


COMPILED = ROOT / "tests" / "scripts" / "compiled_model.py"


def test_a_script_that_compiles_its_whole_model_reads_in_its_own_names_and_counts_each_byte_once(made, tmp_path):
    """`model = torch.compile(Net())`, 2 layers, a plain loop: its values are named as its model names them (no
    OptimizedModule, _orig_mod or Dynamo path segments), one row per value with its layer count, the small
    position-embedding gather it saves is listed but does not lead the verdict, and what the compiled graph saves is
    not counted again outside it: saved table + outside = the script's own saved_tensors_hooks count."""
    from memprobe.analysis.saved import MODULE_STATE, group_rows, label
    from memprobe.rundir.load import load_report

    run = made("run", "--steps", "2", "--", "python", COMPILED, "--steps", "5")
    report = _report(run)
    assert report["status"] == "complete" and report["model"]["whole_model"] == "Net"
    assert set(report["config"]) == {"command", "steps"}  # none of the stack's defaults (recipe, repro, dim)
    # each byte once: the compiled graph's saved values are not the (wrapped) model's saved outside it
    totals, outside = report["saved_totals"], report["saved_outside"]
    assert {m["module"] for m in outside["modules"]} == {"(loss)"}
    assert totals["agree"] and totals["runtime_bytes"] + outside["total_bytes"] == script_truth(COMPILED, tmp_path)
    # the user's names: every module and parameter is the model's own path
    rows = load_report(run.path).saved_tensors
    modules = {r.user.module for r in rows if r.user and r.user.module}
    assert modules and all(m.startswith("transformer.") for m in modules), modules
    params = {label(r) for r in rows if r.kind in MODULE_STATE}
    assert {"transformer.h.*.fc1.weight", "transformer.h.*.fc2.weight", "transformer.wte.weight"} <= params, params
    # and so are the values alive at the peaks (the attribution names them by their op chain, as the saved table's
    # rows are: the token embedding's gather was "embedding(Net.transformer.wte.weight, tokens)")
    exprs = {r.expr for r in rows}
    alive = [it["item"] for ph in report["attribution"]["phases"].values() for it in ph.get("saved_for_backward") or []]
    assert any(it.startswith("embedding(transformer.wte.weight") for it in alive), alive
    assert not [it for it in alive if "Net." in it], alive
    assert {it for it in alive if it.startswith("embedding(")} <= exprs
    # one row per value, its layer count: no two groups read alike where they are made (ln_f's normalization of the
    # last block and block 1's of block 0 are two values, one text: their modules tell them apart), and each layer's
    # fc1 output is one row x2
    groups = group_rows(rows)
    seen = [(label(g), g.user.module if g.user else None, g.user.source if g.user else None) for g in groups]
    assert len(seen) == len(set(seen)), seen
    fc1 = [g for g in groups if g.user and g.user.module == "transformer.h.*.fc1" and g.kind not in MODULE_STATE]
    assert fc1 and all(g.count == 2 for g in fc1), [(label(g), g.count) for g in fc1]
    # the gather of the position embedding is weight-derived, 8 KiB of ~750 KiB: listed, not the verdict's lead
    (gather,) = [f for f in report["findings"] if f["kind"] == "weight-derived-saved"]
    assert gather["bytes"] < 0.05 * (totals["graph_bytes"] + outside["total_bytes"])
    assert report["verdict"]["finding"] is None and "1 smaller finding (weight-derived-saved)" in report["verdict"]["text"]


def test_an_eager_scripts_saved_activations_alive_at_its_peak_are_saved_for_backward(made):
    """The same script uncompiled: what autograd saved, alive at the step's peak in backward, is counted as
    saved-for-backward by the module that saved it, not "other" (each storage the pack hook saw, by its address; a
    scalar allocated before forward began is not an allocation the profiler saw in it: 791,808 of 791,812 B)."""
    report = _report(made("run", "--steps", "2", "--", "python", COMPILED, "--eager", "--steps", "5"))
    attribution, outside = report["attribution"], report["saved_outside"]
    assert attribution["source"] == "cpu-profiler" and attribution["peak_phase"] == "backward"
    saved = attribution["by_category_bytes"]["saved-for-backward"]
    assert 0.99 * outside["total_bytes"] <= saved <= outside["total_bytes"], (saved, outside["total_bytes"])
    assert attribution["by_category_bytes"].get("other", 0) < 0.1 * saved
    assert {i["item"] for i in attribution["top_items"]} >= {"saved by transformer.h.0.fc2", "saved by (loss)"}
    # each layer's copy of a module is one entry with its count, in the view and the verdict (the verdict named
    # transformer.h.0.fc2 alone, 128 KiB, where its two layers saved 256 KiB), and nothing is counted twice
    groups = {g["module"]: (g["count"], g["bytes"]) for g in report["view"]["saved_outside_groups"]}
    by_module = {m["module"]: m["bytes"] for m in outside["modules"]}
    assert groups["transformer.h.*.fc2"] == (2, by_module["transformer.h.0.fc2"] + by_module["transformer.h.1.fc2"])
    assert groups["(loss)"] == (1, by_module["(loss)"]) and not any(".0." in m or ".1." in m for m in groups)
    assert sum(b for _, b in groups.values()) == outside["total_bytes"]
    verdict = report["verdict"]["text"]
    assert verdict.startswith("Nothing was compiled; ") and ", x2)." in verdict, verdict
    assert report["verdict"]["bytes"] == max(b for _, b in groups.values())


def test_a_diff_of_a_compiled_script_and_its_eager_run_compares_the_steps_saved_bytes(made, tmp_path):
    """What the compiled side's graph saves, the eager side saves outside compiled graphs: the verdict compares the
    step's bytes (inside + outside) and says the values moved, as the body's first line does; it said "B saves 2.26 MiB
    less ... B neither saves nor recomputes it" and offered a fix. A/A: zero."""
    compiled = made("run", "--steps", "2", "--", "python", COMPILED, "--steps", "5")
    eager = made("run", "--steps", "2", "--", "python", COMPILED, "--eager", "--steps", "5")
    step = {}
    for side, run in (("a", compiled), ("b", eager)):
        r = _report(run)
        step[side] = r["saved_totals"]["graph_bytes"] + r["saved_outside"]["total_bytes"]
    proc = run_cli("diff", compiled.path, eager.path, "--out", tmp_path / "d", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    total, verdict = d["totals"]["step_saved_bytes"], d["verdict"]
    assert (total["a"], total["b"]) == (step["a"], step["b"]) and verdict["bytes"] == step["b"] - step["a"]
    assert "saves outside compiled graphs" in verdict["text"] and "the step's change is" in verdict["text"]
    assert "neither saves nor recomputes" not in verdict["text"] and verdict["fix"] is None
    same = run_cli("diff", compiled.path, compiled.path, "--out", tmp_path / "aa", "--json", "-q")
    aa = json.loads(same.stdout)
    assert aa["differences"] == 0 and aa["totals"]["step_saved_bytes"]["delta"] == 0 and aa["verdict"]["bytes"] == 0


def test_a_diff_of_one_block_more_names_the_block_and_matches_the_rest(made, tmp_path):
    """2 against 3 blocks of a script that compiles its whole model into one graph: the values both sides compute (the
    final norm's, the output projection's input) are matched though B computes them after one more block; the rest is
    what B's block transformer.h.2 saves, all of the difference, named so in the verdict, with no fix to look for
    (the values of the final norm were "only in B" and "only in A", and the verdict ended "Fix: compare what B's
    policy saves ..."). Both ways round; the A/A of the deeper side is zero."""
    runs = {depth: made("run", "--steps", "2", "--", "python", COMPILED, "--depth", str(depth)) for depth in (2, 3)}
    for a, b, has, lacks in ((2, 3, "B", "A"), (3, 2, "A", "B")):
        proc = run_cli("diff", runs[a].path, runs[b].path, "--out", tmp_path / f"d{a}{b}", "--json", "-q")
        assert proc.returncode == 0, proc.stderr[-3000:]
        d = json.loads(proc.stdout)
        assert {it["status"] for it in d["items"]} == {"only_b" if has == "B" else "only_a"}, d["items"]
        assert all(it["added_blocks"] == ["transformer.h.2"] for it in d["items"])
        assert sum(it["delta_bytes"] for it in d["items"]) == d["totals"]["saved_bytes"]["delta"] != 0
        text = d["verdict"]["text"]
        assert f"all of it saved by transformer.h.2, the block {has} has and {lacks} does not" in text, text
        assert "Fix" not in text and d["verdict"]["fix"] is None
    aa = json.loads(run_cli("diff", runs[3].path, runs[3].path, "--out", tmp_path / "aa", "--json", "-q").stdout)
    assert aa["differences"] == 0 and aa["totals"]["step_saved_bytes"]["delta"] == 0 and aa["verdict"]["bytes"] == 0


def test_what_a_script_prints_is_said_on_the_progress_line(tmp_path):
    """A script that prints where it is (here before its first step, then a pause longer than memprobe's heartbeat, as
    a data loader's warm-up makes): the still-waiting line says what it printed last; its output is not memprobe's."""
    from memprobe.progress import HEARTBEAT_S

    script = tmp_path / "chatty.py"
    script.write_text(
        "import sys, time\nimport torch\nprint('epoch 0 batch 7 loss 4.20', flush=True)\n"
        f"time.sleep({HEARTBEAT_S + 3})\nm = torch.nn.Linear(4, 4)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "for step in range(3):\n    m(torch.randn(2, 4)).sum().backward()\n    opt.step()\n"
        "    print(f'step {step}', flush=True)\n"
    )
    proc = run_cli("run", "--steps", "2", "--out", tmp_path / "r", "--", "python", script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    waited = [line for line in proc.stderr.splitlines() if "still waiting on" in line]
    assert any(line.endswith("; the script printed: epoch 0 batch 7 loss 4.20") for line in waited), proc.stderr[-3000:]
    assert "epoch 0 batch 7" not in proc.stdout


OUT_OF_MEMORY = """\
import json, sys
import torch
m = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
at = int(sys.argv[1])
for step in range(1, 6):
    x = torch.randn(32, 64)
    if step == at:  # what this forward saves, counted without memprobe in a forward of its own (a pack hook of the
        packed = []  # script's would hide memprobe's): each storage once, parameters apart
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            m(x).square().mean()
        params = {p.untyped_storage().data_ptr() for p in m.parameters()}
        held = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in packed}
        json.dump(sum(n for k, n in held.items() if k not in params), open(sys.argv[2], "w"))
        del packed
    loss = m(x).square().mean()
    if step == at:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has 79 GiB (a test's)")
    loss.backward()
    opt.step()
    opt.zero_grad()
"""


@pytest.mark.parametrize("at, phase", [(2, "forward"), (1, None)], ids=["in-the-measured-step", "before-it"])
def test_a_script_that_runs_out_of_memory_leaves_what_it_held(tmp_path, at, phase):
    """A script whose step raises torch.OutOfMemoryError: exit 4 in one line saying where, a run directory whose status
    is oom; in the measured step, what autograd had saved so far equals the script's own count at the error, and the
    verdict says it (it was exit 3, status failed, nothing of what the step held)."""
    script, truth = tmp_path / "oom.py", tmp_path / "held.json"
    script.write_text(OUT_OF_MEMORY)
    proc = run_cli("run", "--steps", "2", "--out", tmp_path / "r", "-q", "--", "python", script, str(at), truth)
    assert proc.returncode == 4, proc.stderr[-3000:]
    where = f"{phase} of step {at}" if phase else f"step {at} (before the measured step: nothing measured)"
    assert proc.stderr.count("\n") == 1 and f"[script] out of memory during {where}: CUDA out of memory" in proc.stderr
    assert proc.stderr.rstrip().endswith("(status: oom)"), proc.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["status"] == "oom" and report["oom"] == ({"phase": phase, "step": at} if phase else {"step": at})
    if phase:
        assert report["saved_outside"]["total_bytes"] == json.loads(truth.read_text()) > 0
        assert "When it stopped, the step had saved" in report["verdict"]["text"]
        # what was asked for, not torch's advice after it (report.json's error keeps the whole first line)
        assert "Tried to allocate 20.00 GiB. When it stopped" in report["verdict"]["text"], report["verdict"]["text"]
        assert "GPU 0 has 79 GiB" in report["error"] and "GPU 0 has" not in report["verdict"]["text"]
    else:
        assert "saved_outside" not in report


def test_memprobes_own_look_at_the_scripts_objects_raises_no_warning_in_it(tmp_path):
    """memprobe finds the script's model among its objects; an object whose ``__class__`` warns when asked (a
    deprecated alias) warned inside the script, and memprobe quoted the warning as the script's last line. Under
    ``-W error::FutureWarning`` that warning would end the script: the run completes, and nothing was said."""
    script = tmp_path / "alias.py"
    script.write_text(
        "import warnings\nimport torch\n\nclass Alias:\n    @property\n    def __class__(self):\n"
        "        warnings.warn('Alias is deprecated', FutureWarning)\n        return Alias\n\nalias = Alias()\n"
        "m = torch.nn.Linear(4, 4)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "for step in range(3):\n    m(torch.randn(2, 4)).sum().backward()\n    opt.step()\n"
    )
    proc = run_cli("run", "--steps", "2", "--out", tmp_path / "r", "-q", "--", "python", "-W", "error::FutureWarning", script)
    assert proc.returncode == 0 and "deprecated" not in proc.stderr, proc.stderr[-3000:]
    assert json.loads((tmp_path / "r" / "report.json").read_text())["status"] == "complete"


def test_a_diff_of_two_runs_of_a_script_names_the_argument_that_differs(made, tmp_path):
    a = made("run", "--steps", "2", "--", *SCRIPT)
    b = made("run", "--steps", "2", "--", *SCRIPT, "--no-checkpoint")
    proc = run_cli("diff", a.path, b.path, "--out", tmp_path / "d", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    assert d["change"]["kind"] == "configuration" and d["change"]["flags"] == ["the command: + --no-checkpoint"]
    assert d["totals"]["saved_bytes"]["delta"] > 0  # the blocks no longer recompute: they save their activations
    assert "the command: + --no-checkpoint" in d["verdict"]["text"]


def test_the_script_against_itself_differs_in_nothing_with_side_b_in_an_interpreter_without_memprobe(tmp_path, lean):  # noqa: F811
    """The A/A of a script: `memprobe diff -- SCRIPT`, side B run by an interpreter that has torch and nothing of
    memprobe's (as `--b-python VENV/bin/python` runs another environment), differs in nothing."""
    python = lean["torch"]
    proc = run_cli("diff", "--steps", "2", "--b-python", python, "--out", tmp_path / "d", "--json", "-q", "--", *SCRIPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    b = json.loads((tmp_path / "d" / "b" / "report.json").read_text())
    assert b["process"]["python"] == str(python) and b["config"]["command"] == list(SCRIPT)
    # B has torch alone (no torchao, no torchtitan: the script uses neither), and the sides say so
    assert d["differences"] == 0 and d["change"]["kind"] == "versions" and "-> none" in d["change"]["text"]
    assert d["saved_outside"]["total"]["delta"] == 0 and not d["saved_outside"]["modules"]
    assert all(p["peak_bytes"]["delta"] == 0 and p["end_bytes"]["delta"] == 0 for p in d["phases"]["phases"].values())


def test_a_script_diffs_sides_run_as_its_timing_line_says(tmp_path):
    """A script cannot be held, ready, until its turn (memprobe's own probes wait so while the other side runs): B's
    script was started beside A's, both trained at once, and the diff said "sides ran one after the other". Each
    side's script writes when it trained: the two spans do not overlap, as the diff's schedule says; A/A: zero."""
    script = tmp_path / "stamped.py"
    script.write_text(
        "import os, sys, time\nimport torch\nstart = time.time()\nm = torch.nn.Linear(4, 4)\n"
        "opt = torch.optim.SGD(m.parameters(), lr=0.1)\nfor _ in range(3):\n"
        "    m(torch.randn(2, 4)).sum().backward()\n    opt.step()\n"
        "    with open(sys.argv[1], 'a') as f:\n        f.write(f'{os.getpid()} {start} {time.time()}\\n')\n"
    )
    stamps = tmp_path / "stamps"
    proc = run_cli("diff", "--steps", "2", "--out", tmp_path / "d", "--json", "-q", "--", "python", script, stamps)
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    assert d["schedule"]["at_once"] is False and d["differences"] == 0
    spans: dict[str, list[float]] = {}
    for line in stamps.read_text().splitlines():
        pid, start, end = line.split()
        spans.setdefault(pid, [float(start), 0.0])[1] = float(end)
    (a0, a1), (b0, b1) = sorted(spans.values())
    assert a1 <= b0, spans  # B's script began after A's last step


@pytest.mark.parametrize(
    "body, words",
    [
        (
            "import sys\nprint('no torch here', file=sys.stderr)\n",
            "ended without importing torch: memprobe measures a PyTorch training step in it; partial report in",
        ),
        ("import torch\nprint('no training here')\n", "ended without stepping a torch.optim optimizer"),
        (
            "import torch\nm = torch.nn.Linear(4, 4)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
            "m(torch.randn(2, 4)).sum().backward()\nopt.step()\n",
            # 2 is the fewest: it used to say "pass --steps 2 or fewer"
            "ended after 1 optimizer step(s); memprobe measures the last of --steps 3: let the script train 2 steps at least",
        ),
        (
            "import torch\nm = torch.nn.Linear(4, 4)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
            "for _ in range(3):\n    m(torch.randn(2, 4)).sum().backward()\n    opt.step()\n    raise ValueError('bad batch')\n",
            "the script failed after 1 optimizer step(s): ValueError: bad batch (",
        ),
    ],
    ids=["never-imports-torch", "never-steps", "ends-early", "raises"],
)
def test_a_script_that_cannot_be_measured_fails_in_one_line(tmp_path, body, words):
    script = tmp_path / "train.py"
    script.write_text(body)
    out = tmp_path / "r"
    proc = run_cli("run", "--steps", "3", "--out", out, "-q", "--", "python", script)
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "failed" and str(out) in proc.stderr
    if "no torch here" in body:  # the script's own last words, as it wrote them
        assert "(its last line on stderr: 'no torch here'; --verbose shows its output)" in proc.stderr


def test_a_step_whose_cpu_profile_memprobe_could_not_read_fails_in_one_line_with_what_it_saved(tmp_path):
    """A measured step of more allocations than memprobe records (an LBFGS closure over a 1,000-step recurrent loop
    made ~2 million, and its 2.5 GB trace was being read when the out-of-memory killer ended the run): the trace is
    counted before it is read, and the run fails in one line (exit 3) saying what to do, keeping what the step saved
    (bound lowered here: this script's step makes a few hundred)."""
    out = tmp_path / "r"
    proc = run_cli("run", "--steps", "2", "--out", out, "-q", "--", *SCRIPT, env={"MEMPROBE_MAX_EVENTS": "50"})
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1, proc.stderr
    assert "allocations and frees on the CPU" in proc.stderr and "(at most 50; MEMPROBE_MAX_EVENTS raises it)" in proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "failed" and "measure a step of fewer ops" in report["error"]
    assert report["saved_outside"]["total_bytes"] > 0 and report["graphs"]  # what the step recorded besides
    # the bound as it stands: the same step, measured
    assert run_cli("run", "--steps", "2", "--out", tmp_path / "ok", "-q", "--", *SCRIPT).returncode == 0


def test_a_budget_and_a_gate_probe_a_script(tmp_path):
    """`memprobe budget -- COMMAND` writes a probe whose configuration is the command (no recipe), and the gate
    runs it as a probe of its own: a limit it passes, and (from that run: ``--from``) one it breaches (exit 1)."""
    budget = tmp_path / "memprobe.toml"
    proc = run_cli("budget", "--budget", budget, "--steps", "2", "-q", "--", *SCRIPT, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = budget.read_text()
    assert "[probes.plain_loop]" in text and "recipe" not in text and f'command = ["python", "{PLAIN}"' in text
    assert run_cli("gate", "--budget", budget, "--out", tmp_path / "g", "-q", cwd=tmp_path).returncode == 0
    budget.write_text(
        text.replace('[probes.plain_loop.limits]\nsaved_bytes = "', '[probes.plain_loop.limits]\nsaved_bytes = "1 KiB" #')
    )
    breached = run_cli(
        "gate", "--budget", budget, "--from", tmp_path / "g" / "plain_loop", "--out", tmp_path / "g2", "-q", cwd=tmp_path
    )
    assert breached.returncode == 1 and "saved_bytes" in breached.stdout, breached.stdout[-2000:]


def test_stack_flags_and_a_recorded_command_are_refused_in_one_line(made, tmp_path):
    """A script builds its own model: memprobe's stack flags are refused beside it; and a run directory's recorded
    command is never run again by a verb that re-runs recorded runs (explain)."""
    proc = run_cli("run", "--recipe", "bf16", "--out", tmp_path / "r", "-q", "--", *SCRIPT)
    assert (
        proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--recipe: configures the stack memprobe builds" in proc.stderr
    )
    run = made("run", "--steps", "2", "--", *SCRIPT)
    proc = run_cli("explain", run.path, "--out", tmp_path / "e", "-q")
    assert proc.returncode == 2 and "memprobe never runs a recorded run's command" in proc.stderr, proc.stderr
    assert not (tmp_path / "e").exists() or not any((tmp_path / "e").iterdir())


def test_a_hugging_face_trainer_script_is_measured_as_it_trains(tmp_path):
    """The Trainer's own loop (accelerate's optimizer wrapper, its compute_loss) unmodified: what autograd saves in the
    measured step equals what the script counts itself, named by the model's modules."""
    pytest.importorskip("accelerate", reason="the Trainer needs accelerate: pip install 'memprobe[test]'")
    pytest.importorskip("transformers", reason="pip install 'memprobe[hf]'")
    script = ROOT / "tests" / "scripts" / "hf_trainer.py"
    truth = tmp_path / "truth.json"
    subprocess.run(
        [sys.executable, str(script), "--max-steps", "2", "--truth", str(truth), "--output-dir", str(tmp_path / "o1")],
        check=True,
        capture_output=True,
    )
    proc = run_cli(
        "run", "--steps", "2", "--out", tmp_path / "r", "--json", "-q", "--",
        "python", script, "--max-steps", "4", "--output-dir", tmp_path / "o2",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    outside = report["saved_outside"]
    assert outside["total_bytes"] == json.loads(truth.read_text())["saved_bytes"] > 0
    modules = {m["module"] for m in outside["modules"]}
    assert {"model.layers.0.mlp", "model.layers.1.self_attn", "model.embed_tokens"} <= modules
    assert "autograd saved" in report["verdict"]["text"] and report["status"] == "complete"


def test_a_script_under_torchrun_is_measured_in_each_rank(tmp_path):
    """`torchrun --nproc-per-node 2 ddp_loop.py` (DistributedDataParallel, gloo): each rank records a run directory of
    its own (the launcher none), merged as --nproc merges memprobe's own ranks."""
    script = ROOT / "tests" / "scripts" / "ddp_loop.py"
    out = tmp_path / "r"
    proc = run_cli("run", "--steps", "2", "--out", out, "--json", "-q", "--", "torchrun", "--nproc-per-node", "2", script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["distributed"]["world_size"] == 2 and report["distributed"]["backend"] == "gloo"
    assert sorted(p.name for p in out.glob("rank*")) == ["rank0", "rank1"]
    ranks = [json.loads((out / f"rank{r}" / "report.json").read_text()) for r in (0, 1)]
    assert [r["distributed"]["rank"] for r in ranks] == [0, 1] and all(r["status"] == "complete" for r in ranks)
    assert {m["module"] for m in ranks[0]["saved_outside"]["modules"]} >= {"module.0", "module.2", "(loss)"}


# -- a script's run has one writer, ends where the script's process ends, and is marked however it ends ---------------

# a small loop, uncompiled: its optimizer's steps are what memprobe counts (MEMPROBE_TEST_MODE says what else it does)
LOOP = """
import json, os, subprocess, sys, time
import torch

MODE = os.environ.get("MEMPROBE_TEST_MODE", "")
READY = os.environ.get("MEMPROBE_TEST_READY", "")
if MODE == "helper":  # a helper that outlives the script and holds its stderr (as tensorboard would)
    helper = subprocess.Popen([sys.executable, "-c", "import os, time\\nwhile not os.path.exists(%r): time.sleep(0.05)" % READY])
    open(READY + ".pid", "w").write(str(helper.pid))
m = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for step in range(5):
    m(torch.randn(2, 4)).sum().backward()
    opt.step()
    if MODE == "wait" and step == 0:  # until the test has signalled memprobe: no clock
        open(READY, "w").close()
        while not os.path.exists(READY + ".sent"):
            time.sleep(0.05)
        time.sleep(60)
    if MODE == "os-exit":
        os._exit(0)
    if MODE == "execv":
        os.execv("/bin/false", ["false"])
    if MODE == "forge":  # the script marks its own run complete and leaves
        path = os.path.join(sys.argv[1], "report.json")
        report = json.load(open(path))
        report["status"] = "complete"
        json.dump(report, open(path, "w"))
        os._exit(0)
    if READY:
        open(READY + ".steps", "w").write(str(step + 1))
"""


def _loop(tmp_path: Path, mode: str, *command: str, wait_signal: int | None = None):
    """`memprobe run --steps 2 -- COMMAND` (default: python LOOP OUT) with MEMPROBE_TEST_MODE=``mode``; ``wait_signal``
    sent to memprobe alone once the script says it is ready. The process and the run's report (None if none)."""
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    out, ready = tmp_path / "r", tmp_path / "ready"
    env = {"MEMPROBE_TEST_MODE": mode, "MEMPROBE_TEST_READY": str(ready)}
    args = ("run", "--steps", "2", "--out", out, "--", *(command or ("python", script, out)))
    if wait_signal is None:
        proc = run_cli(*args, env=env)
    else:
        proc = run_cli_signalled(*args, ready=ready, signum=wait_signal, env=env)
    report = out / "report.json"
    return proc, json.loads(report.read_text()) if report.is_file() else None


def test_memprobe_stops_reading_a_script_once_its_process_has_ended(tmp_path):
    """A script that starts a helper which outlives it and holds its stderr: memprobe returns once the script's own
    process has ended (and a few seconds' grace), naming the process it left running (it waited for the helper: 49 s
    for a `sleep 45`, and a worker stuck in a lock kept it until Ctrl-C, which made a complete run "interrupted")."""
    try:
        proc, report = _loop(tmp_path, "helper")  # the helper ends only when the test says so, below
        helper = (tmp_path / "ready.pid").read_text()
        assert proc.returncode == 0 and report["status"] == "complete", proc.stderr[-2000:]
        assert (
            f"[script] the script left 1 process(es) running that hold its output, which memprobe reads no more: pid {helper} ("
            in proc.stderr
        )
        assert os.path.exists(f"/proc/{helper}")  # still running as memprobe returned
    finally:
        (tmp_path / "ready").touch()


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["sigterm", "ctrl-c"])
def test_a_script_run_stopped_through_memprobe_is_marked_interrupted(tmp_path, signum, code):
    """SIGTERM or Ctrl-C to memprobe alone while the script trains: memprobe stops the script and marks its run
    interrupted (Python's SIGTERM ended the script unmarked, and report.json said "running")."""
    proc, report = _loop(tmp_path, "wait", wait_signal=signum)
    assert proc.returncode == code, proc.stderr[-2000:]
    assert report["status"] == "interrupted", report.get("error")


@pytest.mark.parametrize(
    "mode, words",
    [
        ("os-exit", "the probe process exited without recording the run's end"),
        ("execv", "the probe process exited with 1 without saying why"),
        ("forge", "the report said complete, but memprobe's hooks did not record the run's end: the script wrote it"),
    ],
)
def test_a_script_that_ends_its_process_or_forges_its_end_is_a_failed_run(tmp_path, mode, words):
    """The script's own os._exit or execv left report.json "running"; a script that wrote "complete" into report.json
    and called os._exit(0) was a complete run, exit 0, with nothing measured. Each is a failed run, exit 3, marked so:
    memprobe's hooks say the run's end with a token the script never sees."""
    proc, report = _loop(tmp_path, mode)
    assert proc.returncode == 3 and words in proc.stderr.splitlines()[-1], proc.stderr[-2000:]
    assert report["status"] == "failed", report


@pytest.mark.parametrize(
    "command",
    [("python", "-I", "{script}"), ("env", "-i", sys.executable, "{script}"), ("/bin/true",)],
    ids=["python-isolated", "env-cleared", "no-python"],
)
def test_a_command_whose_hooks_cannot_go_in_is_a_failed_run(tmp_path, command):
    """A command memprobe's hooks never go into ran unmeasured, then exit 2 "not a memprobe run directory"; it is a
    failed run (exit 3), as docs/scripts.md has it: it ended without importing torch, as far as memprobe saw."""
    script = tmp_path / "loop.py"
    proc, report = _loop(tmp_path, "", *(w.format(script=script) for w in command))
    err = proc.stderr.splitlines()[-1]
    assert proc.returncode == 3 and "ended without importing torch as far as memprobe saw: its hooks never went" in err, err
    assert report["status"] == "failed" and "hooks never went into" in report["error"]


def test_a_python_the_script_starts_records_nothing(tmp_path):
    """A launcher that runs the training in a child Python: the child is not the process memprobe started, so it records
    nothing and trains to its own end (its record was overwritten by the launcher's "ended without importing torch");
    the launcher's run fails so, in one line."""
    train = tmp_path / "loop.py"
    train.write_text(LOOP)
    launcher = tmp_path / "launcher.py"
    launcher.write_text(f"import subprocess, sys\nsubprocess.run([sys.executable, {str(train)!r}], check=True)\n")
    proc, report = _loop(tmp_path, "", "python", str(launcher))
    assert proc.returncode == 3 and "the command ended without importing torch" in proc.stderr.splitlines()[-1]
    assert report["status"] == "failed"
    assert (tmp_path / "ready.steps").read_text() == "5"  # no hooks stopped it after its measured step
