"""Run speed on the bundled sample (about 10,000 rows, 3,000 changes): the Spark pipeline against the
pure-Python reference, measured in this same run; the goal is under a minute on 2 cores.

Run on demand: `.venv/bin/python benchmarks/bench_run.py [--master local[2]]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from engine.model import load_model
from engine.run.semantics.reference import run_reference
from engine.runner import run
from resources import ROOT, SAMPLE_MODEL

GOAL_SECONDS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    data = ROOT / "samples" / "orders-data"
    model = load_model(SAMPLE_MODEL)
    start = time.perf_counter()
    reference = run_reference(model, data)
    ref_seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        code = run(SAMPLE_MODEL, data, Path(tmp) / "run", args.master)
        spark_seconds = time.perf_counter() - start
    assert code == 0, "the Spark run failed"
    print(f"records {reference.counts.records}, deliveries {reference.counts.deliveries}, "
          f"conflicts {reference.counts.conflicts}")
    print(f"reference (pure Python, in process)     {ref_seconds:7.1f} s")
    print(f"mapwright run --master {args.master:<14}  {spark_seconds:7.1f} s   (session start included)")
    print(f"ratio spark / reference: {spark_seconds / ref_seconds:.1f}x;  goal {GOAL_SECONDS:.0f} s: "
          f"{'met' if spark_seconds < GOAL_SECONDS else 'MISSED'} ({spark_seconds / GOAL_SECONDS:.0%} of it)")


if __name__ == "__main__":
    main()
