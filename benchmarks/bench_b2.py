"""B2: the run pipeline on a 3-master topology against the native Spark job an engineer would write.

For each size N, in a process of its own: generate the seeded topology (`benchmarks.topology`: N change
events, 10% of keys changed at several sites within the propagation delay); start one Spark session, its
JVM compiling as `mapwright run`'s would for this input (`session.jit_options`); time the native baseline
(`benchmarks.baseline`: spark.read.json with an explicit schema, fan-out with delivery times, max_by over a
struct, Parquet), then the pipeline on the same data (`run_spark` and the run directory written, as
`mapwright run` does minus the process start); stop Spark; then the pure-Python reference in this process
(sizes up to --reference-max). Every figure is printed with events/s and as a ratio against the baseline
measured in this same run, with the peak memory of the driver (this Python process + the JVM) and of the
whole run (every descendant process too), sampled from /proc. Results go to benchmarks/results/b2-N.json.

Run on demand: `python -m benchmarks.bench_b2 [--sizes 100000,1000000] [--master local[2]]` (`make bench`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from benchmarks import topology
from benchmarks.memory import Sampler
from engine.model import Model, load_model
from engine.run.input.schedule import load_schedule
from engine.run.rundir.write import RunInfo, RunSummary, model_sha256, write_run, write_spark_run
from engine.run.semantics.reference import RunResult, run_reference

RESULTS = Path(__file__).resolve().parent / "results"
ISSUE_AT_100K = {"reference_s": 37, "mapwright_run_s": 75, "native_baseline_process_s": 19}
T = TypeVar("T")


def timed(work: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = work()
    return value, time.perf_counter() - start


def machine() -> dict[str, Any]:
    """What the figures were measured on (the load average says how busy the shared machine was)."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem = next((int(line.split()[1]) // 1024 for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")), None)
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_mb": mem, "os": platform.platform(),
            "python": platform.python_version(), "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}


def pipeline(spark: Any, model: Model, model_path: Path, data: Path, out: Path, master: str) -> RunSummary:
    """The pipeline as `mapwright run` runs it once Spark is up: run_spark writing the run directory."""
    from engine.spark.pipeline import run_spark

    started = datetime.now(UTC)
    return write_spark_run(lambda staged: run_spark(spark, model, data, staged), model, out,
                           lambda: RunInfo(model_sha256(model_path), master=master, spark_version=spark.version,
                                           started=started, finished=datetime.now(UTC), model_path=str(model_path)))


def reference(model: Model, model_path: Path, data: Path, out: Path) -> RunResult:
    started = datetime.now(UTC)
    result = run_reference(model, data)
    write_run(result, model, out, RunInfo(model_sha256(model_path), started=started, finished=datetime.now(UTC),
                                          model_path=str(model_path)))
    return result


def figure(events: int, seconds: float, baseline_s: float, peaks: dict[str, float]) -> dict[str, Any]:
    return {"seconds": round(seconds, 2), "events_per_s": round(events / seconds), "ratio_to_baseline":
            round(seconds / baseline_s, 2), "peak_memory": peaks}


