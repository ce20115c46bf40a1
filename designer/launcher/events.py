"""The progress protocol read back as typed events (no Qt here): the lines `mapwright run` prints on stdout
(`stage`, `finished`) and, from the warm worker (`python -m engine.worker`), its state (`worker`) and the end
of each run (`done`). The one reader of that protocol: the one-shot run and the warm session both use it."""

from __future__ import annotations

import json
from dataclasses import dataclass

#: Share of the progress bar reached when each setup stage starts; the pipeline stages fill the band
#: between `spark` and `write`. Starting Spark is the slow part of a small run, hence its share.
SETUP_PERCENT = {"start": 0, "spark": 30}
PIPELINE_BAND = (30, 95)
WRITE_PERCENT = 95


@dataclass(frozen=True)
class StageEvent:
    """`{"event": "stage", ...}`: the run reached `stage`; `done` of `total` steps are complete."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class FinishedEvent:
    """`{"event": "finished", ...}`: the run's outcome, its run directory, (unless it succeeded) why, and
    the manifest that holds the outcome: in `out`, or in `out.attempt` when a failed or cancelled run
    left an earlier succeeded run in `out` as it was ("" when it could not be written)."""

    status: str
    out: str
    reason: str = ""
    manifest: str = ""


@dataclass(frozen=True)
class WorkerEvent:
    """`{"event": "worker", "state": ...}`: the warm worker's state (starting, ready, busy, stopped) and what
    to say of it (why it stopped, or which Spark it started and how fast)."""

    state: str
    detail: str


@dataclass(frozen=True)
class DoneEvent:
    """`{"event": "done", "code": N, "error": ...}`: the warm worker finished a run with the exit code
    `mapwright run` would have given (1 when it wrote no integer) and, for exit 2, its one-line message."""

    code: int
    error: str


ProgressEvent = StageEvent | FinishedEvent | WorkerEvent | DoneEvent


def parse_event(line: str) -> ProgressEvent | None:
    """The event a stdout line carries, or None for any other line (which then belongs in the log)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    kind = doc.get("event")
    if kind == "worker":
        return WorkerEvent(str(doc.get("state", "")), _state_detail(doc))
    if kind == "done":
        code = doc.get("code", 1)
        return DoneEvent(code if isinstance(code, int) else 1, str(doc.get("error") or ""))
    try:
        if kind == "stage":
            return StageEvent(str(doc["stage"]), int(doc.get("done", 0)), int(doc.get("total", 0)))
        if kind == "finished":
            return FinishedEvent(str(doc["status"]), str(doc.get("out", "")), str(doc.get("reason") or ""),
                                 str(doc.get("manifest") or ""))
    except (KeyError, TypeError, ValueError):
        return None
    return None


def _state_detail(doc: dict[str, object]) -> str:
    if doc.get("reason"):
        return str(doc["reason"])
    if doc.get("spark_version"):
        return f"Spark {doc['spark_version']} on {doc.get('master')}, started in {doc.get('seconds')} s"
    return ""


def overall_percent(stage: str, done: int, total: int) -> int:
    """Progress of the whole run, 0-100, from one stage event: setup, then the pipeline, then writing."""
    if stage in SETUP_PERCENT:
        return SETUP_PERCENT[stage]
    if stage == "write":
        return WRITE_PERCENT
    low, high = PIPELINE_BAND
    if total <= 0:
        return low
    fraction = min(max(done / total, 0.0), 1.0)
    return low + round((high - low) * fraction)
