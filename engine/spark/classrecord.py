"""The process that records Spark's class archive (`classarchive.RECORD`): `python -m engine.spark.classrecord`.

It runs the bundled samples in a Spark session whose JVM writes the archive as it exits (the JVM options
`classarchive.recording_options` gives it). Kept apart from `classarchive`, which every session reads for
its options, because it runs the pipeline, which starts sessions.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pyspark import SparkContext

from engine.model.io import load_model
from engine.spark.pipeline import run_spark
from engine.spark.session import spark_session
from resources import ROOT


def record() -> int:
    """Run the bundled samples in a session whose JVM writes the archive as it exits, and wait for that exit
    (the archive is complete only then). The JVM's exit status."""
    samples = ROOT / "samples"
    model = load_model(samples / "orders.json")
    spark = spark_session("local[2]")
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("orders-data", "orders-debezium"):
            if (samples / name).is_dir():
                out = Path(scratch) / name
                out.mkdir()
                run_spark(spark, model, samples / name, out)
    gateway = SparkContext._gateway
    spark.stop()
    proc = getattr(gateway, "proc", None)
    if gateway is None or proc is None:
        return 1
    gateway.shutdown()
    proc.stdin.close()  # the JVM exits when its stdin closes, writing the archive on its way out
    return int(proc.wait(timeout=300))


if __name__ == "__main__":
    raise SystemExit(record())
