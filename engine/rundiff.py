"""`mapwright diff RUN_A RUN_B`: what changed between two succeeded runs (docs/contract.md §6).

Both run directories are read whole and checked first (`engine.run.rundir.read`), so a damaged or
unfinished run is one clear error, never a partial diff. Compared: the manifest's counts, the conflicts by
table and outcome, the diverged keys of each mapping's convergence, and the final rows of every table,
matched by the table's key (its primary key, else its first unique index, from the run's model while that
file is unchanged; else the whole row). Numbers are equal whatever their scale (section 7: `0.00` = `0`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.values import to_json_value
from engine.model.io import one_line
from engine.run.rundir.documents import COUNT_KEYS
from engine.run.rundir.read import RunDirUnreadable, RunFiles, read_run_files
from engine.rundiff_rows import EXAMPLES, Row, TableDiff, diff_table, read_rows, table_files, table_keys

__all__ = ["RunDiff", "RunDirUnreadable", "TableDiff", "diff_runs", "render_diff"]


@dataclass(frozen=True)
class Change:
    """One compared quantity: a count, the conflicts of a (table, outcome), a mapping's diverged keys.
    None where the run has no such thing (a mapping of one run only)."""

    name: str
    a: int | None
    b: int | None
    outcome: str | None = None
    """The outcome, for the conflicts of a table (`name`)."""

    @property
    def shown(self) -> str:
        return self.name if self.outcome is None else f"{self.name} {self.outcome}"

    @property
    def equal(self) -> bool:
        return self.a == self.b


@dataclass
class RunDiff:
    """Two runs compared: every count, conflict group, mapping and table of either run, equal or not."""

    run_a: Path
    run_b: Path
    counts: list[Change]
    conflicts: list[Change]
    convergence: list[Change]
    tables: list[TableDiff]

    @property
    def equal(self) -> bool:
        return all(c.equal for c in (*self.counts, *self.conflicts, *self.convergence)) and \
            all(t.equal for t in self.tables)

    def as_dict(self) -> dict[str, Any]:
        return {"a": str(self.run_a), "b": str(self.run_b), "equal": self.equal,
                "counts": {c.name: {"a": c.a, "b": c.b} for c in self.counts},
                "conflicts": [{"table": c.name, "outcome": c.outcome, "a": c.a, "b": c.b} for c in self.conflicts],
                "convergence": [{"mapping": c.name, "diverged_a": c.a, "diverged_b": c.b} for c in self.convergence],
                "tables": [t.as_dict() for t in self.tables]}


# --- reading and comparing ------------------------------------------------------------------------------

def diff_runs(run_a: Path, run_b: Path, examples: int = EXAMPLES) -> RunDiff:
    """Compare two run directories; raises `RunDirUnreadable` (one line naming the path) when either is not a
    readable run directory or is not a run that succeeded."""
    a, b = _succeeded(Path(run_a)), _succeeded(Path(run_b))
    counts = [Change(k, a.manifest["counts"].get(k), b.manifest["counts"].get(k))
              for k in _union(list(COUNT_KEYS), a.manifest["counts"], b.manifest["counts"])]
    groups_a, groups_b = _conflict_groups(a), _conflict_groups(b)
    conflicts = [Change(table, groups_a.get((table, outcome), 0), groups_b.get((table, outcome), 0), outcome)
                 for table, outcome in sorted(set(groups_a) | set(groups_b))]
    convergence = _changes(_diverged(a), _diverged(b), None)  # a mapping of one run only: `-` in the other
    keys = {**table_keys(Path(run_b), b.manifest), **table_keys(Path(run_a), a.manifest)}  # run A's model first
    files_a, files_b = table_files(Path(run_a), a.manifest), table_files(Path(run_b), b.manifest)
    tables = [diff_table(name, keys.get(name, ()), read_rows(files_a.get(name)), read_rows(files_b.get(name)), examples)
              for name in _union(list(files_a), files_b)]
    return RunDiff(Path(run_a), Path(run_b), counts, conflicts, convergence, tables)


def _succeeded(rundir: Path) -> RunFiles:
    files = read_run_files(rundir)
    status = files.manifest.get("status")
    if status != "succeeded":
        reason = files.manifest.get("reason")
        raise RunDirUnreadable(rundir, f"the run {status}" + (f" ({reason})" if reason else "")
                               + ": only runs that succeeded can be compared")
    return files


def _union(first: list[str], *others: dict[str, Any]) -> list[str]:
    names = list(first)
    for other in others:
        names += [k for k in other if k not in names]
    return names


def _changes(a: dict[str, int], b: dict[str, int], absent: int | None) -> list[Change]:
    return [Change(name, a.get(name, absent), b.get(name, absent)) for name in sorted(_union(list(a), b))]


def _conflict_groups(files: RunFiles) -> dict[tuple[str, str], int]:
    return dict(Counter((str(c["table"]), str(c["outcome"])) for c in files.conflicts))


def _diverged(files: RunFiles) -> dict[str, int]:
    return {str(m["mapping"]): int(m["diverged"]) for m in files.convergence}


# --- text ------------------------------------------------------------------------------------------------

def render_diff(diff: RunDiff) -> str:
    """What differs, for a terminal; each line with its control characters escaped (names and values come
    from the model and the data)."""
    lines = [f"run A: {diff.run_a}", f"run B: {diff.run_b}"]
    changed_counts = [c for c in diff.counts if not c.equal]
    conflicts = [c for c in diff.conflicts if not c.equal]
    diverged = [c for c in diff.convergence if not c.equal]
    tables = [t for t in diff.tables if not t.equal]
    if diff.equal:
        lines.append(f"the runs are equal: counts, {sum(c.a or 0 for c in diff.conflicts)} conflict(s), the "
                     f"convergence of {len(diff.convergence)} mapping(s) and the final rows of {len(diff.tables)} "
                     "table(s)")
        return "\n".join(one_line(line) for line in lines)
    lines.append(f"the runs differ: {len(changed_counts)} count(s), {len(conflicts)} conflict group(s), "
                 f"the convergence of {len(diverged)} mapping(s), the final rows of {len(tables)} table(s)")
    if changed_counts:
        lines += ["", "counts (A -> B):"] + [f"  {c.name:<12} {_n(c.a)} -> {_n(c.b)}" for c in changed_counts]
    if conflicts:
        lines += ["", "conflicts by table and outcome (A -> B):"]
        lines += [f"  {c.shown:<28} {_n(c.a)} -> {_n(c.b)}" for c in conflicts]
    if diverged:
        lines += ["", "convergence, diverged keys per mapping (A -> B):"]
        lines += [f"  {c.name:<28} {_n(c.a)} -> {_n(c.b)}" for c in diverged]
    if tables:
        lines += ["", "final rows:"]
    for t in tables:
        lines += _render_table(t)
    return "\n".join(one_line(line) for line in lines)


def _render_table(t: TableDiff) -> list[str]:
    key = f"key {', '.join(t.key)}" if t.key else "no key known: whole rows compared"
    parts = [f"{n} {what}" for n, what in ((t.only_a_count, "only in A"), (t.only_b_count, "only in B"),
                                           (t.differing_count, "differ")) if n]
    lines = [f"  {t.table} ({key}; {t.rows_a} -> {t.rows_b} row(s)): " + (", ".join(parts) or "rows equal")]
    if t.columns_only_a or t.columns_only_b:
        lines.append(f"    columns only in A: {', '.join(t.columns_only_a) or '-'}; "
                     f"only in B: {', '.join(t.columns_only_b) or '-'}")
    lines += [f"    only in A: {_row(r)}" for r in t.only_a]
    lines += [f"    only in B: {_row(r)}" for r in t.only_b]
    for d in t.differing:
        changes = "; ".join(f"{c} {_value(d.a.get(c))} -> {_value(d.b.get(c))}" for c in d.columns)
        lines.append(f"    {_row(d.key)}: {changes}")
    more = max(t.only_a_count - len(t.only_a), 0) + max(t.only_b_count - len(t.only_b), 0) + \
        max(t.differing_count - len(t.differing), 0)
    if more:
        lines.append(f"    ... and {more} more")
    return lines


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


def _row(row: Row) -> str:
    return ", ".join(f"{c}={_value(v)}" for c, v in row.items())


def _value(value: Any) -> str:
    text = json.dumps(to_json_value(value), ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
