"""SAC policies: names, edits, and the decisions the policy function really makes under checkpoint."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from memprobe.errors import ConfigError
from memprobe.policies import effective_policy, make_context_fn, normalize_op_name, resolve_op


@pytest.mark.parametrize(
    "name",
    ["aten.abs", "aten::abs", "torch.ops.aten.abs.default", "aten.abs.default", " aten.abs "],
)
def test_op_names_normalize(name):
    assert normalize_op_name(name) == "aten.abs.default"
    assert resolve_op(name) is torch.ops.aten.abs.default


@given(st.text(max_size=40))
def test_normalize_never_crashes(text):
    try:
        out = normalize_op_name(text)
    except ConfigError as e:
        assert "invalid op name" in str(e)
    else:
        assert out.count(".") == 2


def test_unknown_op_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown op"):
        resolve_op("aten.definitely_not_an_op")


def test_edits():
    p = effective_policy("torchtitan-2025-01", recompute_ops=["aten.abs"])
    assert "aten.abs.default" not in p.save_ops and "aten.max.default" in p.save_ops
    p = effective_policy("torchtitan", save_ops=["torch.ops.aten.abs.default"])
    assert "aten.abs.default" in p.save_ops
    p = effective_policy("save-all", recompute_ops=["aten.mm"])
    assert p.saves("aten.abs.default") and not p.saves("aten.mm.default")
    with pytest.raises(ConfigError):
        effective_policy("nope")


def _decisions_for(policy_name: str, **edits) -> dict:
    """Run a real checkpointed function under the policy; return what it decided per op."""
    from torch.utils.checkpoint import checkpoint

    decisions: dict = {}
    ctx = make_context_fn(effective_policy(policy_name, **edits), decisions)
    w1, w2, w3 = (torch.randn(8, 8, requires_grad=True) for _ in range(3))
    x = torch.randn(4, 8)

    def f(x):
        a = x @ w1
        b = a.abs() @ w2
        return (b @ w3).max()

    out = checkpoint(f, x, use_reentrant=False, context_fn=ctx)
    out.backward()
    return decisions


def test_torchtitan_recomputes_every_second_mm_and_not_abs():
    d = _decisions_for("torchtitan")
    assert d["aten.mm.default"] == {"MUST_SAVE": 2, "PREFER_RECOMPUTE": 1}
    assert d["aten.abs.default"] == {"PREFER_RECOMPUTE": 1}
    assert d["aten.max.default"] == {"MUST_SAVE": 1}


def test_legacy_saves_abs_and_edit_removes_it():
    assert _decisions_for("torchtitan-2025-01")["aten.abs.default"] == {"MUST_SAVE": 1}
    assert _decisions_for("torchtitan-2025-01", recompute_ops=["aten.abs"])["aten.abs.default"] == {"PREFER_RECOMPUTE": 1}
    assert _decisions_for("recompute-all")["aten.mm.default"] == {"PREFER_RECOMPUTE": 3}
    assert _decisions_for("save-all")["aten.mm.default"] == {"MUST_SAVE": 3}


def test_config_flags_round_trip_through_the_cli():
    from memprobe.cli.options import config_from_options
    from memprobe.cli.run import run
    from memprobe.config import ProbeConfig

    cfg = ProbeConfig(
        recipe="tensorwise",
        dim=256,
        layers=3,
        ac_policy="torchtitan-2025-01",
        recompute_ops=("aten.abs.default",),
        fsdp=False,
        reshard_after_forward=False,
        device="cpu",
        steps=4,
    )
    ctx = run.make_context("run", cfg.to_flags())
    assert config_from_options(ctx.params) == cfg
