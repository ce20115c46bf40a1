"""Progress within a stage, from Spark's own status: the tasks of the jobs running now.

A run's stage is several Spark jobs; `JobProgress` polls the SparkContext's status tracker while a stage
runs and reports the tasks done and in all among the stages Spark has started since (a job's stages
appear as they are submitted, so the total may grow). Spark Connect gives no status tracker: there the
progress stays at stage boundaries.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from engine.spark.jobs import classic_context

POLL_S = 0.25


class JobProgress:
    """Calls `report(tasks_done, tasks_total)` when they change, every `POLL_S` until `stop()`."""

    def __init__(self, spark: Any, report: Callable[[int, int], None]) -> None:
        self.report = report
        self.tracker = _tracker(spark)
        self.seen: dict[int, tuple[int, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="mapwright-progress", daemon=True)
        self._known: set[int] = set(self._stage_ids()) if self.tracker is not None else set()

    def start(self) -> None:
        if self.tracker is not None:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=1.0)

    def _stage_ids(self) -> list[int]:
        assert self.tracker is not None
        return list(self.tracker.getActiveStageIds())

    def _loop(self) -> None:
        last = (-1, -1)
        while not self._stop.wait(POLL_S):
            try:
                # the stages running now, and those seen before that had tasks left (a finished one's
                # counts do not change: asking again is a call into the JVM each poll, for each stage)
                unfinished = {s for s, (done, total) in self.seen.items() if done < total}
                for stage_id in {*self._stage_ids(), *unfinished}:
                    if stage_id in self._known:
                        continue
                    info = self.tracker.getStageInfo(stage_id)
                    if info is not None:
                        self.seen[stage_id] = (info.numCompletedTasks, info.numTasks)
                done = sum(d for d, _ in self.seen.values())
                total = sum(t for _, t in self.seen.values())
            except Exception:  # noqa: BLE001  the session may stop under us: progress is best effort
                return
            if (done, total) != last and total:
                last = (done, total)
                with contextlib.suppress(BaseException):  # a cancel raised by the callback is the run's
                    self.report(done, total)


def _tracker(spark: Any) -> Any:
    """The status tracker of a classic session; None on Spark Connect."""
    context = classic_context(spark)
    return context.statusTracker() if context is not None else None
