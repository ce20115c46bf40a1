"""The findings of a PostgreSQL deployment, and the same findings grouped by kind for people to read.

A rich schema gives hundreds of findings that differ only in the mapping they concern ("the distribution
key (...) is not the target's primary key" once per mapping). `grouped_lines` says each kind once, with how
many mappings (or columns) it concerns and the first few of them; the per-mapping findings stay whole in
`PgPlan.findings`, report.txt and report.json, so nothing is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SHOWN = 3
"""How many mapping ids a grouped line names before "and N more"."""


@dataclass(frozen=True)
class DeployFinding:
    """Something PostgreSQL cannot express. `kind`: `not_deployed` (a mapping or column left out) or
    `differs` (deployed, but PostgreSQL resolves or orders it differently from a Mapwright run). `shape`:
    the message with its model-specific parts as `...`, the same for every finding of one kind (empty when
    the message has no such parts)."""

    kind: str
    message: str
    mapping: str | None = None
    column: str | None = None
    topic: str = ""  # "schedule" for the schedule's finding, which verification replaces by its own
    shape: str = ""

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.mapping is not None:
            d["mapping"] = self.mapping
        if self.column is not None:
            d["column"] = self.column
        return d

    @property
    def where(self) -> str:
        if self.mapping is None:
            return "all mappings"
        return self.mapping + (f".{self.column}" if self.column else "")

    def line(self) -> str:
        return f"{self.where}: {self.kind.replace('_', ' ')}: {self.message}"


def finding(kind: str, template: str, *args: object, mapping: str | None = None,
            column: str | None = None) -> DeployFinding:
    """A finding whose message is `template` with `args` put into its `{}` places (model text is never read
    as a template) and whose shape has `...` there; a template without args is the message as it is."""
    if not args:
        return DeployFinding(kind, template, mapping, column)
    return DeployFinding(kind, template.format(*args), mapping, column,
                         shape=template.format(*(["..."] * len(args))))


def group_findings(findings: list[DeployFinding]) -> list[list[DeployFinding]]:
    """The findings by kind and message shape, in the order each kind first appears. A finding about the
    whole model (no mapping) stays alone."""
    groups: dict[tuple[str, str] | int, list[DeployFinding]] = {}
    for n, f in enumerate(findings):
        key: tuple[str, str] | int = (f.kind, f.shape or f.message) if f.mapping is not None else n
        groups.setdefault(key, []).append(f)
    return list(groups.values())


def grouped_line(group: list[DeployFinding]) -> str:
    """One line for a group: `kind (N mappings: a, b, c and M more): message` (the shape when the
    messages differ), or the finding's own line when it is alone."""
    first = group[0]
    places = list(dict.fromkeys(f.where for f in group))
    if len(places) == 1:
        return first.line() if len(group) == 1 else f"{places[0]}: {first.kind.replace('_', ' ')} " \
            f"({len(group)} times): {first.shape or first.message}"
    noun = "columns" if any(f.column for f in group) else "mappings"
    named = ", ".join(places[:SHOWN]) + (f" and {len(places) - SHOWN} more" if len(places) > SHOWN else "")
    same = all(f.message == first.message for f in group)
    return f"{first.kind.replace('_', ' ')} ({len(places)} {noun}: {named}): " \
        f"{first.message if same else first.shape or first.message}"


def grouped_lines(findings: list[DeployFinding]) -> list[str]:
    """Each kind of finding once (see `grouped_line`): what the command line and the designer print."""
    return [grouped_line(group) for group in group_findings(findings)]


def report_text(findings: list[DeployFinding], publications: int, subscriptions: int) -> str:
    """report.txt: the counts, each kind of finding once, then every finding with its mapping."""
    groups = grouped_lines(findings)
    lines = [f"{publications} mapping(s) deployed as publications, {subscriptions} subscription(s); "
             f"{len(findings)} finding(s) of {len(groups)} kind(s)", ""]
    lines += groups
    lines += ["", "Every finding, one per mapping or column:", ""]
    lines += [f.line() for f in findings]
    return "\n".join(lines) + "\n"
