"""Keep library chatter out of the user's terminal (``--verbose`` lets it through).

torchao logs a warning for each optional CUDA extension a CPU build cannot load,
torch's pytree warns about torchao's enum registration, and Dynamo warns that a
``context_fn`` is passed to checkpoint under compile (which is the point here).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from contextlib import contextmanager

_LOGGERS = (
    "torchao",
    "torch",
    "torch._dynamo",
    "torch._inductor",
    "torch._higher_order_ops",
    "torch.utils._pytree",
    "torch.distributed",
)


def quiet_logs(verbose: bool = False) -> None:
    if verbose:
        return
    try:  # first: set_logs resets the levels of torch's loggers
        import torch._logging

        torch._logging.set_logs(dynamo=logging.ERROR, aot=logging.ERROR, inductor=logging.ERROR)
    except Exception:  # an older torch without set_logs: the logger levels below still apply
        pass
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module=r"torch(ao)?(\.|$)")
    # torchao's sources carry invalid escapes; Python 3.12 warns when compiling them without .pyc files
    warnings.filterwarnings("ignore", category=SyntaxWarning)


@contextmanager
def model_output_to_stderr():
    """While a model runs in this process, whatever it prints goes to stderr (file descriptor 1 and
    ``sys.stdout`` both): our stdout may be carrying ``--json``."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout to protect
        yield
        return
    real_stdout = sys.stdout
    try:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        yield
    finally:
        sys.stderr.flush()
        sys.stdout = real_stdout
        os.dup2(saved, 1)
        os.close(saved)
