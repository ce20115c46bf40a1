"""Where a run's seconds go: each Spark job of one run, and the time no job covers (the driver planning).

A warm preview of the bundled sample is a few dozen small jobs; what is left between them is Catalyst
analysing and optimizing plans on the driver. This tool runs the sample (or any model and data) several
times in one session with Spark's event log on, and prints the last run's jobs in order (its start within
the run, its length, its tasks and its call site), how long at least one job was running, and how long
none was. Run on demand, never in `make test`:

    .venv/bin/python benchmarks/timeline.py [--runs 3] [--master local[2]] [MODEL DATA]

`timeline()` is the pure part: Spark's listener events in, the run's jobs out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resources import ROOT as RESOURCES
from resources import SAMPLE_MODEL

SAMPLE_DATA = RESOURCES / "samples" / "orders-data"


@dataclass(frozen=True)
class Job:
    start_ms: int  # from the run's start
    ms: int
    tasks: int
    site: str  # Spark's short call site ("collect at engine/spark/pipeline.py:156"), "?" where it gave none


@dataclass(frozen=True)
class Timeline:
    run_ms: int
    jobs: list[Job]

    @property
    def busy_ms(self) -> int:
        """How long at least one job was running (jobs that overlap count once)."""
        busy, reach = 0, 0
        for job in sorted(self.jobs, key=lambda j: j.start_ms):
            end = job.start_ms + job.ms
            if end > reach:
                busy += end - max(job.start_ms, reach)
                reach = end
        return busy

    @property
    def idle_ms(self) -> int:
        """How long no job was running: the driver's own time (planning, Python, the run's files)."""
        return self.run_ms - self.busy_ms


def timeline(events: Iterable[dict[str, Any]], start_ms: int, end_ms: int) -> Timeline:
    """The jobs submitted within [start_ms, end_ms] (epoch milliseconds), from Spark's listener events
    (`SparkListenerJobStart` and `SparkListenerJobEnd`); a job that never ended ends at `end_ms`."""
    started: dict[int, tuple[int, int, str]] = {}
    ended: dict[int, int] = {}
    for event in events:
        kind = event.get("Event")
        if kind == "SparkListenerJobStart":
            props = event.get("Properties") or {}
            stages = event.get("Stage Infos") or []
            tasks = sum(int(s.get("Number of Tasks", 0)) for s in stages)
            started[int(event["Job ID"])] = (int(event["Submission Time"]), tasks,
                                             str(props.get("callSite.short", "?")))
        elif kind == "SparkListenerJobEnd":
            ended[int(event["Job ID"])] = int(event["Completion Time"])
    jobs = [Job(at - start_ms, ended.get(job_id, end_ms) - at, tasks, site)
            for job_id, (at, tasks, site) in sorted(started.items()) if start_ms <= at <= end_ms]
    return Timeline(end_ms - start_ms, jobs)


def _events(log_dir: Path) -> list[dict[str, Any]]:
    """Every event of the newest application's log in `log_dir` (a file, or Spark 4's rolling folder)."""
    newest = max(log_dir.iterdir(), key=lambda p: p.stat().st_mtime)
    files = sorted(newest.glob("events_*")) if newest.is_dir() else [newest]
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", nargs="?", default=str(SAMPLE_MODEL))
    p.add_argument("data", nargs="?", default=str(SAMPLE_DATA))
    p.add_argument("--runs", type=int, default=3, help="runs in one session; the last one is shown")
    p.add_argument("--master", default="local[2]")
    args = p.parse_args(argv)
    log_dir = Path(tempfile.mkdtemp(prefix="mapwright-events-"))
    os.environ["PYSPARK_SUBMIT_ARGS"] = (f"--conf spark.eventLog.enabled=true --conf spark.eventLog.compress=false "
                                         f"--conf spark.eventLog.dir={log_dir.as_uri()} pyspark-shell")
    from engine.model.io import load_model
    from engine.spark.pipeline import run_spark
    from engine.spark.session import spark_session

    spark = spark_session(args.master)
    model = load_model(Path(args.model))
    for i in range(args.runs):
        out = Path(tempfile.mkdtemp(prefix="mapwright-timeline-"))
        start = time.time()
        ran = run_spark(spark, model, Path(args.data), out)
        end = time.time()
        stages = ", ".join(f"{k} {v:.2f}" for k, v in ran.stage_seconds.items())
        print(f"run {i + 1}: {end - start:.2f} s ({stages})")
    spark.stop()
    shown = timeline(_events(log_dir), int(start * 1000), int(end * 1000))
    print(f"run {args.runs}: {len(shown.jobs)} jobs, {sum(j.tasks for j in shown.jobs)} tasks; a job running "
          f"{shown.busy_ms / 1000:.2f} s, none {shown.idle_ms / 1000:.2f} s of {shown.run_ms / 1000:.2f} s")
    for job in shown.jobs:
        print(f"  {job.start_ms:7d} ms  {job.ms:6d} ms  {job.tasks:3d} tasks  {job.site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
