"""The code of a standalone repro script (:mod:`memprobe.report.repro`) that does not depend on the run: the training
stack, in torchtitan's order, written only for the parts some side uses; the measurement; and ``main`` for a run, for
the two sides of a diff run from one interpreter, and for a diff whose sides ran with different software. Plain
torch, torchao and the standard library: what a maintainer reads and runs without memprobe."""

from __future__ import annotations

import json

FLOAT8 = '''
def float8_eligible(module, fqn):
    """The linears torchao converts: both dimensions multiples of 16 (what torch._scaled_mm runs), but those named in
    FLOAT8_SKIP (left in bf16, as torchtitan's filter_fqns leaves them)."""
    aligned = module.in_features % 16 == 0 and module.out_features % 16 == 0
    return isinstance(module, nn.Linear) and aligned and fqn not in FLOAT8_SKIP
'''

SAC = '''
def sac_context_fn(s):
    """Per-op selective activation checkpointing: a fresh policy for each checkpointed region."""

    def context_fn():
        mm_count = {"forward": 0, "recompute": 0}

        def policy(ctx, func, *args, **kwargs):
@@SAVE_ALL@@            mode = "recompute" if ctx.is_recompute else "forward"
            if func == torch.ops.aten.mm.default:
                mm_count[mode] += 1
                if s["mm_every_second_recomputed"] and mm_count[mode] % 2 == 0:
                    return CheckpointPolicy.PREFER_RECOMPUTE
            return CheckpointPolicy.MUST_SAVE if func in s["save_list"] else CheckpointPolicy.PREFER_RECOMPUTE

        return create_selective_checkpoint_contexts(policy)

    return context_fn
'''

SAVE_ALL = """            if "recompute_list" in s:  # every op's output saved but these ops'
                return CheckpointPolicy.PREFER_RECOMPUTE if func in s["recompute_list"] else CheckpointPolicy.MUST_SAVE
"""

PROCESS_GROUP = '''
def init_process_group(s, device):
    """The default process group FSDP2 shards over: one rank (gloo on the CPU, NCCL on CUDA) at a free local port@@FAKE_DOC@@."""
@@FAKE@@    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    if device.type == "cuda":
        dist.init_process_group("nccl", init_method=address, rank=0, world_size=1, device_id=device)
    else:
        dist.init_process_group("gloo", init_method=address, rank=0, world_size=1)
'''

FAKE = """    if s["fake_world"]:  # the fake backend's collectives return at once and move no data
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=s["fake_world"])
        return
"""

FAKE_DOC = (
    ", or rank 0 of a world of s['fake_world'] ranks over PyTorch's fake process group (sharded parameters, gradients "
    "and optimizer state of rank 0's sizes)"
)


def _apply_stack(features: set[str]) -> str:
    """``apply_stack``: only the steps some side takes."""
    lines = [
        "def apply_stack(model, s, device):",
        '    """The training stack in torchtitan\'s order: float8 -> activation checkpointing -> torch.compile -> FSDP2',
        '    (or a cast to bf16), the last three block by block."""',
        '    blocks = model.get_submodule(s["blocks"])',
    ]
    if "float8" in features:
        lines += [
            '    if s["float8"]:',
            '        config = Float8LinearConfig.from_recipe_name(s["float8"])',
            "        convert_to_float8_training(model, config=config, module_filter_fn=float8_eligible)",
        ]
    if "budget" in features:
        lines += [
            '    if s["ac"] == "memory-budget":',
            '        torch._functorch.config.activation_memory_budget = s["memory_budget"]',
        ]
    if "compile" in features:
        lines += [
            '    skip = "skip_fwd_side_effects_in_bwd_under_checkpoint"',
            '    if s["compile"] and hasattr(torch._dynamo.config, skip):  # a side effect in a checkpointed block: once',
            "        setattr(torch._dynamo.config, skip, True)",
        ]
    if features & {"full", "op", "compile"}:
        lines.append("    for name, block in list(blocks.named_children()):")
        if "full" in features:
            lines += ['        if s["ac"] == "full":', "            block = checkpoint_wrapper(block, preserve_rng_state=False)"]
        if "op" in features:
            lines += [
                '        if s["ac"] == "op":',
                "            block = checkpoint_wrapper(block, context_fn=sac_context_fn(s), preserve_rng_state=False)",
            ]
        if "compile" in features:
            lines += ['        if s["compile"]:', "            block = torch.compile(block, fullgraph=True)"]
        lines.append("        blocks.register_module(name, block)")
    if "fsdp" in features:
        lines += [
            '    if s["fsdp"]:',
            "        init_process_group(s, device)",
            "        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)",
            "        for block in blocks.children():",
            '            fully_shard(block, mp_policy=mp, reshard_after_forward=s["reshard_after_forward"])',
            "        fully_shard(model, mp_policy=mp)",
        ]
    if "cast" in features:
        lines += ['    if not s["fsdp"]:', "        model.to(torch.bfloat16)"]
    return "\n".join(lines) + "\n"


