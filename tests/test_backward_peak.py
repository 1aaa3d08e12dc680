"""The rule of ``backward-transient-peak`` on hand-built records: a compiled backward's temporaries alive at
backward's measured peak above half of it make the finding, with their bytes; at half or below, none."""

from __future__ import annotations

from memprobe.analysis.findings import backward_transient
from memprobe.rundir import schema as S
from memprobe.vocab import AttributionSource, FindingKind

KIB = 1024


def _buffer(storage: str, nbytes: int, role: str, recomputed: bool) -> S.TransientBuffer:
    return S.TransientBuffer(
        graph="g0.backward",
        call=0,
        block="blocks.0",
        storage=storage,
        bytes=nbytes,
        role=role,
        kernel="extern_kernels.mm",
        nodes=["mm"],
        ops=["mm"],
        lines=["model.py:7  h = self.up(x)"],
        recomputed=recomputed,
    )


def _attribution(temporaries: list[tuple[str, int, bool]], gradient: int, other: int) -> S.Attribution:
    buffers = [_buffer(s, n, "temporary", r) for s, n, r in temporaries] + [_buffer("buf9", gradient, "output", False)]
    recomputed = sum(n for _s, n, r in temporaries if r)
    transient = sum(n for _s, n, _r in temporaries)
    bp = S.BackwardPeak(
        peak_bytes=transient + gradient + other,
        event_index=10,
        transient_bytes=transient,
        recomputed_bytes=recomputed,
        temporary_bytes=transient - recomputed,
        gradient_bytes=gradient,
        other_bytes=other,
        tolerance_bytes=0,
        buffers=buffers,
    )
    return S.Attribution(source=AttributionSource.CPU_PROFILER, backward_peak=bp)


def test_transients_above_half_of_the_peak_are_a_finding_with_their_bytes():
    attribution = _attribution([("buf0", 256 * KIB, True), ("buf5", 128 * KIB, False)], 32 * KIB, 64 * KIB)
    [f] = backward_transient(attribution, S.SavedTotals(graph_bytes=64 * KIB))
    assert f.kind == FindingKind.BACKWARD_TRANSIENT_PEAK and f.bytes == 384 * KIB
    assert [it.bytes for it in f.items] == [256 * KIB, 128 * KIB]
    assert "recomputed mm at model.py:7" in f.items[0].label and "recomputed" not in f.items[1].label
    assert "480.00 KiB" in f.message and "buf0 (g0.backward, blocks.0)" in f.message


def test_transients_at_half_of_the_peak_or_below_are_none():
    attribution = _attribution([("buf0", 256 * KIB, True)], 128 * KIB, 128 * KIB)
    assert backward_transient(attribution, S.SavedTotals(graph_bytes=64 * KIB)) == []
    assert backward_transient(None, S.SavedTotals(graph_bytes=0)) == []
