"""Run `mapwright run` as its own process and re-emit its progress lines as Qt signals.

The engine's run knows nothing of Qt: it prints JSON lines and stops on a signal. `RunProcess` is the
thin QObject over it (dangerzone's `ConvertTask` shape): a QProcess, so the GUI thread never waits.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal, SignalInstance

import engine
from designer.launcher.events import FinishedEvent, StageEvent, parse_event

#: How long a cancelled run may take to write its `cancelled` manifest and stop Spark before it is killed.
CANCEL_GRACE_MS = 15_000
#: The signal that cancels a run. `mapwright run` cancels on SIGTERM or Ctrl-C, but its SIGTERM handler
#: raises an `Exception`, which py4j catches and rewraps when the signal lands inside a call to the JVM
#: (most of a Spark job): the run then ends `failed`. SIGINT raises KeyboardInterrupt, which py4j lets
#: through, so the run ends `cancelled` wherever it is. None sends SIGTERM (QProcess.terminate).
CANCEL_SIGNAL: int | None = signal.SIGINT if os.name == "posix" else None
_SOURCE_ROOT = Path(engine.__file__).resolve().parent.parent


def complete_lines(pending: bytes, data: bytes, final: bool = False) -> tuple[list[str], bytes]:
    """The whole lines of a process's output so far (UTF-8, bad bytes replaced) and the unfinished rest to keep;
    `final`: the process ended, so the rest is a line too."""
    *lines, rest = (pending + data).split(b"\n")
    if final and rest:
        lines, rest = [*lines, rest], b""
    return [raw.decode("utf-8", errors="replace").rstrip("\r") for raw in lines], rest


@dataclass(frozen=True)
class RunRequest:
    """What one run needs: the model, its sample data, the run directory to write, the Spark master and the
    engine: "spark" (on `master`), "inprocess" (no Spark; `master` unused) or "auto" (`mapwright run --engine
    auto` without a master: in process for small samples, on Spark's default master above)."""

    model: Path
    data_dir: Path
    out_dir: Path
    master: str
    engine: str = "spark"


def run_command(request: RunRequest, python: str = sys.executable) -> list[str]:
    """The command line of a run: the engine's CLI under this interpreter, so PATH does not matter."""
    command = [python, "-m", "engine.cli", "run", str(request.model.absolute()),
               "--data", str(request.data_dir.absolute()), "--out", str(request.out_dir.absolute()),
               "--engine", request.engine]
    return [*command, "--master", request.master] if request.engine == "spark" else command


class Runner(Protocol):
    """What the launcher needs of a runner; tests inject a fake with the same signals."""

    @property
    def sig_stage(self) -> SignalInstance: ...  # (stage, done, total)
    @property
    def sig_log(self) -> SignalInstance: ...  # (line)
    @property
    def sig_finished(self) -> SignalInstance: ...  # (status, folder, reason), exactly once per start()

    def start(self, request: RunRequest) -> None: ...
    def cancel(self) -> None: ...
    def is_running(self) -> bool: ...


class RunProcess(QObject):
    """One `mapwright run` at a time in a child process; `cancel()` signals it, then kills it after a grace.

    `sig_finished(status, folder, reason)`: `folder` is the one holding the run's manifest, the requested
    run directory or, for a failed or cancelled run over a succeeded one, `RUNDIR.attempt` beside it.
    """

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def __init__(self, parent: QObject | None = None, *, grace_ms: int = CANCEL_GRACE_MS,
                 python: str = sys.executable, cancel_signal: int | None = CANCEL_SIGNAL) -> None:
        super().__init__(parent)
        self._grace_ms = grace_ms
        self._cancel_signal = cancel_signal
        self._python = python
        self._process: QProcess | None = None
        self._request: RunRequest | None = None
        self._buffers = {QProcess.ProcessChannel.StandardOutput: b"", QProcess.ProcessChannel.StandardError: b""}
        self._outcome: FinishedEvent | None = None
        self._last_error_line = ""
        self._cancelled = False
        self._killed = False

    def is_running(self) -> bool:
        return self._process is not None

    def start(self, request: RunRequest) -> None:
        if self._process is not None:
            raise RuntimeError("a run is already in progress")
        command = run_command(request, self._python)
        self._request, self._outcome, self._last_error_line = request, None, ""
        self._cancelled = self._killed = False
        self._buffers = dict.fromkeys(self._buffers, b"")
        process = child_process(self, command)
        process.readyReadStandardOutput.connect(self._read_stdout)
        process.readyReadStandardError.connect(self._read_stderr)
        process.finished.connect(self._on_finished)
        process.errorOccurred.connect(self._on_error)
        self._process = process
        self.sig_log.emit("$ " + shlex.join(["mapwright", *command[3:]]))
        process.start()

    def cancel(self) -> None:
        """Ask the run to stop (it writes a `cancelled` manifest); kill it if it has not within the grace."""
        process = self._process
        if process is None or self._cancelled:
            return
        self._cancelled = True
        self.sig_log.emit("cancelling the run")
        if process.state() == QProcess.ProcessState.Starting:  # forked, not yet exec'd: a signal now would
            process.started.connect(self._send_cancel)       # meet Qt's code in the child, not the run's
        else:
            self._send_cancel()
        QTimer.singleShot(self._grace_ms, process, self._kill)

    def _send_cancel(self) -> None:
        process = self._process
        if process is None or process.state() != QProcess.ProcessState.Running:
            return
        if self._cancel_signal is not None:
            os.kill(process.processId(), self._cancel_signal)
        else:
            process.terminate()

    def _kill(self) -> None:
        if self._process is not None and self._process.state() != QProcess.ProcessState.NotRunning:
            self._killed = True
            self.sig_log.emit(f"the run did not stop within {self._grace_ms / 1000:g} s; killing it")
            self._process.kill()

    def _read_stdout(self) -> None:
        self._read(QProcess.ProcessChannel.StandardOutput)

    def _read_stderr(self) -> None:
        self._read(QProcess.ProcessChannel.StandardError)

    def _read(self, channel: QProcess.ProcessChannel, final: bool = False) -> None:
        process = self._process
        if process is None:
            return
        process.setReadChannel(channel)
        lines, self._buffers[channel] = complete_lines(self._buffers[channel], bytes(process.readAll().data()), final)
        for line in lines:
            if channel == QProcess.ProcessChannel.StandardOutput:
                self._on_stdout_line(line)
            elif line.strip():
                self._last_error_line = line.strip()
                self.sig_log.emit(line)

    def _on_stdout_line(self, line: str) -> None:
        event = parse_event(line)
        if isinstance(event, StageEvent):
            self.sig_stage.emit(event.stage, event.done, event.total)
        elif isinstance(event, FinishedEvent):
            self._outcome = event
        elif line.strip():
            self.sig_log.emit(line)

    def _on_finished(self, exit_code: int, exit_status: QProcess.ExitStatus) -> None:
        self._read(QProcess.ProcessChannel.StandardOutput, final=True)
        self._read(QProcess.ProcessChannel.StandardError, final=True)
        crashed = exit_status == QProcess.ExitStatus.CrashExit
        self._finish(self._outcome or self._unreported_outcome(exit_code, crashed))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            self._finish(FinishedEvent("failed", self._out_dir(), f"cannot start {self._python}: "
                                       f"{self._process.errorString()}"))

    def _unreported_outcome(self, exit_code: int, crashed: bool) -> FinishedEvent:
        """The outcome of a run that ended without its `finished` line (unusable input, a kill, a crash)."""
        if self._cancelled:
            why = "killed after the grace period" if self._killed else "cancelled before the run started"
            return FinishedEvent("cancelled", self._out_dir(), why)
        reason = self._last_error_line.removeprefix("mapwright: ")
        if not reason:
            reason = "the run process crashed" if crashed else f"the run process exited with code {exit_code}"
        return FinishedEvent("failed", self._out_dir(), reason)

    def _out_dir(self) -> str:
        return str(self._request.out_dir.absolute()) if self._request else ""

    def _finish(self, outcome: FinishedEvent) -> None:
        process, self._process = self._process, None
        if process is None:  # finished and errorOccurred may both arrive
            return
        process.deleteLater()
        folder = str(Path(outcome.manifest).parent) if outcome.manifest else outcome.out or self._out_dir()
        self.sig_finished.emit(outcome.status, folder, outcome.reason)


def child_process(parent: QObject, command: list[str]) -> QProcess:
    """A child process of the designer's, not started: `command` in this environment (`_environment`), its
    signals as a fresh process has them. An ignored signal survives exec: a designer started with SIGINT
    ignored (a shell's background job) would pass that on, and Python would then never install its own
    SIGINT handler, so a cancel that reaches the child while it starts would be lost and the run would go
    on until the grace ran out. (`RunProcess.cancel` also waits for the exec before it signals.)"""
    process = QProcess(parent)
    process.setProgram(command[0])
    process.setArguments(command[1:])
    process.setProcessEnvironment(_environment())
    process.setUnixProcessParameters(QProcess.UnixProcessFlag.ResetSignalHandlers)
    return process


def _environment() -> QProcessEnvironment:
    """This process's environment, with the engine importable and the child's output unbuffered."""
    env = QProcessEnvironment.systemEnvironment()
    path = env.value("PYTHONPATH")
    env.insert("PYTHONPATH", os.pathsep.join(p for p in (str(_SOURCE_ROOT), path) if p))
    env.insert("PYTHONUNBUFFERED", "1")
    return env
