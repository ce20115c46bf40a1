"""Findings as text a data architect reads: grouped by mapping (then table), severity first."""

from __future__ import annotations

from engine.model.io import one_line
from engine.model.schema import Model
from engine.rules.findings import Finding, count


def summary(findings: list[Finding]) -> str:
    errors, warnings = count(findings)
    return f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def group_title(model: Model, finding: Finding) -> str:
    loc = finding.location
    if loc.mapping:
        mapping = model.mapping(loc.mapping)
        return f"mapping {loc.mapping}" + (f" ({mapping.source} -> {mapping.target})" if mapping else "")
    if loc.group or finding.code.startswith("CR"):  # a key or index finding (TB001, TB005) is the table's
        return f"conflicts on {loc.table}"
    return f"table {loc.table}" if loc.table else "model"


def render_text(model: Model, findings: list[Finding], source: str = "") -> str:
    """One block per mapping or table; each line `severity  code  where: message`; a summary last."""
    if not findings:
        return one_line(f"{source}: no problems found" if source else "no problems found")
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(group_title(model, finding), []).append(finding)
    lines: list[str] = []
    order = sorted(groups, key=lambda t: (not t.startswith("mapping"), t))
    for title in order:
        lines.append(title)
        for f in sorted(groups[title], key=Finding.sort_key):
            where = ".".join(x for x in (f.location.group, f.location.index, f.location.column) if x)
            lines.append(f"  {f.severity.value:<8} {f.code}  {where + ': ' if where else ''}{f.message}")
        lines.append("")
    lines.append(f"{source}: {summary(findings)}" if source else summary(findings))
    return "\n".join(one_line(line) for line in lines)  # a name's ESC or newline must not reach the terminal
