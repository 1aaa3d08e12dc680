"""torch_remat's own account of what the test model (tests/models/remat_blocks.py) saves for backward, without
memprobe: the ground truth an eager memprobe run's figures per region are held to (tests/test_remat_e2e.py).

The model as a probe builds it (bfloat16, a (2, 32, 64) input, the stand-in loss ``out.float().pow(2).mean()``), its
checkpoints named ``<prefix>0``, ``<prefix>1`` (``block``: the model's own names; ``blocks.``: what ``--ac remat
--save-region ffn.up`` makes of ``build_plain``); one forward and the loss, then torch_remat's whole-model report
(``format_saved_tensors_report(loss)``, before backward, as its documentation says). Prints JSON: the report's text,
and its figures in bytes read from the structures the report renders (``torch_remat._saved_report``: each storage
billed to the first region in its natural order, parameters left out, the graph walk outside the regions), each
checked against the text, where it prints them rounded. Run with ``python tests/scripts/remat_saved_report.py
[--prefix block]``.
"""

import argparse
import json
import sys
from pathlib import Path

import torch
import torch_remat as remat
from torch_remat._reporting import _collect_storages, _format_bytes
from torch_remat._saved_report import _attribute_regions, _iter_live_regions, _region_sort_key, _walk_graph

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from remat_blocks import Net  # noqa: E402


def _region(view) -> dict:
    """One checkpoint region's figures: its owned bytes, by op (each storage once in the region), and the parameters
    its ops saved (left out of its bytes)."""
    by_op, seen, parameters = {}, set(view.excluded), {}
    for op, record in view.region.records.items():
        for key, storage in _collect_storages(record).items():
            if key not in seen:
                seen.add(key)
                by_op[op] = by_op.get(op, 0) + storage.nbytes
        for tensor in record.parameter_saves:
            storage = tensor.untyped_storage()
            parameters[storage.data_ptr()] = storage.nbytes()
    return {"bytes": sum(s.nbytes for s in view.owned.values()), "ops": by_op, "parameters": parameters}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", default="block")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Net(prefix=args.prefix).to(torch.bfloat16)
    x = torch.randn(2, 32, 64).to(torch.bfloat16)
    loss = model(x).float().pow(2).mean()
    text = remat.format_saved_tensors_report(loss)

    views = _attribute_regions(sorted(_iter_live_regions(), key=_region_sort_key))
    regions = {v.region.region_name: _region(v) for v in views}
    claimed = {key for v in views for key in v.owned}
    outside = sum(s.nbytes for s in _walk_graph([loss], claimed).values())
    parameters = {k: n for r in regions.values() for k, n in r.pop("parameters").items()}
    inside = sum(r["bytes"] for r in regions.values())
    header = (
        f"saved for backward: {_format_bytes(inside + outside)} resident -- {len(regions)} region(s) "
        f"{_format_bytes(inside)}, outside regions {_format_bytes(outside)}"
    )
    assert text.splitlines()[0] == header, (text, header)
    summary = text.split("\nregions:\n", 1)[1].split("\n\n", 1)[0]  # a line per group of alike regions
    for name, r in regions.items():
        assert f"  {_format_bytes(r['bytes'])}  " in summary, (name, r, text)
    loss.backward()  # the model's backward runs (recomputing each checkpoint): what was saved was enough
    out = {"regions": regions, "outside_bytes": outside, "parameters_bytes": sum(parameters.values()), "text": text}
    print(json.dumps({**out, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