def bench(events: int, seed: int, master: str, reference_max: int, work: Path) -> dict[str, Any]:
    """Measure one size, in a JVM started for it as `mapwright run` starts one for this input
    (`session.jit_options`); returns the JSON document of its results."""
    from benchmarks.baseline import run_baseline
    from engine.spark.session import input_bytes, jit_options, spark_session

    result: dict[str, Any] = {"benchmark": "B2", "events": events, "seed": seed, "master": master,
                              "jvm_warm": False, "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
                              "machine": machine()}
    topo, result["generate_s"] = timed(lambda: topology.generate(work / "topology", events, seed))
    model_path, data = work / "topology" / "model.json", work / "topology" / "data"
    model, schedule = load_model(model_path), load_schedule(data / "schedule.json")
    result.update(keys=topo.keys, keys_changed_at_several_sites_within_delay=len(topo.burst_keys))
    del topo
    gc.collect()
    size = input_bytes(data)
    result.update(input_bytes=size, jit=jit_options(size))
    with Sampler() as sampler:
        with sampler.phase("session_start"):
            spark, result["session_start_s"] = timed(
                lambda: spark_session(master, app_name="mapwright-bench-b2", one_run_bytes=size))
        result["machine"].update(spark=spark.version, java=spark.sparkContext._jvm.System.getProperty("java.version"))
        with sampler.phase("baseline") as peaks:
            _, baseline_s = timed(lambda: run_baseline(spark, model, schedule, data / "changes", work / "baseline"))
        result["baseline"] = figure(events, baseline_s, baseline_s, peaks.as_dict())
        result["baseline"]["rows_written"] = spark.read.parquet(str(work / "baseline")).count()
        with sampler.phase("pipeline") as peaks:
            ran, seconds = timed(lambda: pipeline(spark, model, model_path, data, work / "pipeline-run", master))
        result["pipeline"] = figure(events, seconds, baseline_s, peaks.as_dict())
        result["pipeline"].update(stage_seconds={k: round(v, 2) for k, v in ran.stage_seconds.items()},
                                  counts=ran.counts.as_dict(), python=ran.python)
        spark.stop()
        if events <= reference_max:
            counts = ran.counts.as_dict()
            del ran
            gc.collect()
            with sampler.phase("reference") as peaks:
                ref, seconds = timed(lambda: reference(model, model_path, data, work / "reference-run"))
            result["reference"] = figure(events, seconds, baseline_s, peaks.as_dict())
            result["reference"]["same_counts_as_pipeline"] = ref.counts.as_dict() == counts
            result["reference"]["note"] = ("in this process after spark.stop(); pyspark's JVM gateway stays up, "
                                           "idle, and is counted in driver_mb and run_mb")
        result["peak_memory"] = {k: v for k, v in sampler.overall.as_dict().items() if k != "python_at_start_mb"}
    if events == 100_000:
        result["issue_measured_at_100000"] = ISSUE_AT_100K
    return result


def report(r: dict[str, Any]) -> str:
    lines = [f"B2, {r['events']:,} events on {r['keys']:,} keys ({r['keys_changed_at_several_sites_within_delay']:,} "
             f"changed at several sites within the delay), {r['master']}, Spark {r['machine']['spark']}",
             f"  generate {r['generate_s']:.1f} s, Spark session start {r['session_start_s']:.1f} s (in no figure)"]
    for name in ("baseline", "pipeline", "reference"):
        if name in r:
            f, mem = r[name], r[name]["peak_memory"]
            lines.append(f"  {name:<9} {f['seconds']:8.1f} s {f['events_per_s']:>9,} events/s "
                         f"{f['ratio_to_baseline']:6.2f}x baseline   peak driver {mem['driver_mb']:7.0f} MB, "
                         f"whole run {mem['run_mb']:7.0f} MB (python {mem['python_mb']:.0f} MB)")
    stages = r["pipeline"].get("stage_seconds", {})
    if stages:
        lines.append("  pipeline stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in stages.items()))
    for stage, python in r["pipeline"].get("python", {}).items():
        lines.append(f"  python in {stage}: " + ", ".join(f"{k} {v:,}" for k, v in python.items()))
    peak = r["peak_memory"]
    lines.append(f"  ratio pipeline / baseline: {r['pipeline']['ratio_to_baseline']:.2f}x; peak of the whole "
                 f"benchmark: driver {peak['driver_mb']:.0f} MB, whole run {peak['run_mb']:.0f} MB")
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    """`--sizes`: comma-separated positive event counts."""
    sizes = [topology.event_count(part.strip()) for part in text.split(",") if part.strip()]
    if not sizes:
        raise argparse.ArgumentTypeError("no size given")
    return sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_b2", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=_sizes, default="10000", help="comma-separated event counts (default 10000)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--reference-max", type=int, default=100_000,
                        help="time the pure-Python reference up to this size (default 100000)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    from engine.java import JavaMissing, require_java
    from engine.spark.session import MasterError, check_reachable, parse_master

    try:  # before generating anything: one line, exit 2
        master = parse_master(args.master)
        check_reachable(master)
        if master.kind != "connect":
            require_java()
    except (MasterError, JavaMissing) as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")
    args.results.mkdir(parents=True, exist_ok=True)
    if len(args.sizes) > 1:  # each size in a process, and a JVM, of its own: started for that size
        for size in args.sizes:
            subprocess.run([sys.executable, "-m", "benchmarks.bench_b2", "--sizes", str(size), "--master", args.master,
                            "--seed", str(args.seed), "--reference-max", str(args.reference_max),
                            "--results", str(args.results)], check=True)
        return
    size = args.sizes[0]
    work = Path(tempfile.mkdtemp(prefix=f"mapwright-b2-{size}-"))
    try:
        result = bench(size, args.seed, args.master, args.reference_max, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    path = args.results / f"b2-{size}.json"
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(report(result))
    print(f"  results: {path}", flush=True)


if __name__ == "__main__":
    main()