def stack_code(features: set[str], float8_skip: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The stack's code for ``features`` (the parts some side uses: float8, op, full, budget, save_all, compile, fsdp,
    cast, fake), and the import lines it needs."""
    imports = ["import torch"]
    parts = ["# -- the training stack " + "-" * 10, ""]
    if "float8" in features:
        imports += ["import torch.nn as nn", "from torchao.float8 import Float8LinearConfig, convert_to_float8_training"]
        parts.append(f"FLOAT8_SKIP = {json.dumps(list(float8_skip))}  # linears by FQN that stay in bf16\n")
        parts.append(FLOAT8)
    if "op" in features:
        imports.append("from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts")
        parts.append(SAC.replace("@@SAVE_ALL@@", SAVE_ALL if "save_all" in features else ""))
    if features & {"op", "full"}:
        imports.append("from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper")
    if "budget" in features:
        imports.append("import torch._functorch.config")
    if "fsdp" in features:
        imports += [
            "import socket",
            "import torch.distributed as dist",
            "from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard",
        ]
        fake = "fake" in features
        parts.append(PROCESS_GROUP.replace("@@FAKE@@", FAKE if fake else "").replace("@@FAKE_DOC@@", FAKE_DOC if fake else ""))
        if fake:
            imports.append("from torch.testing._internal.distributed.fake_pg import FakeStore")
    parts.append("\n" + _apply_stack(features))
    return "\n".join(parts), tuple(
        imports + ["import argparse", "import contextlib", "import importlib.metadata", "import sys", "import weakref"]
    )


MEASURE = '''
def tensors_in(out):
    """The tensors of a model's output (a tensor, or dicts, tuples and lists of them)."""
    if isinstance(out, torch.Tensor):
        yield out
    elif isinstance(out, dict):
        for value in out.values():
            yield from tensors_in(value)
    elif isinstance(out, (tuple, list)):
        for value in out:
            yield from tensors_in(value)


def loss_of(out):
    """A stand-in loss with a full backward: the mean square of the floating-point outputs that require grad."""
    parts = [t.float().pow(2).mean() for t in tensors_in(out) if t.is_floating_point() and t.requires_grad]
    return sum(parts[1:], parts[0])


def storages(tensor, depth=0):
    """(address, bytes) of each storage a tensor holds: its own, or a tensor subclass's inner tensors' (float8's data
    and scale)."""
    if hasattr(type(tensor), "__tensor_flatten__") and depth < 4:
        names, _ = tensor.__tensor_flatten__()
        for name in names:
            yield from storages(getattr(tensor, name), depth + 1)
        return
    storage = tensor.untyped_storage()
    if storage.nbytes():
        yield storage.data_ptr(), storage.nbytes()


class SavedForBackward:
    """Every tensor autograd saves for backward while ``counting()`` is active: the compiled graphs' saved values,
    what checkpointed regions keep, and what eager code saves (a ``saved_tensors_hooks`` pack hook)."""

    def __init__(self):
        self.saved = []

    def pack(self, tensor):
        self.saved.append(weakref.ref(tensor))
        return tensor

    def counting(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda tensor: tensor)

    def count(self):
        """(saved bytes, parameter bytes): each storage still saved counted once (a value whose autograd node is gone
        is held by nothing); a parameter (a leaf that requires grad, or a view of one) apart, alive anyway."""
        seen, saved, parameters = set(), 0, 0
        for ref in self.saved:
            tensor = ref()
            if tensor is None:
                continue
            base = tensor._base if tensor._base is not None else tensor
            parameter = base.is_leaf and base.requires_grad
            for address, nbytes in storages(tensor):
                if address in seen:
                    continue
                seen.add(address)
                if parameter:
                    parameters += nbytes
                else:
                    saved += nbytes
        return saved, parameters


def train(s, build):
    """Build the model, apply the stack, train ``s["steps"]`` steps with AdamW; measure the last: what autograd saves
    for backward in its forward and loss, and (on CUDA) the step's peak."""
    device = torch.device(s["device"])
    if device.type == "cuda":
        device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)
    model, batch = build(device)
    apply_stack(model, s, device)
    if not s["fsdp"]:  # the model runs in bf16: so does its input
        batch = tuple(t.to(torch.bfloat16) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=s["lr"])
    saved = SavedForBackward()
    for step in range(s["steps"]):
        measured = step == s["steps"] - 1
        print(f"step {step + 1}/{s['steps']}" + (" (measured)" if measured else ""), file=sys.stderr, flush=True)
        if measured and device.type == "cuda":
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
        with saved.counting() if measured else contextlib.nullcontext():
            out = model(*batch)
            loss = loss_of(out)
        if measured:
            saved_bytes, parameter_bytes = saved.count()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        del out, loss
    peak_bytes = None
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        peak_bytes = torch.cuda.max_memory_allocated(device)
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    return {"saved_bytes": saved_bytes, "parameter_bytes": parameter_bytes, "peak_bytes": peak_bytes}


# the peak may move by a little from process to process (what the allocator held before the step); the saved bytes may not
PEAK_TOLERANCE = 0.01


