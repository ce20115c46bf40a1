"""`mapwright conflicts RUNDIR`: what a run left, read back from its run directory (docs/contract.md §6)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.model.io import one_line
from engine.run.rundir.read import LastAttempt, RunDirDamaged, RunDirUnreadable, read_run_files

__all__ = ["RunDirDamaged", "RunDirUnreadable", "RunSummary", "read_run", "render_summary"]


@dataclass
class RunSummary:
    manifest: dict[str, Any]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    error_queue: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    convergence: list[dict[str, Any]] = field(default_factory=list)
    last_attempt: LastAttempt | None = None
    """A failed attempt over this run, whose manifest is in `RUNDIR.attempt/`."""

    @property
    def status(self) -> str:
        return str(self.manifest.get("status", "unknown"))

    def as_dict(self) -> dict[str, Any]:
        def by(key: str) -> dict[str, int]:
            return dict(sorted(Counter(str(c.get(key)) for c in self.conflicts).items()))

        doc: dict[str, Any] = {
            "status": self.status, "reason": self.manifest.get("reason"), "counts": self.manifest.get("counts"),
            "stages": self.manifest.get("stages"),
            "conflicts": {"total": len(self.conflicts), "by_type": by("type"), "by_outcome": by("outcome"),
                          "by_table": by("table")},
            "error_queue": len(self.error_queue), "rejects": len(self.rejects),
            "convergence": [{k: m.get(k) for k in ("mapping", "compared", "diverged")} for m in self.convergence],
        }
        if self.last_attempt is not None:
            doc["last_attempt"] = self.last_attempt.as_dict()
        return doc


def read_run(rundir: Path) -> RunSummary:
    """The run directory at `rundir`, checked whole first (`engine.run.rundir.read`): a damaged one raises
    `RunDirDamaged` naming the file and line, never a partial summary."""
    files = read_run_files(rundir)
    return RunSummary(files.manifest, files.conflicts, files.error_queue, files.rejects, files.convergence,
                      files.last_attempt)


def render_summary(summary: RunSummary, rundir: Path) -> str:
    doc = summary.as_dict()
    lines = [f"run {rundir}: {summary.status}" + (f" ({doc['reason']})" if doc["reason"] else "")]
    if summary.last_attempt is not None:
        lines.append(f"  note: {summary.last_attempt.describe()}")
    counts = doc["counts"] or {}
    if counts:
        lines.append("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if summary.status != "succeeded":
        return _printable(lines)
    c = doc["conflicts"]
    lines += ["", f"conflicts: {c['total']}"]
    for title, key in (("by type", "by_type"), ("by outcome", "by_outcome"), ("by table", "by_table")):
        if c[key]:
            lines.append(f"  {title}: " + ", ".join(f"{k} {v}" for k, v in c[key].items()))
    lines.append(f"error queue: {doc['error_queue']}    rejects: {doc['rejects']}")
    lines += ["", "convergence:"]
    for m in summary.convergence:
        state = "converged" if not m.get("diverged") else f"DIVERGED on {m['diverged']} of {m['compared']} keys"
        lines.append(f"  {m['mapping']:<28} {state}")
        for example in (m.get("examples") or [])[:3]:
            lines.append(f"      {describe_difference(example)}")
    return _printable(lines)


def _printable(lines: list[str]) -> str:
    """The lines joined, each with its control characters escaped: names, values and reasons come from the
    model and the data, and an ESC in one must not clear or retitle the terminal, nor a newline forge a line."""
    return "\n".join(one_line(line) for line in lines)


def describe_difference(example: dict[str, Any]) -> str:
    """`key REGION=EA, NO=7: PHONE '1' at the source, '2' at the target` - only what differs."""
    key = ", ".join(f"{k}={v}" for k, v in (example.get("dkey") or {}).items())
    source, target = example.get("source"), example.get("target")
    if source is None:
        return f"key {key}: only at the target"
    if target is None:
        return f"key {key}: missing at the target"
    if isinstance(source, list) or isinstance(target, list):
        return f"key {key}: several rows share the key"
    diffs = [f"{c} {source.get(c)!r} at the source, {target.get(c)!r} at the target"
             for c in source if source.get(c) != target.get(c)]
    return f"key {key}: " + ("; ".join(diffs[:3]) + (f" (+{len(diffs) - 3} more)" if len(diffs) > 3 else ""))
