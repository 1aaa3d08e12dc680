"""The output-code simulator on real Inductor output (C++ from this machine's runs, Triton from an H200)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LEGACY_ROWWISE
from hypothesis import given, settings
from hypothesis import strategies as st

from memprobe.analysis.output_code import OutputCodeError, graph_memory, simulate, simulate_run, storage_bytes
from memprobe.analysis.saved import graph_pairs
from memprobe.rundir.load import dump, load_report

CUDA = Path(__file__).parent / "data" / "cuda"


def _table_bytes_per_graph(report) -> dict[str, int]:
    """Saved bytes per forward graph from the saved table (one call of each graph; graph inputs apart)."""
    first_call: dict[str, int] = {}
    for r in report.saved_tensors:
        first_call.setdefault(r.graph, r.call)
    out: dict[str, int] = {}
    for r in report.saved_tensors:
        if r.call == first_call[r.graph] and r.op != "input":
            out[r.graph] = out.get(r.graph, 0) + r.bytes
    return out


def _check_simulated_saved_equals_table(run_dir: Path) -> list[dict]:
    report = load_report(run_dir)
    results = [dump(g) for g in simulate_run(run_dir, report, graph_pairs(run_dir, report))]
    table = _table_bytes_per_graph(report)
    forwards = [g for g in results if g["kind"] == "forward"]
    assert forwards and set(table) == {g["graph_id"] for g in forwards}
    for g in forwards:
        assert g["unrecognized"] == [], g["unrecognized"]
        assert g["returned_match"] is True
        assert g["saved_bytes"] == table[g["graph_id"]], g["graph_id"]
        assert g["peak_bytes"] >= g["saved_bytes"] + g["output_bytes"]
        # every saved buffer is mapped to its FX node and op chain
        saved = [r for r in g["returned"] if r["role"] == "saved" and not r["is_input"]]
        assert saved and all(r["fx_node"] and r["expr"] for r in saved)
    return results


@pytest.mark.e2e
def test_cpu_output_code_saved_bytes_equal_the_table(runs):
    results = _check_simulated_saved_equals_table(runs(*LEGACY_ROWWISE).path)
    exprs = [r["expr"] for g in results if g["kind"] == "forward" for r in g["returned"] if r["role"] == "saved"]
    assert any(e.startswith("abs(permute(ffn.w") for e in exprs)


@pytest.mark.parametrize("name", ["bf16-legacy", "rowwise-legacy"])
def test_cuda_output_code_saved_bytes_equal_the_table(name):
    results = _check_simulated_saved_equals_table(CUDA / name)
    assert "triton_" in (CUDA / name / "output_code" / "g0.forward.py").read_text()
    backward = [g for g in results if g["kind"] == "backward"]
    assert backward and all(g["unrecognized"] == [] for g in backward)
    grads = [r["expr"] for g in backward for r in g["returned"] if r.get("expr")]
    assert "grad(ffn.w1.weight)" in grads


SMALL = """
def call(args):
    primals_1, primals_2 = args
    args.clear()
    assert_size_stride(primals_1, (4, 8), (8, 1))
    buf0 = empty_strided_cuda((4, 8), (8, 1), torch.float32)
    buf1 = empty_strided_cuda((8, 8), (1, 8), torch.bfloat16)
    # Topologically Sorted Source Nodes: [abs_1], Original ATen: [aten.abs]
    stream0 = get_raw_stream(0)
    triton_poi_fused_abs_0.run(primals_2, buf1, 64, stream=stream0)
    del primals_2
    buf2 = empty_strided_cuda((4, 8), (8, 1), torch.float32)
    extern_kernels.mm(primals_1, buf0, out=buf2)
    buf3 = buf0; del buf0  # reuse
    buf4 = reinterpret_tensor(buf2, (32,), (1,), 0); del buf2  # reuse
    del buf3
    return (buf4, primals_1, buf1, )
