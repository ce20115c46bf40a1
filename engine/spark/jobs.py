"""Spark jobs submitted together: one job's scheduling, planning and commit overlap another's tasks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

THREADS = 4
"""Jobs in flight at once: enough to keep two cores busy between one job's stages and the next's."""


def concurrently(work: Sequence[Callable[[], T]]) -> list[T]:
    """Run independent Spark jobs from several threads; their results in `work`'s order. The first
    failure is raised (after every job has ended: none is left running behind the error)."""
    if len(work) <= 1:
        return [job() for job in work]
    with ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="mapwright-job") as pool:
        futures = [pool.submit(job) for job in work]
    return [future.result() for future in futures]
