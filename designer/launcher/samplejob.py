"""Sample data made off the GUI thread: the engine's call on a QThread, its progress re-emitted as signals.

The engine's `generate_sample` knows nothing of Qt: it takes a `progress(stage, done, total)` callback and a
`cancel` event. `SampleWorker` is the thin QObject that calls it on its own QThread (dangerzone's
`ConvertTask` shape) and turns its outcome into exactly one of `sig_done`, `sig_failed`, `sig_cancelled`.
A running job is kept alive here, not by the dialog that started it: a dialog closed mid-job sets the
cancel event and lets go, and the thread ends on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal

Progress = Callable[[str, int, int], None]
Job = Callable[[Progress, threading.Event], Any]
_RUNNING: set[BackgroundJob] = set()


def known_errors() -> tuple[type[BaseException], ...]:
    """The engine's one-line errors of sample making (imported late: the designer starts without them)."""
    from engine.samplegen import SampleError

    errors: list[type[BaseException]] = [SampleError]
    try:
        from engine.samplegen.fromdb import SampleSourceError
    except ImportError:  # pragma: no cover - the database sampler is optional
        pass
    else:
        errors.append(SampleSourceError)
    return tuple(errors)


class SampleWorker(QObject):
    """Calls `job(progress, cancel)` once, in the thread it was moved to."""

    sig_progress = Signal(str, int, int)
    sig_done = Signal(object)
    sig_failed = Signal(str)
    sig_cancelled = Signal()

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job
        self.cancel = threading.Event()

    def run(self) -> None:
        from engine.samplegen import SampleCancelled

        try:
            result = self.job(self.sig_progress.emit, self.cancel)
        except SampleCancelled:
            self.sig_cancelled.emit()
        except known_errors() as exc:
            self.sig_failed.emit(str(exc))
        except Exception as exc:  # a surprise is shown in the dialog as one line, never a crash of the window
            first = str(exc).splitlines()[0] if str(exc) else ""
            self.sig_failed.emit(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)
        else:
            if self.cancel.is_set():  # stopped as it finished: what it wrote stays, the dialog says stopped
                self.sig_cancelled.emit()
            else:
                self.sig_done.emit(result)


class BackgroundJob(QObject):
    """One worker on one QThread; `start()` it, connect to `worker`'s signals, `stop()` to cancel."""

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("mapwright-sample")
        self.worker = SampleWorker(job)
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        for ended in (self.worker.sig_done, self.worker.sig_failed, self.worker.sig_cancelled):
            ended.connect(self.worker_thread.quit, Qt.ConnectionType.DirectConnection)  # quits the worker's own loop
        self.worker_thread.finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        _RUNNING.add(self)
        self.worker_thread.start()

    def stop(self) -> None:
        """Ask the job to stop; its end arrives as `sig_cancelled` (or `sig_done` if it had just finished)."""
        self.worker.cancel.set()

    def is_running(self) -> bool:
        return self in _RUNNING

    def _finished(self) -> None:
        self.worker_thread.wait()
        _RUNNING.discard(self)
        self.worker.deleteLater()
        self.worker_thread.deleteLater()
        self.deleteLater()


def start_job(job: Job, on_progress: Callable[[str, int, int], None], on_done: Callable[[object], None],
              on_failed: Callable[[str], None], on_cancelled: Callable[[], None]) -> BackgroundJob:
    """Start `job` off the GUI thread; the callbacks run on the GUI thread (they should be a QObject's methods:
    a slot of a deleted object is then never called)."""
    background = BackgroundJob(job)
    queued = Qt.ConnectionType.QueuedConnection  # emitted on the worker's thread, handled on the GUI thread
    background.worker.sig_progress.connect(on_progress, queued)
    background.worker.sig_done.connect(on_done, queued)
    background.worker.sig_failed.connect(on_failed, queued)
    background.worker.sig_cancelled.connect(on_cancelled, queued)
    background.start()
    return background


def running_jobs() -> int:
    """How many jobs are still running (tests wait for none)."""
    return len(_RUNNING)
