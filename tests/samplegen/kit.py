"""Helpers of the sample generator's tests: measuring a sample as a run sees it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core.values import to_json_value
from engine.model.schema import Model
from engine.run.input.records import change_lines, read_changes
from engine.run.input.schedule import load_schedule
from engine.run.input.snapshots import read_snapshots
from engine.run.semantics.context import build_context
from engine.run.semantics.reference import RunResult, build_events


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def lines_written(data: Path) -> int:
    return sum(1 for _ in change_lines(data / "changes"))


def conflict_rate(model: Model, data: Path, run: RunResult) -> tuple[int, int]:
    """(keys with a conflict, keys delivered): distinct (table, distribution key) in the run's conflicts, over
    distinct (table, distribution key) its deliveries reach (the rate `SampleOptions.conflict_rate` means)."""
    ctx = build_context(model)
    records, _ = read_changes(data, model)
    _, deliveries, _ = build_events(ctx, records, read_snapshots(data, model), load_schedule(data / "schedule.json"))
    delivered = {(e["table"], json.dumps([to_json_value((e["new"] or e["old"]).get(c))
                                          for c in ctx.mappings[e["mapping"]].dkey or ()]))
                 for e in deliveries if ctx.mappings[e["mapping"]].dkey}
    conflicted = {(c["table"], json.dumps(list(c["dkey"].values()))) for c in run.conflicts}
    return len(conflicted), len(delivered)


def masters(model: Model) -> dict[str, set[str]]:
    """The servers that write into each table (CR006's count): sources of mappings into it, and its own
    server when a mapping reads it."""
    out: dict[str, set[str]] = {}
    for m in model.mappings:
        source, target = model.table(m.source), model.table(m.target)
        if source is None or target is None:
            continue
        out.setdefault(target.key, set()).add(source.server)
        out.setdefault(source.key, set()).add(source.server)
    return out


def configured_methods(model: Model) -> set[str]:
    """Every method, backup and policy the model's conflicts configure (what a conflict's `method` names)."""
    out = {step.method for entry in model.conflicts for group in entry.column_groups for step in group.resolution}
    out |= {u.resolution for entry in model.conflicts for u in entry.unique if u.resolution != "error"}
    for entry in model.conflicts:
        out |= {p for p in (entry.on_insert_exists, entry.on_update_missing, entry.on_delete_missing)
                if p not in ("error", "as_update")}
    return out


def decided(run: RunResult) -> set[str]:
    return {str(c["method"]) for c in run.conflicts if c["method"] is not None}


def record_docs(data: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for _, _, raw in change_lines(data / "changes")]
