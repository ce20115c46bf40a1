"""A small run's fewer jobs: frames kept together in one job, a small run's files written without a shuffle."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.testing import assertDataFrameEqual

from engine.spark import output
from engine.spark.together import keep_together


@contextmanager
def jobs(spark: SparkSession) -> Iterator[Callable[[], list[Any]]]:
    """The Spark jobs this thread runs inside the block: each one's `SparkJobInfo`."""
    sc = spark.sparkContext
    group = f"test-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "counted")
    tracker = sc.statusTracker()
    try:
        yield lambda: [tracker.getJobInfo(j) for j in sorted(tracker.getJobIdsForGroup(group))]
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]


def test_keep_together_keeps_frames_of_different_shapes_in_one_job(spark: SparkSession) -> None:
    frames = {
        "a": spark.createDataFrame([(1, {"x": 1, "y": "one"}), (2, {"x": None, "y": "two"})],
                                   "seq long, row struct<x: int, y: string>"),
        "b": spark.createDataFrame([(7, {"d": 1.5}, True)], "seq long, row struct<d: double>, clean boolean"),
        "c": spark.createDataFrame([], "seq long, row struct<t: timestamp>"),
        "d": spark.createDataFrame([(3, {"my col": "x", "back`tick": "y", "a.b": "z"})],  # any name a model gives
                                   "seq long, row struct<`my col`: string, `back``tick`: string, `a.b`: string>"),
    }
    kept: list[DataFrame] = []

    def keep(frame: DataFrame) -> DataFrame:
        kept.append(frame.coalesce(1).localCheckpoint(eager=True))
        return kept[-1]

    with jobs(spark) as ran:
        got = keep_together(frames, keep)
        assert len(ran()) == 1 and len(kept) == 1  # one job for the four, not one each
    for key, frame in frames.items():
        assert got[key].columns == frame.columns
        assert [f.dataType for f in got[key].schema] == [f.dataType for f in frame.schema]
        assertDataFrameEqual(got[key], frame)
    alone = keep_together({"a": frames["a"]}, keep)  # one frame is kept as it is
    assert alone["a"] is kept[-1] and len(kept) == 2


def test_a_small_run_writes_a_sorted_file_in_one_stage(spark: SparkSession, tmp_path: Path) -> None:
    given = [("c", "three"), ("a", "one"), ("b", "two")]
    lines = spark.createDataFrame(given, "sort string, text string").repartition(3).localCheckpoint(eager=True)
    stages = {}
    for small in (True, False):
        path = tmp_path / f"small-{small}.jsonl"
        with jobs(spark) as ran:
            output.write_lines(lines, path, small)
            stages[small] = [len(job.stageIds) for job in ran()]
        assert path.read_bytes() == b"one\ntwo\nthree\n"
    assert stages[True] == [1]  # one job of one stage: the kept parts read by the task that writes
    assert sum(stages[False]) >= 2  # a large run's parts are shuffled into the one task first
