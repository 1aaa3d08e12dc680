"""What a run's findings are found in: :class:`Evidence`, the parts of its record the rules of
:mod:`.findings` and :mod:`.decisions` read, gathered once."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import ProbeConfig
from ..rundir import schema as S
from .saved import GraphPair


@dataclass(frozen=True)
class Evidence:
    """A run's saved table and totals, its configuration, and what else it recorded that a finding may rest on (None:
    not recorded, or not to be judged: the rules that need it find nothing)."""

    rows: list[S.SavedRow]  # the saved table (report.saved_tensors)
    totals: S.SavedTotals
    config: ProbeConfig
    policy: S.Policy | None = None  # the SAC policy's save list
    attribution: S.Attribution | None = None  # what was alive at the measured peaks
    float8: S.Float8Coverage | None = None  # which linears float8 converted
    pairs: dict[int, GraphPair] | None = None  # the run's graphs (with ``invocations``: how its blocks' graphs differ)
    invocations: list[S.Invocation] | None = None  # the measured step's compiled calls
    model: S.ModelShape | None = None  # what the probe built
    coverage: S.CompileCoverage | None = None  # what torch.compile ran eagerly
    saved_outside: S.SavedOutside | None = None  # what autograd saved outside the compiled graphs

    @classmethod
    def of(cls, report: S.Report, pairs: dict[int, GraphPair] | None = None) -> Evidence:
        """A derived run's evidence, all of it (``pairs``: its graphs, read by the caller)."""
        return cls(
            rows=report.saved_tensors,
            totals=report.saved_totals,
            config=report.config.probe(),
            policy=report.policy,
            attribution=report.attribution,
            float8=report.float8,
            pairs=pairs,
            invocations=report.invocations,
            model=report.model,
            coverage=report.compile_coverage,
            saved_outside=report.saved_outside,
        )