def differences(figures, expected):
    """What differs from the recorded figures, in words (none: it reproduces)."""
    out = []
    for name in ("saved_bytes", "parameter_bytes"):
        if figures[name] != expected[name]:
            out.append(f"{name} is {figures[name]:,}, recorded {expected[name]:,}")
    peak, recorded = figures["peak_bytes"], expected["peak_bytes"]
    if peak is not None and recorded is not None and abs(peak - recorded) > PEAK_TOLERANCE * recorded:
        out.append(f"peak_bytes is {peak:,}, recorded {recorded:,} (more than {PEAK_TOLERANCE:.0%} apart)")
    return out


def show(figures, expected, label=""):
    print(f"{label}saved for backward: {figures['saved_bytes']:,} bytes (recorded: {expected['saved_bytes']:,})")
    print(f"{label}parameters saved, apart: {figures['parameter_bytes']:,} bytes (recorded: {expected['parameter_bytes']:,})")
    if figures["peak_bytes"] is not None:
        recorded = f"{expected['peak_bytes']:,}" if expected["peak_bytes"] is not None else "not recorded"
        print(f"{label}peak of the step: {figures['peak_bytes']:,} bytes (recorded: {recorded})")


def installed(name):
    """The installed version of a library (None: not installed)."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def same_version(here, recorded):
    """Whether two versions are one release (a local label such as +cpu aside)."""
    return here == recorded or (here or "").split("+")[0] == (recorded or "").split("+")[0]


def say_versions(recorded):
    for name, version in recorded.items():
        if not same_version(installed(name), version):
            print(f"note: recorded with {name} {version}; this is {name} {installed(name)}", file=sys.stderr)


def checked(found, label=""):
    """Exit 1 when ``found`` (what differs) is not empty, saying what."""
    for line in found:
        print(f"{label}does not reproduce: {line}")
    if found:
        sys.exit(1)
    print(f"{label}reproduces the recorded figures")
'''

MAIN_RUN = """

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 unless the figures equal the recorded ones")
    args = parser.parse_args()
    say_versions(RECORDED_WITH)
    figures = train(SETTINGS, build)
    show(figures, EXPECTED)
    if args.check:
        checked(differences(figures, EXPECTED))


if __name__ == "__main__":
    main()
"""

MAIN_TOGETHER = '''

def run_side(side):
    """One side in a fresh process of this script: two configurations in one process would share its allocator and its
    compile caches."""
    proc = subprocess.run([sys.executable, __file__, "--side", side, "--figures"], check=False, stdout=subprocess.PIPE, text=True)
    if proc.returncode:
        sys.exit(f"side {side.upper()} failed (exit {proc.returncode})")
    return json.loads(proc.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=["a", "b"], help="run one side in this process (default: both, one after the other)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless each side's figures equal the recorded ones")
    parser.add_argument("--figures", action="store_true", help="print the side's figures as JSON (what --side b runs for both)")
    args = parser.parse_args()
    if args.side:
        say_versions(RECORDED_WITH[args.side])
        figures = train(SETTINGS[args.side], BUILD[args.side])
        if args.figures:
            print(json.dumps(figures))
            return
        show(figures, EXPECTED[args.side], f"{args.side.upper()}: ")
        if args.check:
            checked(differences(figures, EXPECTED[args.side]), f"{args.side.upper()}: ")
        return
    figures = {side: run_side(side) for side in ("a", "b")}
    for side in ("a", "b"):
        show(figures[side], EXPECTED[side], f"{side.upper()}: ")
    delta = figures["b"]["saved_bytes"] - figures["a"]["saved_bytes"]
    recorded = EXPECTED["b"]["saved_bytes"] - EXPECTED["a"]["saved_bytes"]
    print(f"B - A saved for backward: {delta:+,} bytes (recorded: {recorded:+,})")
    found = [] if delta == recorded else [f"B - A is {delta:+,} bytes, recorded {recorded:+,}"]
    if args.check:
        found += [f"{side.upper()}: {line}" for side in ("a", "b") for line in differences(figures[side], EXPECTED[side])]
    checked(found)


if __name__ == "__main__":
    main()
'''

MAIN_APART = '''

def which_side(given):
    """The side this interpreter runs: the one given, or the one whose recorded versions it has."""
    if given:
        return given
    here = {name: installed(name) for name in RECORDED_WITH["a"]}
    sides = [k for k, versions in RECORDED_WITH.items() if all(same_version(here[n], v) for n, v in versions.items())]
    if len(sides) != 1:
        sys.exit(f"pass --side a or --side b: this interpreter has {here}; the sides were recorded with {RECORDED_WITH}")
    return sides[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=["a", "b"], help="the side this interpreter runs (default: the one whose versions it has)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the side's figures equal the recorded ones")
    args = parser.parse_args()
    side = which_side(args.side)
    say_versions(RECORDED_WITH[side])
    figures = train(SETTINGS[side], BUILD[side])
    show(figures, EXPECTED[side], f"{side.upper()}: ")
    if args.check:
        checked(differences(figures, EXPECTED[side]), f"{side.upper()}: ")


if __name__ == "__main__":
    main()
'''
