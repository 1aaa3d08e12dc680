"""The gate's budget file (``memprobe.toml``) and what is checked against it, one module per job:

- :mod:`.file`: reading and checking the file (its probes' configurations, their limits), sizes and shares;
- :mod:`.figures`: the gate's figures of one run (the metrics a limit may bound);
- :mod:`.limits`: each limit checked against its probe's run, a typed verdict (``LimitVerdict``);
- :mod:`.baseline`: the stored baseline relative limits compare with (an entry, when it compares, reading it);
- :mod:`.breach`: why a probe breached, in the user's terms (``BreachExplanation``);
- :mod:`.toml` and :mod:`.write`: a starter budget file, as ``memprobe budget`` writes it.

The names other packages use are these, from here.
"""

from .baseline import BASELINE_VERSION, baseline_entry, baseline_mismatch, load_baseline, same_measurement
from .breach import explain_breach
from .figures import figures
from .file import PROBE_NAME, Budget, BudgetError, Limit, Probe, load_budget, parse_relative, parse_size
from .limits import evaluate, nothing_checked
from .toml import toml_key, toml_value
from .write import StarterBudget, budget_text, size_text

__all__ = [
    "BASELINE_VERSION",
    "PROBE_NAME",
    "Budget",
    "BudgetError",
    "Limit",
    "Probe",
    "StarterBudget",
    "baseline_entry",
    "baseline_mismatch",
    "budget_text",
    "evaluate",
    "explain_breach",
    "figures",
    "load_baseline",
    "load_budget",
    "nothing_checked",
    "parse_relative",
    "parse_size",
    "same_measurement",
    "size_text",
    "toml_key",
    "toml_value",
]
