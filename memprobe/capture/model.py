"""What a probe reads off the model its family built (:mod:`memprobe.targets`): its parameters by block, the names of
its blocks' arguments and the files of its own code (for the report and the saved table's names); the batch cast as a
model cast to bf16 runs it; and a failure of the model's code in one line.
"""

from __future__ import annotations

import inspect
import re

from ..rundir import records as R
from ..targets import BuiltModel


def cast_batch(batch: tuple, dtype) -> tuple:
    """Floating-point tensors of the batch in ``dtype`` (a model cast to bf16 without FSDP)."""
    import torch

    return tuple(t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in batch)


def describe(target: BuiltModel) -> R.ModelShape:
    """Parameter counts by block and outside the blocks (for the report and the estimate); the names of the
    blocks' forward arguments and the files of the model's own code (for the saved table's names and frames)."""
    blocks = target.blocks
    per_block = {}
    in_blocks = set()
    for name, block in blocks.named_children():
        params = list(block.parameters())
        in_blocks.update(id(p) for p in params)
        per_block[f"{target.blocks_attr}.{name}"] = sum(p.numel() for p in params)
    others = [p.numel() for p in target.model.parameters() if id(p) not in in_blocks]
    shape = R.ModelShape(
        blocks_attr=target.blocks_attr,
        blocks=len(per_block),
        block_parameters=per_block,
        other_parameters=sum(others),
        other_parameter_numels=others,
    )
    arguments = block_arguments(blocks)
    if arguments is not None:
        shape.block_arguments = arguments
    shape.code_files = model_code_files(target.model)
    return shape


def block_arguments(blocks) -> list[str] | None:
    """The names of the positional parameters of the blocks' ``forward`` (``["x", "rope_cache", "attention_masks",
    "positions"]``): a block's ``args[2]`` is named by them. None when the blocks' signatures differ."""
    names = None
    for block in blocks.children():
        try:
            params = inspect.signature(block.forward).parameters.values()
        except (TypeError, ValueError):
            return None
        mine = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if names is not None and mine != names:
            return None
        names = mine
    return names


# packages whose module classes are the machinery around a model, not the model's own code
_MACHINERY = ("torch", "torchao")


def model_code_files(model) -> list[str]:
    """The source files of the model's own module classes (its ``--model`` file, transformers'
    ``models/llama/modeling_llama.py``, torchtitan's ``models/``), not torch's or torchao's: a frame in one of
    them is the user's model, wherever it is installed."""
    files = set()
    for cls in {type(m) for m in model.modules()}:
        if cls.__module__.split(".")[0] in _MACHINERY:
            continue
        try:
            path = inspect.getsourcefile(cls)
        except (TypeError, OSError):
            continue
        if path:
            files.add(path)
    return sorted(files)


# known causes of failures in a model's code under the probe's stack, and what to do about them
_KNOWN_FIXES = (
    (
        re.compile(r"DynamicLayer|DynamicCache|cache_utils\.py"),
        "the model's KV cache does not trace under torch.compile: build it with use_cache=False (memprobe turns it "
        "off itself for a transformers model, see docs/models.md)",
    ),
)
_CONSTANT = re.compile(r'^ConstantVariable\((?:\w+: )?"(?P<text>.*)"\)$')
_RAISED = re.compile(r"raised exception (?P<type>\w+)\(")
# torch 2.15's Dynamo: the observed exception's own message is `raised exception TYPE("TEXT")`
_RAISED_TEXT = re.compile(r"""^raised exception \w+\((?P<quote>["'])(?P<text>.*)(?P=quote)\)$""")
_USER_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


def _chain(error: BaseException) -> list[BaseException]:
    """The error and its causes (``raise ... from``, or the exception it was raised while handling), outermost first."""
    chain: list[BaseException] = []
    cur: BaseException | None = error
    while cur is not None and cur not in chain and len(chain) < 20:
        chain.append(cur)
        cur = cur.__cause__ or (None if cur.__suppress_context__ else cur.__context__)
    return chain


def _message(inner: BaseException) -> str:
    """The first line of an exception's message; Dynamo's re-raise of the model's own exception as an "observed" one
    gives the message it holds."""
    lines = str(inner).strip().splitlines()
    text = lines[0].strip() if lines else ""
    m = _CONSTANT.match(text) or _RAISED_TEXT.match(text)
    return m["text"] if m else text


def _kind_and_place(chain: list[BaseException]) -> tuple[str, str | None]:
    """The innermost exception's type and the user's frame it was raised in, from Dynamo's messages (which name the
    model's exception type and its frames) or from the traceback."""
    import traceback

    from ..analysis.frames import is_library, short_path

    inner = chain[-1]
    kind, where = type(inner).__name__, None
    for e in chain:
        raised = _RAISED.search(str(e))
        if raised and kind.startswith("Observed"):
            kind = raised["type"]
        frames = _USER_FRAME.findall(str(e).partition("from user code:")[2])
        if frames:
            file, line, _func = frames[-1]
            where = f"{short_path(file)}:{line}"
    if where is None:
        stack = traceback.extract_tb(inner.__traceback__)
        frames = [f for f in stack if not is_library(f.filename)] or stack
        if frames:
            where = f"{short_path(frames[-1].filename)}:{frames[-1].lineno}"
    return kind, where


def innermost_cause(error: BaseException) -> str:
    """A failure of the model's code in one line: its innermost cause (through ``raise ... from`` and Dynamo's
    wrapping), the innermost frame it was raised in, and the fix where memprobe knows one."""
    chain = _chain(error)
    inner = chain[-1]
    kind, where = _kind_and_place(chain)
    line = f"{kind}: {_message(inner)}" + (f" ({where})" if where else "")
    if inner is not error:
        outer = (str(error).strip().splitlines() or [""])[0]
        line = f"{type(error).__name__}: {outer} <- {line}"
    fix = next((fix for pattern, fix in _KNOWN_FIXES if pattern.search(line)), None)
    return line + (f"; {fix}" if fix else "")
