"""Markdown for pull-request comments (compact tables, the top items, the verdict)."""

from __future__ import annotations

from ..units import fmt_bytes

STATUS_LABEL = {"only_b": "only in B", "grown": "grown in B", "only_a": "only in A", "shrunk": "shrunk in B"}
TOP = 10


def _signed(n: int | None) -> str:
    if n is None:
        return "n/a"
    return ("+" if n > 0 else "") + fmt_bytes(n)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def diff_markdown(d: dict) -> str:
    t = d["totals"]
    saved = t["saved_bytes"]
    lines = [
        "### memprobe diff",
        "",
        f"**A** `{d['a']['summary']}`  ",
        f"**B** `{d['b']['summary']}`",
        "",
    ]
    if d["differences"] == 0:
        lines.append(f"No difference in saved-for-backward values ({d['unchanged_items']} matched).")
    else:
        lines.append(
            f"B saves **{_signed(saved['delta'])}** for backward per step"
            f" ({fmt_bytes(saved['a'])} -> {fmt_bytes(saved['b'])}); {d['differences']} difference(s)."
        )
    lines.append("")
    if d["items"]:
        lines += ["| | saved value | x | A | B | delta | why |", "|---|---|---:|---:|---:|---:|---|"]
        for it in d["items"][:TOP]:
            why = it["reason_kind"] + (f" `{it['policy_op']}`" if it.get("policy_op") else "")
            lines.append(
                f"| {STATUS_LABEL[it['status']]} | `{_cell(it['expr'])}` | {it['count']} | {fmt_bytes(it['bytes_a'])}"
                f" | {fmt_bytes(it['bytes_b'])} | {_signed(it['delta_bytes'])} | {why} |"
            )
        if len(d["items"]) > TOP:
            lines.append(f"\n_{len(d['items']) - TOP} more in diff.json._")
        lines.append("")
        hints = list(dict.fromkeys(it["hint"] for it in d["items"][:TOP] if it["status"] in ("only_b", "grown")))
        for h in hints[:3]:
            lines.append(f"- {h}")
        if hints:
            lines.append("")
    ph = d.get("phases")
    if ph and ph.get("comparable"):
        lines += [f"Measured peaks ({ph['source']}):", "", "| phase | A | B | delta |", "|---|---:|---:|---:|"]
        for name, figs in ph["phases"].items():
            p = figs["peak_bytes"]
            lines.append(f"| {name} | {fmt_bytes(p['a'])} | {fmt_bytes(p['b'])} | {_signed(p['delta'])} |")
        lines.append("")
    return "\n".join(lines)
