"""Warm previews: one Spark session kept alive for the window's lifetime, reused by every run.

`WarmSession` is the thin QObject over `python -m engine.worker` (a QProcess, so the GUI thread never
waits): it starts the worker, follows its state (starting / ready / busy / stopped), hands it one run at a
time and re-emits that run's progress like `RunProcess` does. `PreviewRunner` is the launcher's runner: a
run goes to the warm session when it can take it (started, idle, same master), else to a one-shot
`mapwright run` process, exactly as before.

A long-lived worker process rather than a Spark Connect server: each run then takes `mapwright run`'s
own code path in-process (the run directory protocol, rejects and cancel stay identical), the pipeline's
Arrow stages need no Connect round trips, and only one JVM runs beside the designer.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

from designer.launcher.events import DoneEvent, FinishedEvent, StageEvent, WorkerEvent, parse_event
from designer.launcher.runner import CANCEL_GRACE_MS, RunProcess, RunRequest, child_process, complete_lines
from engine.spark.session import MasterError, parse_master

STARTING, READY, BUSY, STOPPED = "starting", "ready", "busy", "stopped"
NOT_STARTED = "not started"
#: How long a stopping worker may take to stop Spark before it is killed (the JVM follows it either way).
STOP_GRACE_MS = 5_000


def worker_command(master: str, python: str = sys.executable, parent: int | None = None,
                   spark: bool = True) -> list[str]:
    """The warm worker's command line under this interpreter, watching this process as its parent; with
    `spark` False, a worker that starts no Spark and serves in-process runs."""
    command = [python, "-m", "engine.worker", "--master", master, "--parent", str(parent or os.getpid())]
    return command if spark else [*command, "--no-spark"]


def resolved_engine(request: RunRequest) -> str:
    """The engine a request runs on: "inprocess" or "spark" (an "auto" request is decided as `mapwright run
    --engine auto` decides it, by the size of its sample data)."""
    if request.engine == "auto":
        from engine.runner import RunUsageError, choose_engine  # the runner's engines: loaded by a first run

        try:
            return choose_engine("auto", None, request.data_dir)[0]
        except RunUsageError:
            return "spark"
    return "inprocess" if request.engine == "inprocess" else "spark"


def warm_master(master: str, fallback: str) -> str:
    """The master a warm session starts on: the chosen one when it is local, else `fallback`."""
    try:
        return master if parse_master(master).kind == "local" else fallback
    except MasterError:
        return fallback


class WarmSession(QObject):
    """The warm worker process. `sig_state(state, detail)` on every change; run signals as `RunProcess`."""

    sig_state = Signal(str, str)
    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, master: str, parent: QObject | None = None, *, python: str = sys.executable,
                 grace_ms: int = CANCEL_GRACE_MS, spark: bool = True) -> None:
        super().__init__(parent)
        self.master = master
        self.spark = spark  # False: the worker starts no Spark and serves in-process runs
        self._python, self._grace_ms = python, grace_ms
        self._process: QProcess | None = None
        self._state, self._detail = STOPPED, NOT_STARTED
        self._pid = 0
        self._buffers = {QProcess.ProcessChannel.StandardOutput: b"", QProcess.ProcessChannel.StandardError: b""}
        self._request: RunRequest | None = None
        self._outcome: FinishedEvent | None = None
        self._cancelled = self._killed = False
        self._last_error_line = ""
        self._stop_reason = ""
        self._stopping = False

    # -- the worker's lifetime

    @property
    def state(self) -> str:
        return self._state

    @property
    def detail(self) -> str:
        return self._detail

    @property
    def pid(self) -> int:
        """The worker's process id while it runs, else 0."""
        return self._pid

    def start(self) -> None:
        """Start the worker in the background (Spark's start takes seconds; nothing waits for it)."""
        if self._process is not None:
            return
        command = worker_command(self.master, self._python, spark=self.spark)
        process = child_process(self, command)
        process.readyReadStandardOutput.connect(lambda: self._read(QProcess.ProcessChannel.StandardOutput))
        process.readyReadStandardError.connect(lambda: self._read(QProcess.ProcessChannel.StandardError))
        process.finished.connect(self._on_exit)
        process.errorOccurred.connect(self._on_error)
        self._process = process
        self._buffers = dict.fromkeys(self._buffers, b"")
        self._stop_reason, self._stopping = "", False
        self._set_state(STARTING, f"starting Spark on {self.master}" if self.spark else "starting")
        process.start()
        self._pid = int(process.processId())

    def stop(self) -> None:
        """Ask the worker to stop Spark and exit (a run in progress is cancelled); kill it after a grace."""
        process = self._process
        if process is None or self._stopping:
            return
        if process.state() == QProcess.ProcessState.Running:
            process.write(b'{"cancel": true}\n{"stop": true}\n')
            process.closeWriteChannel()
            self._stopping, self._stop_reason = True, "asked to stop"
        QTimer.singleShot(STOP_GRACE_MS, process, process.kill)

    def wait_stopped(self, timeout_ms: int = STOP_GRACE_MS) -> None:
        """At the application's exit only (no window left to freeze): let a stopping worker stop Spark
        cleanly before Qt would kill it; kill it if it has not within `timeout_ms`."""
        self.stop()
        process = self._process
        if process is not None and not process.waitForFinished(timeout_ms):
            process.kill()
            process.waitForFinished(timeout_ms)

    def status_text(self) -> tuple[str, str]:
        """(the status bar's words, its tooltip): "Spark: not started", "starting…", "ready", "busy", "stopped"."""
        text = {"starting": "starting…"}.get(self._state, self._state)
        text = "not started" if self._detail == NOT_STARTED else text
        return f"Spark: {text}", (f"The warm Spark session on {self.master} that previews run in"
                                  + (f": {self._detail}" if self._detail else ""))

    def can_serve(self, master: str, engine: str = "spark") -> bool:
        """Whether a run on `engine` (and for Spark, `master`) can go to this session now: it is up, of that
        engine (and master), and has no run of ours (a run queues while Spark starts or a cancelled run's jobs
        drain: sooner than a second JVM)."""
        return (self._process is not None and self._state != STOPPED and self._request is None
                and (engine == "spark") == self.spark and (not self.spark or master == self.master))

    # -- one run at a time

    def is_running(self) -> bool:
        return self._request is not None

    def run(self, request: RunRequest) -> None:
        engine = "spark" if self.spark else "inprocess"
        if not self.can_serve(request.master, engine) or self._process is None:
            raise RuntimeError(f"the warm session cannot take this run ({self._state})")
        self._request, self._outcome, self._last_error_line = request, None, ""
        self._cancelled = self._killed = False
        order = {"model": str(request.model.absolute()), "data": str(request.data_dir.absolute()),
                 "out": str(request.out_dir.absolute()), "master": request.master if self.spark else None,
                 "engine": engine}
        where = f"the warm Spark session on {self.master}" if self.spark else "the in-process engine"
        self.sig_log.emit(f"$ mapwright run … (in {where}, pid {self._pid})")
        self._process.write((json.dumps({"run": order}) + "\n").encode())

    def cancel(self) -> None:
        """Ask the run to stop; the session stays. A worker that has not stopped it after a grace is killed."""
        if self._request is None or self._cancelled or self._process is None:
            return
        self._cancelled = True
        self.sig_log.emit("cancelling the run")
        self._process.write(b'{"cancel": true}\n')
        request = self._request
        QTimer.singleShot(self._grace_ms, self, lambda: self._kill_if_still(request))

    def _kill_if_still(self, request: RunRequest) -> None:
        if self._request is request and self._process is not None:
            self._killed = True
            self.sig_log.emit(f"the run did not stop within {self._grace_ms / 1000:g} s; stopping the warm session")
            self._process.kill()

    # -- the worker's output

    def _read(self, channel: QProcess.ProcessChannel, final: bool = False) -> None:
        process = self._process
        if process is None:
            return
        process.setReadChannel(channel)
        lines, self._buffers[channel] = complete_lines(self._buffers[channel], bytes(process.readAll().data()), final)
        for line in lines:
            if channel == QProcess.ProcessChannel.StandardOutput:
                self._on_stdout_line(line)
            elif line.strip() and self._request is not None:  # between runs: the JVM's noise, not a run's log
                self._last_error_line = line.strip()
                self.sig_log.emit(line)

    def _on_stdout_line(self, line: str) -> None:
        event = parse_event(line)
        if isinstance(event, WorkerEvent):
            if event.state == STOPPED:  # its last words: the state follows when the process has really exited
                self._stop_reason = event.detail
            elif not (event.state == READY and self._request is not None):  # a run queued while Spark started
                self._set_state(event.state, event.detail)
        elif isinstance(event, DoneEvent):
            self._end_run(event.code, event.error)
        elif self._request is None:
            return
        elif isinstance(event, StageEvent):
            self.sig_stage.emit(event.stage, event.done, event.total)
        elif isinstance(event, FinishedEvent):
            self._outcome = event
        elif line.strip():
            self.sig_log.emit(line)

    def _end_run(self, code: int, error: str) -> None:
        request, self._request = self._request, None
        if request is None:
            return
        outcome = self._outcome or self._unreported(request, code, error)
        folder = str(Path(outcome.manifest).parent) if outcome.manifest else outcome.out or _out(request)
        self.sig_finished.emit(outcome.status, folder, outcome.reason)

    def _unreported(self, request: RunRequest, code: int, error: str) -> FinishedEvent:
        """The outcome of a run that ended without its `finished` line (unusable input, a killed worker)."""
        if self._cancelled:
            why = "killed after the grace period" if self._killed else "cancelled before the run started"
            return FinishedEvent("cancelled", _out(request), why)
        reason = error or self._last_error_line.removeprefix("mapwright: ")
        return FinishedEvent("failed", _out(request), reason or f"the run ended with code {code}")

    def _on_exit(self, exit_code: int, _status: QProcess.ExitStatus) -> None:
        self._read(QProcess.ProcessChannel.StandardOutput, final=True)
        self._read(QProcess.ProcessChannel.StandardError, final=True)
        process, self._process, self._pid = self._process, None, 0
        if self._request is not None:
            self._end_run(exit_code, "the warm Spark session stopped during the run")
        self._set_state(STOPPED, self._stop_reason or f"the worker exited with code {exit_code}")
        if process is not None:
            process.deleteLater()

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            self._on_exit(-1, QProcess.ExitStatus.CrashExit)
            self._detail = f"cannot start {self._python}"

    def _set_state(self, state: str, detail: str) -> None:
        if (state, detail) != (self._state, self._detail):
            self._state, self._detail = state, detail
            self.sig_state.emit(state, detail)


