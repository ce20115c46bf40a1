"""`mapwright conflicts RUNDIR`: what a run left, read back from its run directory (CONTRACT section 6)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class RunDirUnreadable(ValueError):
    """Not a run directory, or one whose files cannot be read; the message names the file."""


@dataclass
class RunSummary:
    manifest: dict[str, Any]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    error_queue: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    convergence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        return str(self.manifest.get("status", "unknown"))

    def as_dict(self) -> dict[str, Any]:
        def by(key: str) -> dict[str, int]:
            return dict(sorted(Counter(str(c.get(key)) for c in self.conflicts).items()))

        return {
            "status": self.status, "reason": self.manifest.get("reason"), "counts": self.manifest.get("counts"),
            "stages": self.manifest.get("stages"),
            "conflicts": {"total": len(self.conflicts), "by_type": by("type"), "by_outcome": by("outcome"),
                          "by_table": by("table")},
            "error_queue": len(self.error_queue), "rejects": len(self.rejects),
            "convergence": [{k: m.get(k) for k in ("mapping", "compared", "diverged")} for m in self.convergence],
        }


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise RunDirUnreadable(f"{path}:{number}: invalid JSON: {exc.msg}") from None
            except (RecursionError, ValueError):  # nested past the stack, or an integer of over 4,300 digits
                raise RunDirUnreadable(f"{path}:{number}: JSON nested too deeply or a number too long") from None
    return out


def read_run(rundir: Path) -> RunSummary:
    manifest_file = rundir / "manifest.json"
    if not rundir.is_dir():
        raise RunDirUnreadable(f"{rundir}: no such folder")
    if not manifest_file.is_file():
        raise RunDirUnreadable(f"{rundir}: not a run directory (no manifest.json)")
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        convergence = json.loads((rundir / "convergence.json").read_text()) if (rundir / "convergence.json").exists() \
            else {"mappings": []}
    except json.JSONDecodeError as exc:
        raise RunDirUnreadable(f"{manifest_file}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except (RecursionError, ValueError):  # nested past the stack, or an integer of over 4,300 digits
        raise RunDirUnreadable(f"{rundir}: manifest.json or convergence.json is JSON nested too deeply "
                               "or holds a number too long") from None
    return RunSummary(manifest, _jsonl(rundir / "conflicts.jsonl"), _jsonl(rundir / "error_queue.jsonl"),
                      _jsonl(rundir / "rejects.jsonl"), convergence.get("mappings", []))


def render_summary(summary: RunSummary, rundir: Path) -> str:
    doc = summary.as_dict()
    lines = [f"run {rundir}: {summary.status}" + (f" ({doc['reason']})" if doc["reason"] else "")]
    counts = doc["counts"] or {}
    if counts:
        lines.append("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if summary.status != "succeeded":
        return "\n".join(lines)
    c = doc["conflicts"]
    lines.append(f"\nconflicts: {c['total']}")
    for title, key in (("by type", "by_type"), ("by outcome", "by_outcome"), ("by table", "by_table")):
        if c[key]:
            lines.append(f"  {title}: " + ", ".join(f"{k} {v}" for k, v in c[key].items()))
    lines.append(f"error queue: {doc['error_queue']}    rejects: {doc['rejects']}")
    lines.append("\nconvergence:")
    for m in summary.convergence:
        state = "converged" if not m.get("diverged") else f"DIVERGED on {m['diverged']} of {m['compared']} keys"
        lines.append(f"  {m['mapping']:<28} {state}")
        for example in (m.get("examples") or [])[:3]:
            lines.append(f"      {describe_difference(example)}")
    return "\n".join(lines)


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
