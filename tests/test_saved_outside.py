"""What autograd saves outside the compiled graphs, counted by the pack hook of capture/saved_outside.py, against a
count made here with torch alone: real eager autograd, no probe process."""

import torch
from rich.console import Console

from memprobe.capture.saved_outside import SavedOutside
from memprobe.report.console.run import _print_saved_outside
from memprobe.rundir import schema as S


class Halves(torch.nn.Module):
    """Multiplies the first half of a projection's columns by itself: mul saves its inputs, here one view of the whole
    projection's storage, twice (a 4 x 8 float32 output: 128 B; the view 64 B of it)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        left = h[:, :4]
        return (left * left).sum()


def test_a_saved_view_over_a_larger_storage_is_reported_with_both_sizes():
    torch.manual_seed(0)
    model, x = Halves(), torch.randn(4, 8)
    outside = SavedOutside(model, compiled=[])
    with outside.counting():
        loss = model(x)
    record = outside.record(checkpointed_eager=False)
    # torch alone: what mul saved, a view, and the storage it keeps alive
    saved = loss.grad_fn.next_functions[0][0]._saved_self
    assert saved.untyped_storage().nbytes() == 128 and saved.numel() * saved.element_size() == 64
    (view,) = record.views
    assert (view.module, view.shape, view.dtype) == ("Halves", [4, 4], "float32"), view
    assert (view.bytes, view.storage_bytes) == (64, 128)
    # and a person reads both sizes
    console = Console(record=True, width=200)
    _print_saved_outside(console, S.Report.model_construct(saved_outside=record, view=None))
    assert "saved views that pin a larger storage: Halves float32[4, 4] holds 128 B for its 64 B" in console.export_text()


def test_a_saved_value_that_fills_its_storage_is_no_view_over_a_larger_one():
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
    outside = SavedOutside(model, compiled=[])
    with outside.counting():
        loss = model(torch.randn(4, 8)).sum()
    record = outside.record(checkpointed_eager=False)
    assert record.total_bytes > 0 and not record.views
    del loss
