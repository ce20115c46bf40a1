"""`generate_sample`: sample data for any valid model, written as runs are written."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.model.schema import Model
from engine.rules import Severity, validate
from engine.run.semantics.context import RunModelError
from engine.sampledata.staging import SampleError, write_staged
from engine.samplegen.files import write_files
from engine.samplegen.options import SampleCancelled, SampleOptions, SampleSummary
from engine.samplegen.script import Script
from engine.samplegen.snapshot import build_snapshot
from engine.samplegen.world import World

Progress = Callable[[str, int, int], None]
MARKER_NOTE = {"written_by": "mapwright sample",
               "note": "generated sample data: writing it again replaces the files listed here, and only those"}


DEFAULT = SampleOptions()


def _quiet(stage: str, done: int, total: int) -> None:
    """No progress wanted."""


def generate_sample(model: Model, out: Path, options: SampleOptions = DEFAULT, *,
                    initial: Mapping[str, list[dict[str, Any]]] | None = None,
                    progress: Progress | None = None,
                    cancel: threading.Event | None = None) -> SampleSummary:
    """Write a sample-data folder for `model` at `out` (what `mapwright run --data out` reads).

    `initial`: typed rows by table key of one server (from a database): that server's snapshot, carried to
    the other sites through the mappings, with the day's changes made over them. `progress(stage, done,
    total)` is called often; setting `cancel` raises `SampleCancelled` soon. `SampleError` (one line) for a
    model with validation errors, options that cannot be met, or an `out` that is refused or cannot be
    written; `out` is then left as it was."""
    problem = options.problem()
    if problem:
        raise SampleError(problem)
    errors = [f for f in validate(model) if f.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        raise SampleError(f"the model has {len(errors)} validation error(s); first: {first.code} {first.message}")
    servers = {s.id for s in model.servers}
    unknown = [o.site for o in options.outages if o.site not in servers]
    if unknown:
        raise SampleError(f"--outage names {unknown[0]!r}, which is no server of the model")
    report = progress or _quiet
    summary: dict[str, Any] = {}

    def fill(staged: Path) -> None:
        try:
            world = World(model, options)
        except RunModelError as exc:
            raise SampleError(f"the model cannot be run: {exc}") from None
        script = Script(world, report, cancel)
        snapshot = build_snapshot(world, initial or {}, lambda done, total: script.tick("snapshot", done, total))
        script.play()
        script.malformed()
        script.tick("write", 0, script.records)
        write_files(world, staged, snapshot, lambda done: script.tick("write", done, script.records))
        script.tick("write", script.records, script.records)
        keys = {(c["table"], str(sorted(c["dkey"].items()))) for c in world.replica.out.conflicts}
        summary.update(tables=sum(1 for rows in snapshot.values() if rows),
                       snapshot_rows=sum(len(rows) for rows in snapshot.values()), changes=script.records,
                       malformed=len(world.broken), conflict_keys=len(keys))

    try:
        files = write_staged(out, fill, MARKER_NOTE)
    except SampleCancelled:
        raise
    report("done", 1, 1)
    return SampleSummary(out=Path(out), files=files, **summary)
