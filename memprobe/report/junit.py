"""JUnit XML of a gate (``memprobe gate --junit``): a test suite per probe, a test case per limit."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from ..rundir import schema as S
from ..text import xml_text
from ..units import fmt_bytes
from ..vocab import Verdict
from .words import limit_metric, limit_text


def gate_junit(result: S.GateResult) -> str:
    """The verdicts as JUnit XML: a test suite per probe, a test case per limit; every recorded string made
    text XML 1.0 can hold (:func:`~memprobe.text.xml_text`), so the document is always well formed."""
    suites = ET.Element("testsuites", name="memprobe gate")
    by_probe: dict[str, list[S.LimitVerdict]] = {}
    for v in result.verdicts:
        by_probe.setdefault(v.probe, []).append(v)
    for probe, verdicts in by_probe.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=xml_text(probe),
            tests=str(len(verdicts)),
            failures=str(sum(v.verdict == Verdict.FAIL for v in verdicts)),
            skipped=str(sum(v.verdict == Verdict.SKIP for v in verdicts)),
        )
        for v in verdicts:
            _test_case(suite, probe, v, result.explanations.get(probe))
    return ET.tostring(suites, encoding="unicode")


def _test_case(suite: ET.Element, probe: str, v: S.LimitVerdict, why: S.BreachExplanation | None) -> None:
    """A limit's test case: failed with what breached it and why, skipped with why, or passed."""
    case = ET.SubElement(suite, "testcase", classname=xml_text(f"memprobe.{probe}"), name=xml_text(limit_metric(v)))
    if v.verdict == Verdict.FAIL:
        msg = v.notice if v.measured is None or v.limit is None else None
        msg = msg or f"{fmt_bytes(v.measured)} > {limit_text(v)}"
        fail = ET.SubElement(case, "failure", message=xml_text(msg))
        fail.text = xml_text("\n".join([why.headline, *why.lines] if why else [""]))
    elif v.verdict == Verdict.SKIP:
        ET.SubElement(case, "skipped", message=xml_text(v.notice))
