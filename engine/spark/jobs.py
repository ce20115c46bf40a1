"""Spark jobs submitted together: one job's scheduling, planning and commit overlap another's tasks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pyspark.sql import Observation

T = TypeVar("T")
U = TypeVar("U")

THREADS = 4
"""Jobs in flight at once: enough to keep two cores busy between one job's stages and the next's."""


def classic_context(spark: Any) -> Any:
    """The SparkContext of a classic session; None on Spark Connect, whose client has none (no status
    tracker, no accumulators)."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return None
    try:
        return spark.sparkContext
    except Exception:  # noqa: BLE001
        return None


def observed(observation: Observation) -> dict[str, Any]:
    """The metrics `observation` got from the job that ran its frame; none where that job reported none
    (a checkpoint over Spark Connect)."""
    from pyspark.errors import PySparkAssertionError

    try:
        return observation.get
    except PySparkAssertionError:
        return {}


def concurrently(work: Sequence[Callable[[], T]]) -> list[T]:
    """Run independent Spark jobs from several threads; their results in `work`'s order. The first
    failure is raised (after every job has ended: none is left running behind the error)."""
    if len(work) <= 1:
        return [job() for job in work]
    with ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="mapwright-job") as pool:
        futures = [pool.submit(job) for job in work]
    return [future.result() for future in futures]


def both(first: Callable[[], T], second: Callable[[], U]) -> tuple[T, U]:
    """`first` and `second`, independent, run as `concurrently` runs them (`first`'s failure raised first)."""
    results: list[Any] = concurrently([first, second])
    return results[0], results[1]
