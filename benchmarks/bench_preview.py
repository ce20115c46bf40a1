"""Preview latency on the bundled sample, cold and warm, as the Run tab meets it.

- cold: one `mapwright run` process per preview (what the Run tab did before, and still does when the
  warm session is not ready): start to exit, Spark's start included;
- warm: the designer's warm worker (`python -m engine.worker`), started once; the time until it is ready,
  then each preview from the request to its `done` line;
- the floor (`preview_floor`): the least a Spark-native run of the same data does, timed the same ways in
  the same run (its cold process after each cold preview, then its warm session), so that each figure is
  also a ratio, preview / floor, that this machine's speed and load mostly cancel out of.

`preview_latency()` is the function another benchmark calls; run on demand:
`.venv/bin/python benchmarks/bench_preview.py [--master local[2]] [--cold 1] [--warm 2]`, which prints a
table and writes `benchmarks/results/preview.json`.
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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from resources import ROOT as RESOURCES
from resources import SAMPLE_MODEL

PROJECT = RESOURCES.parent
SAMPLE_DATA = RESOURCES / "samples" / "orders-data"
RESULTS = Path(__file__).resolve().parent / "results" / "preview.json"
#: The goal of issue 10: a warm preview of the sample in at most 3 s (the first in at most 15 s).
GOAL_WARM_S, GOAL_FIRST_S = 3.0, 15.0


@dataclass
class PreviewLatency:
    """Seconds per preview; `warm_ready_s` is the warm worker's start (paid once, when the window opens)."""

    master: str
    model: str
    cold_s: list[float] = field(default_factory=list)
    warm_ready_s: float = 0.0
    warm_s: list[float] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    floor_cold_s: list[float] = field(default_factory=list)
    floor_ready_s: float = 0.0
    floor_warm_s: list[float] = field(default_factory=list)
    cpus: int = field(default_factory=lambda: os.cpu_count() or 1)
    load_before: float = field(default_factory=lambda: _load())  # 1-minute load average: others' work skews it
    load_after: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["goal"] = {"warm_s": GOAL_WARM_S, "first_s": GOAL_FIRST_S,
                       "second_warm_met": len(self.warm_s) > 1 and self.warm_s[1] <= GOAL_WARM_S,
                       "floor_meets_warm": bool(self.floor_warm_s) and _median(self.floor_warm_s) <= GOAL_WARM_S,
                       "floor_meets_first": bool(self.floor_cold_s) and _median(self.floor_cold_s) <= GOAL_FIRST_S}
        doc["ratio"] = {"cold": _ratio(self.cold_s, self.floor_cold_s), "warm": _ratio(self.warm_s, self.floor_warm_s)}
        return doc


def preview_latency(master: str = "local[2]", model: Path = SAMPLE_MODEL, data: Path = SAMPLE_DATA,
                    cold: int = 1, warm: int = 2) -> PreviewLatency:
    """Measure `cold` one-shot previews, then a warm worker serving `warm` previews; each must succeed."""
    result = PreviewLatency(master, str(model))
    with tempfile.TemporaryDirectory(prefix="mapwright-bench-") as tmp:
        for i in range(cold):
            began = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "engine.cli", "run", str(model), "--data", str(data),
                                   "--out", f"{tmp}/cold{i}", "--master", master],
                                  cwd=PROJECT, capture_output=True, text=True)
            result.cold_s.append(round(time.monotonic() - began, 2))
            _check(done.returncode == 0, f"cold run {i}: {done.stderr.strip()[-300:]}")
            began = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "benchmarks.preview_floor", str(model), "--data", str(data),
                                   "--master", master], cwd=PROJECT, capture_output=True, text=True)
            result.floor_cold_s.append(round(time.monotonic() - began, 2))
            _check(done.returncode == 0, f"cold floor {i}: {done.stderr.strip()[-300:]}")
        worker = subprocess.Popen([sys.executable, "-m", "engine.worker", "--master", master], cwd=PROJECT,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        assert worker.stdin is not None and worker.stdout is not None
        try:
            began = time.monotonic()
            _until(worker.stdout, lambda d: d.get("event") == "worker" and d.get("state") in ("ready", "stopped"))
            result.warm_ready_s = round(time.monotonic() - began, 2)
            for i in range(warm):
                order = {"model": str(model), "data": str(data), "out": f"{tmp}/warm{i}", "master": master}
                began = time.monotonic()
                worker.stdin.write(json.dumps({"run": order}) + "\n")
                worker.stdin.flush()
                finished = _until(worker.stdout, lambda d: d.get("event") == "finished")
                _until(worker.stdout, lambda d: d.get("event") == "done")
                result.warm_s.append(round(time.monotonic() - began, 2))
                result.statuses.append(str(finished.get("status")))
                _check(finished.get("status") == "succeeded", f"warm run {i}: {finished.get('reason')}")
        finally:
            worker.stdin.close()
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        if warm:
            floor = subprocess.run([sys.executable, "-m", "benchmarks.preview_floor", str(model), "--data",
                                    str(data), "--master", master, "--warm", "--runs", str(warm)],
                                   cwd=PROJECT, capture_output=True, text=True)
            _check(floor.returncode == 0, f"warm floor: {floor.stderr.strip()[-300:]}")
            lines = [json.loads(line) for line in floor.stdout.splitlines() if line.startswith("{")]
            result.floor_ready_s = next(float(d["ready"]) for d in lines if "ready" in d)
            result.floor_warm_s = [float(d["s"]) for d in lines if "run" in d]
    result.load_after = _load()
    return result


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _ratio(preview: list[float], floor: list[float]) -> float | None:
    """The median preview over the median floor; None where either was not measured."""
    return round(_median(preview) / _median(floor), 2) if preview and floor else None


def _load() -> float:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else 0.0


def _until(stream: IO[str], wanted: Any) -> dict[str, Any]:
    for line in stream:
        if line.startswith("{"):
            doc = json.loads(line)
            if wanted(doc):
                return doc  # type: ignore[no-any-return]
    raise RuntimeError("the warm worker exited before answering")


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise RuntimeError(message)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--cold", type=int, default=1, help="one-shot previews to time")
    parser.add_argument("--warm", type=int, default=2, help="previews to time in the warm worker")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = preview_latency(args.master, cold=args.cold, warm=args.warm)
    for i, seconds in enumerate(result.cold_s):
        print(f"cold preview {i + 1} (own process, Spark start included)  {seconds:7.1f} s")
    print(f"warm worker ready (once, when the window opens)       {result.warm_ready_s:7.1f} s")
    for i, seconds in enumerate(result.warm_s):
        print(f"warm preview {i + 1}                                     {seconds:7.1f} s")
    print(f"floor: cold {result.floor_cold_s} s, warm ready {result.floor_ready_s} s, warm {result.floor_warm_s} s")
    ratio = result.as_dict()["ratio"]
    print(f"preview / floor (medians): cold {ratio['cold']}x, warm {ratio['warm']}x")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    print(f"load average {result.load_before} before, {result.load_after} after, on {result.cpus} cores")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
