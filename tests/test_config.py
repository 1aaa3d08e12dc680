"""The probe configuration: validated once, when it is made (memprobe/config.py), with its fields declared once
(memprobe/fields.py) and each model family's fields, checks and summary its own (memprobe/targets/)."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from memprobe import targets
from memprobe.config import ProbeConfig, config_from_values
from memprobe.errors import ConfigError
from memprobe.fields import Kind, declared


def test_a_configuration_is_canonical_once_made():
    cfg = ProbeConfig(recipe="fp8", ac="budget", save_ops=["aten::abs"], recompute_ops=("torch.ops.aten.mm.default",))
    assert (cfg.recipe, cfg.ac) == ("rowwise", "memory-budget")
    assert cfg.save_ops == ("aten.abs.default",) and cfg.recompute_ops == ("aten.mm.default",)
    assert cfg.to_flags()[cfg.to_flags().index("--save-op") + 1] == "aten.abs"  # written as a person writes it
    assert ProbeConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    "values, words",
    [
        ({"dim": "wide"}, "config key 'dim': expected an integer, got 'wide'"),
        ({"dim": True}, "config key 'dim': expected an integer, got True"),
        ({"lr": float("inf")}, "config key 'lr': expected a finite number, got inf"),
        ({"compile": 1}, "config key 'compile': expected true or false, got 1"),
        ({"save_ops": "aten.abs"}, "config key 'save_ops': expected a list of op names"),
        ({"steps": 1}, "--steps must be at least 2"),
        ({"repro": "moe-of-nothing"}, "unknown --repro 'moe-of-nothing'"),
        ({"flavor": "8B"}, "--flavor applies to --repro torchtitan"),
        ({"preset": "llama3-8b", "model": "m.py:build"}, "--preset applies to --repro ffn or --repro transformer"),
        ({"model": "m.py:build", "hf_config": "c.json"}, "--model and --hf-config both name the model to probe"),
        ({"repro": "transformer", "dim": 100, "heads": 8}, "--dim 100 must be a multiple of --heads 8"),
        ({"recipe": "rowwise", "dim": 72}, "float8 recipe 'rowwise' needs multiples of 16 for its float8 matmuls: --dim=72"),
        ({"recipe": "rowwise", "batch": 3, "seq": 5}, "--batch x --seq=15"),
        (
            {"recipe": "blockwise", "dim": 512, "hidden": 2000},
            "'blockwise' needs multiples of 128 for its float8 matmuls: --hidden=2000",
        ),
    ],
)
def test_a_configuration_that_does_not_fit_is_never_made(values, words):
    with pytest.raises(ConfigError) as e:
        ProbeConfig(**values)
    assert words in str(e.value)


def test_replace_makes_a_new_configuration_and_checks_it():
    cfg = ProbeConfig(recipe="bf16")
    assert replace(cfg, recipe="fp8").recipe == "rowwise"
    with pytest.raises(ConfigError, match="--lr must be positive"):
        replace(cfg, lr=-1.0)


def test_each_family_holds_its_own_fields():
    assert type(ProbeConfig().target) is targets.FFN
    t = ProbeConfig(repro="transformer", heads=4, kv_heads=2, dim=64, hidden=128).target
    assert isinstance(t, targets.Transformer) and (t.heads, t.kv_heads, t.kv_width()) == (4, 2, 32)
    assert type(ProbeConfig(model="m.py:build").target).__name__ == "UserModel"
    hf = ProbeConfig(hf_config="dir/config.json", layers=3).target
    assert hf.layers == 3 and hf.short_name() == "dir" and not hasattr(hf, "dim")
    assert ProbeConfig(repro="torchtitan", flavor="8B").summary().split("  ")[1].startswith("torchtitan llama3 8B")


def test_the_flags_are_every_familys_fields_each_once_in_each_familys_order():
    names = [f.name for f in fields(ProbeConfig)]
    assert len(names) == len(set(names))
    for family in targets.FAMILIES:
        own = [f.name for f in fields(family)]
        assert [n for n in names if n in own] == own, family.name  # each family's fields keep their order
    # a field two families take is one declaration: the same option, so the same flag and help
    for family in targets.FAMILIES:
        for f in fields(family):
            mine = next(g for g in fields(ProbeConfig) if g.name == f.name)
            assert mine.metadata["option"] == f.metadata["option"] and mine.default == f.default


def test_a_preset_fills_the_dimensions_not_given():
    cfg = config_from_values({"repro": "transformer", "preset": "llama3-8b", "dim": None, "heads": 16})
    assert (cfg.dim, cfg.hidden, cfg.heads, cfg.kv_heads) == (4096, 14336, 16, 8)
    assert cfg.target.full_depth() == 32


def test_the_schema_types_each_field_by_its_declared_kind():
    from memprobe.rundir import schema as S

    for f, o in declared(ProbeConfig):
        assert f.name in S.Config.model_fields
        if o.kind == Kind.WHOLE:
            with pytest.raises(ValueError):
                S.Config.model_validate({f.name: 2.5})
    with pytest.raises(ValueError, match="--flavor applies to --repro torchtitan"):
        S.Config.model_validate({"flavor": "8B"})


def test_a_budget_files_preset_probes_the_model_its_name_says(tmp_path):
    """A budget file's probe named by a preset builds that preset's dimensions (it loaded as dim=512 under the
    preset's name when presets were filled outside the configuration's own making)."""
    from memprobe.budget import load_budget

    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        '[probes.llama]\nrepro = "transformer"\npreset = "llama3-8b"\nheads = 16\n\n'
        '[probes.llama.limits]\nsaved_bytes = "1 GiB"\n'
    )
    cfg = load_budget(budget).probes["llama"].config
    assert (cfg.preset, cfg.dim, cfg.hidden, cfg.kv_heads) == ("llama3-8b", 4096, 14336, 8)
    assert cfg.heads == 16  # a dimension the file gives wins over the preset's
    assert "dim=4096" in cfg.summary()


_COUNTING = """
import json, os, sys
import memprobe.config as config

made = []
post_init = config._Configuration.__post_init__


def counted(self):
    post_init(self)
    made.append(json.dumps(self.to_dict(), sort_keys=True))


config._Configuration.__post_init__ = counted
real_exit, path = os._exit, sys.argv[1]


def write():
    with open(path, "w") as f:
        json.dump(made, f)


def exit_(code):
    write()
    real_exit(code)


os._exit = exit_
from memprobe.cli.main import main

sys.argv = ["memprobe", *sys.argv[2:]]
try:
    main()
finally:
    write()
"""


@pytest.mark.e2e
def test_a_probes_configuration_is_made_once(tmp_path):
    """`memprobe run` makes its configuration once: from the flags; its records (the report the probe writes, checked
    as it is written and read back, analysed, shown) hold that one (the verdict's next command makes its own edit)."""
    import json
    import os
    import subprocess
    import sys

    counts = tmp_path / "made.json"
    args = ["run", "--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "1", "--device", "cpu", "--analysis-only"]
    env = {**os.environ, "MEMPROBE_FORKSERVER": "off"}
    proc = subprocess.run(
        [sys.executable, "-c", _COUNTING, str(counts), *args, "--out", str(tmp_path / "r"), "-q"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    made = json.loads(counts.read_text())
    recorded = json.loads((tmp_path / "r" / "report.json").read_text())["config"]
    assert made.count(json.dumps(recorded, sort_keys=True)) == 1, made
