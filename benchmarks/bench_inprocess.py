"""Previews in seconds: the in-process engine against Spark and the preview floor, measured in one run.

- the bundled sample, and a generated sample of the same size for a 30-table model (`wide_model`), through
  `mapwright run --engine inprocess` cold (a whole process, start-up included) and in the designer's warm
  in-process worker (`python -m engine.worker --no-spark`: the request to its `done` line);
- the designer's F5 to a filled conflict browser, warm (`designer_preview_s`: the window's run action to the
  browser showing the run's conflicts, offscreen);
- a generated sample of 20,000 changes for the 30-table model, in process, cold;
- Spark cold and warm on the bundled sample and on the 30-table sample, each with its preview floor
  (`bench_preview.preview_latency`), so each figure is also a ratio to a floor measured in this same run.

Run on demand (`make bench` runs it): `.venv/bin/python benchmarks/bench_inprocess.py [--runs 3]`; writes
`benchmarks/results/inprocess.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_preview import SAMPLE_DATA, _until, preview_latency  # noqa: E402
from benchmarks.wide_model import wide_model  # noqa: E402
from resources import SAMPLE_MODEL  # noqa: E402

PROJECT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "inprocess.json"
GOALS = {"designer_preview_s": 2.0, "inprocess_cold_s": 5.0, "wide_20000_s": 15.0}


def cold_run(model: Path, data: Path, out: Path) -> float:
    """`mapwright run --engine inprocess` as a whole process; seconds."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "engine.cli", "run", str(model), "--data", str(data), "--out",
                           str(out), "--engine", "inprocess"], cwd=PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"in-process run of {data} failed: {done.stderr.strip()[-300:]}")
    return round(time.monotonic() - began, 2)


def warm_runs(model: Path, data: Path, tmp: Path, runs: int) -> list[float]:
    """Runs in the in-process worker, each from the request to its `done` line."""
    worker = subprocess.Popen([sys.executable, "-m", "engine.worker", "--no-spark"], cwd=PROJECT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1)
    assert worker.stdin is not None and worker.stdout is not None
    seconds = []
    try:
        _until(worker.stdout, lambda d: d.get("event") == "worker" and d.get("state") == "ready")
        for i in range(runs):
            order = {"model": str(model), "data": str(data), "out": str(tmp / f"warm{i}"), "master": None,
                     "engine": "inprocess"}
            began = time.monotonic()
            worker.stdin.write(json.dumps({"run": order}) + "\n")
            worker.stdin.flush()
            finished = _until(worker.stdout, lambda d: d.get("event") == "finished")
            _until(worker.stdout, lambda d: d.get("event") == "done")
            seconds.append(round(time.monotonic() - began, 2))
            if finished.get("status") != "succeeded":
                raise RuntimeError(f"warm in-process run failed: {finished.get('reason')}")
    finally:
        worker.stdin.close()
        worker.wait(30)
    return seconds


def generate(model: Path, out: Path, changes: int, rows: int) -> float:
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "engine.cli", "sample", str(model), "--out", str(out), "--changes",
                           str(changes), "--rows", str(rows), "--seed", "5"], cwd=PROJECT, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError(f"mapwright sample failed: {done.stderr.strip()[-300:]}")
    return round(time.monotonic() - began, 2)


def designer_preview(runs: int) -> list[float]:
    """The designer's F5 to a filled conflict browser, warm, in a child process (offscreen Qt)."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.designer_preview", "--runs", str(runs)], cwd=PROJECT,
                          capture_output=True, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    if done.returncode != 0:
        raise RuntimeError(f"designer preview failed: {done.stderr.strip()[-500:]}")
    return [float(x) for x in json.loads(done.stdout.strip().splitlines()[-1])["seconds"]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--no-spark", action="store_true", help="leave out the Spark figures and the floor")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    doc: dict[str, Any] = {"measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
                           "cpus": os.cpu_count(), "load_before": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory(prefix="mapwright-bench-") as name:
        tmp = Path(name)
        wide = tmp / "wide.json"
        wide.write_text(json.dumps(wide_model()))
        doc["wide_generate_s"] = generate(wide, tmp / "wide-data", changes=3000, rows=300)
        doc["wide_20000_generate_s"] = generate(wide, tmp / "wide-20000", changes=20000, rows=1000)
        doc["inprocess_cold_s"] = [cold_run(SAMPLE_MODEL, SAMPLE_DATA, tmp / f"cold{i}") for i in range(args.runs)]
        doc["wide_cold_s"] = [cold_run(wide, tmp / "wide-data", tmp / f"wide{i}") for i in range(args.runs)]
        doc["inprocess_warm_s"] = warm_runs(SAMPLE_MODEL, SAMPLE_DATA, tmp, args.runs)
        doc["wide_warm_s"] = warm_runs(wide, tmp / "wide-data", tmp / "w", args.runs)
        doc["wide_20000_s"] = [cold_run(wide, tmp / "wide-20000", tmp / "wide20000")]
        doc["designer_preview_s"] = designer_preview(args.runs)
        if not args.no_spark:  # the 30-table sample on Spark, cold and warm, against its own floor
            doc["spark_wide"] = preview_latency(args.master, model=wide, data=tmp / "wide-data", cold=1,
                                                warm=2).as_dict()
    if not args.no_spark:
        spark = preview_latency(args.master, cold=1, warm=2)
        doc["spark"] = spark.as_dict()
        floor_cold, floor_warm = statistics.median(spark.floor_cold_s), statistics.median(spark.floor_warm_s)
        doc["ratio_to_floor"] = {
            "inprocess_cold": round(statistics.median(doc["inprocess_cold_s"]) / floor_cold, 3),
            "wide_cold": round(statistics.median(doc["wide_cold_s"]) / floor_cold, 3),
            "inprocess_warm": round(statistics.median(doc["inprocess_warm_s"]) / floor_warm, 3),
            "designer_preview": round(statistics.median(doc["designer_preview_s"]) / floor_warm, 3),
            "spark_cold": round(statistics.median(spark.cold_s) / floor_cold, 3),
            "spark_warm": round(statistics.median(spark.warm_s) / floor_warm, 3),
            "wide_spark_cold": doc["spark_wide"]["ratio"]["cold"],
            "wide_spark_warm": doc["spark_wide"]["ratio"]["warm"],
            "wide_inprocess_cold_to_its_floor": round(statistics.median(doc["wide_cold_s"])
                                                      / statistics.median(doc["spark_wide"]["floor_cold_s"]), 3)}
    doc["goals"] = {key: {"goal_s": goal, "median_s": statistics.median(doc[key]),
                          "met": statistics.median(doc[key]) <= goal} for key, goal in GOALS.items()}
    doc["load_after"] = round(os.getloadavg()[0], 2)
    for key, value in doc.items():
        print(f"{key:22} {value}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