class PreviewRunner(QObject):
    """The launcher's runner: the warm session when it can take the run, a one-shot `mapwright run` otherwise."""

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, parent: QObject | None, warm: WarmSession | None, inprocess: bool = False) -> None:
        """`warm`: the window's Spark session (the launcher starts it when a Spark engine is chosen); `inprocess`:
        keep a worker of this runner's own for in-process runs (a Python process that has imported the
        engine: a preview skips the interpreter's start), started once the event loop runs."""
        super().__init__(parent)
        self.warm = warm
        self.inprocess = WarmSession("local[1]", self, spark=False) if inprocess else None
        if self.inprocess is not None:
            QTimer.singleShot(0, self.inprocess, self.inprocess.start)
        self.one_shot = RunProcess(self)
        self._active: QObject | None = None
        self.one_shot.sig_stage.connect(self.sig_stage.emit)  # the one-shot process serves only this runner
        self.one_shot.sig_log.connect(self.sig_log.emit)
        self.one_shot.sig_finished.connect(self._one_shot_finished)
        for session in (warm, self.inprocess):  # the Spark one outlives this runner (the window's): bound
            if session is not None:             # methods, disconnected when we go
                session.sig_stage.connect(self._warm_stage)
                session.sig_log.connect(self._warm_log)
                session.sig_finished.connect(self._warm_finished)

    @property
    def warm_run(self) -> bool:
        """Whether the run in progress is in a warm session (Spark's or the in-process one)."""
        return self._active is not None and self._active in (self.warm, self.inprocess)

    def start(self, request: RunRequest) -> None:
        """An in-process run goes to the in-process worker, a Spark run to the warm Spark session, when they
        can take it; else the run is a `mapwright run` process of its own."""
        if self._active is not None:
            raise RuntimeError("a run is already in progress")
        engine = resolved_engine(request)
        session = self.inprocess if engine == "inprocess" else self.warm
        if session is not None and session.can_serve(request.master, engine):
            self._active = session
            session.run(request)
            return
        self._active = self.one_shot
        if session is not None:
            what, own = ("in-process engine", "process") if engine == "inprocess" else ("warm Spark session", "Spark")
            self.sig_log.emit(f"the {what} is {_why_not(session, request.master)}: this run starts its own {own}")
        self.one_shot.start(replace(request, engine=engine))

    def cancel(self) -> None:
        if isinstance(self._active, WarmSession):
            self._active.cancel()
        elif self._active is self.one_shot:
            self.one_shot.cancel()

    def is_running(self) -> bool:
        return self._active is not None

    def _warm_stage(self, stage: str, done: int, total: int) -> None:
        if self.warm_run:
            self.sig_stage.emit(stage, done, total)

    def _warm_log(self, line: str) -> None:
        if self.warm_run:
            self.sig_log.emit(line)

    def _warm_finished(self, status: str, folder: str, reason: str) -> None:
        if self.warm_run:
            self._active = None
            self.sig_finished.emit(status, folder, reason)

    def _one_shot_finished(self, status: str, folder: str, reason: str) -> None:
        self._active = None
        self.sig_finished.emit(status, folder, reason)


def _why_not(warm: WarmSession, master: str) -> str:
    if warm.state == STOPPED:
        return warm.state
    if warm.spark and master != warm.master:
        return f"on {warm.master}, not {master}"
    return "serving another run"


def _out(request: RunRequest) -> str:
    return str(request.out_dir.absolute())