"""


def test_simulator_counts_reuse_aliases_and_inputs():
    sim = simulate(SMALL)
    assert sim.graph_inputs == ["primals_1", "primals_2"]
    assert sim.unrecognized == []
    # buf0 128 B + buf1 128 B + buf2 128 B live together at the peak
    assert sim.peak_bytes == 128 + 128 + 128
    assert [k.kernel for k in sim.kernels] == ["triton_poi_fused_abs_0", "extern_kernels.mm"]
    assert sim.kernels[0].source_nodes == ["abs_1"]
    mem = graph_memory(SMALL, ["view", "primals_1", "abs_1"], n_saved=2, graph_id="g0.forward", kind="forward")
    assert mem.output_bytes == 128  # buf4 aliases buf2
    assert mem.saved_bytes == 128  # abs_1 -> buf1; primals_1 is a graph input, counted apart
    assert [r.role for r in mem.returned] == ["output", "saved", "saved"]
    assert mem.returned[1].is_input is True


def test_unknown_statements_are_reported_not_guessed():
    src = SMALL.replace("    del buf3\n", "    buf9 = some_new_allocator(1 << 20)\n    del buf3\n")
    sim = simulate(src)
    assert [u.line for u in sim.unrecognized] and "fallback" in sim.unrecognized[0].why
    src = SMALL.replace("torch.float32)\n    buf1", "torch.weird_dtype)\n    buf1", 1)
    assert any("unknown size/dtype" in u.why for u in simulate(src).unrecognized)


def test_not_output_code():
    with pytest.raises(OutputCodeError, match="no call"):
        simulate("x = 1\n")
    with pytest.raises(OutputCodeError, match="does not parse"):
        simulate("def call(args):\n  (\n")


def test_storage_bytes():
    assert storage_bytes([4, 8], [8, 1], 2) == 64
    assert storage_bytes([8, 4], [1, 8], 4) == 128  # transposed: same span
    assert storage_bytes([2, 3], [0, 1], 4) == 12  # expanded dim takes no room
    assert storage_bytes([0, 5], [5, 1], 4) == 0


_names = st.sampled_from(["buf0", "buf1", "buf2", "primals_1", "args", "x"])
_shapes = st.lists(st.integers(0, 64), min_size=0, max_size=3).map(tuple)
_lines = st.one_of(
    st.builds(
        lambda n, s, d: f"{n} = empty_strided_cpu({s}, {tuple(1 for _ in s)}, torch.{d})",
        _names,
        _shapes,
        st.sampled_from(["float32", "bfloat16", "float8_e4m3fn", "nope"]),
    ),
    st.builds(lambda a, b: f"{a} = {b}; del {b}  # reuse", _names, _names),
    st.builds(lambda a, b: f"{a} = reinterpret_tensor({b}, (4,), (1,), 0)", _names, _names),
    st.builds(lambda a: f"del {a}", _names),
    st.builds(lambda a, b: f"kernel_{a}({a}, {b})", _names, _names),
    st.builds(lambda a: f"extern_kernels.mm({a}, {a}, out={a})", _names),
    st.builds(lambda a: f"{a} = aten.foo.default({a})", _names),
    st.builds(lambda a: f"{a}, y = args", _names),
    st.builds(lambda a: f"return ({a}, )", _names),
    st.builds(lambda a: f"assert_size_stride({a}, (2, 2), (2, 1))", _names),
    st.just("with torch.cuda._DeviceGuard(0):\n        pass"),
    st.just("a.b = 3"),
    st.just("del a[0]"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_lines, max_size=25))
def test_simulator_never_crashes_on_arbitrary_wrapper_statements(lines):
    src = "def call(args):\n" + "".join(f"    {line}\n" for line in lines) + "    pass\n"
    try:
        sim = simulate(src)
    except OutputCodeError:
        return
    assert sim.peak_bytes >= 0
    assert all(live >= 0 for _, live in sim.curve)
