"""`memprobe estimate` over a committed CPU run (no model runs): the target's figures are the probe's measured ones
plus what the added blocks hold at each phase's peak; at the probe's own size, exactly what it measured. The estimate
held to deeper runs it did not see is tests/test_fake_world_e2e.py's."""

from __future__ import annotations

from pathlib import Path

from conftest import invoke

from memprobe.analysis.estimate import estimate
from memprobe.analysis.recorded import load_run
from memprobe.vocab import Phase, StepPeak

TINY = Path(__file__).parent / "data" / "cpu" / "tiny-rowwise"  # 1 FFN block, dim 64, hidden 128, world 1


def test_an_estimate_at_the_probes_own_size_is_what_it_measured():
    """A/A: the probe's blocks, ranks and tokens as the target: the estimate is the measurement, to the byte."""
    report = load_run(TINY)
    est = estimate(report, layers=1, world=1)
    assert est.components.probe == est.components.target
    measured, target = est.totals.probe_measured, est.totals.target_estimated
    assert (target.forward_end_bytes, target.peak_bytes) == (measured.forward_end_bytes, measured.peak_bytes)
    # the CPU's phase figures are above the step's start: the state is added to compare
    state = report.memory.persistent.parameters_bytes + report.memory.persistent.optimizer_state_bytes
    phases = report.memory.phases
    assert measured.forward_end_bytes == phases[Phase.FORWARD].end_bytes + state
    assert measured.peak_bytes == max(p.peak_bytes for p in phases.values()) + state


def test_the_target_adds_what_the_added_blocks_hold_at_each_phase_peak():
    """From 1 block to 4: each added block holds what the probe's block saved (its saved table, summed here) and its
    parameters, gradients and AdamW state (the recorded parameters: fp32, unsharded at world 1)."""
    report = load_run(TINY)
    est = estimate(report, layers=4, world=1)
    saved = sum(r.bytes for r in report.saved_tensors if r.kind in ("activation", "weight-derived"))
    params = report.memory.persistent.parameters_bytes
    assert params == 3 * 64 * 128 * 4 == report.model.block_parameters["layers.0"] * 4
    opt = report.memory.persistent.optimizer_state_bytes
    phases, unmeasured = report.memory.phases, params + opt
    added_state = 3 * (params + opt)
    target = est.totals.target_estimated
    assert target.forward_end_bytes == phases[Phase.FORWARD].end_bytes + unmeasured + added_state + 3 * saved
    at_peak = {
        Phase.FORWARD: phases[Phase.FORWARD].peak_bytes + 3 * saved,
        Phase.BACKWARD: phases[Phase.BACKWARD].peak_bytes + max(3 * saved, 3 * params),  # gradients = parameters
        Phase.OPTIMIZER: phases[Phase.OPTIMIZER].peak_bytes + 3 * params + 3 * est.components.probe.optimizer_temporaries_bytes,
    }
    assert target.peak_bytes == max(at_peak.values()) + unmeasured + added_state
    where = max(at_peak, key=at_peak.__getitem__)
    assert target.peak_in == (StepPeak.OPTIMIZER if where == Phase.OPTIMIZER else StepPeak.TRAINING)


def test_the_estimate_says_it_carries_what_no_component_names():
    proc = invoke("estimate", TINY, "--layers", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "embedding, output layer, logits and loss the probe has are carried as measured" in proc.stdout
