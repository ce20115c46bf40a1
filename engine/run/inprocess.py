"""The in-process engine: the pure-Python run (`engine.run.semantics.reference`) as `mapwright run --engine inprocess`.

Small samples preview in seconds this way, where Spark's start alone takes longer on a small machine. The
run is the reference the Spark pipeline is held equal to, and it writes the same run directory: the
caller publishes it through `rundir.write_spark_run`, so staging, the lock, attempt manifests and cancel
are the Spark path's own.

The run works in a forked child process that writes the data files into the staged folder and sends back
its summary (counts, stage seconds, convergence) and its progress over a pipe. A cancel then kills the child
at once, wherever it is: inside a regular expression that backtracks for minutes (Python's `re` holds the
interpreter for the whole match) as anywhere else. The folder it was writing is the staging folder, which
the run-directory protocol discards. Where `fork` is not available, the run works in this process and a
cancel is seen between stages.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NoReturn

from engine.model.schema import Model
from engine.run.input.files import InputError
from engine.run.semantics.reference import RunCancelled, RunCounts, RunResult, run_reference

StageProgress = Callable[[str, int, int], None]
STAGES = ("decode", "net_effect", "resolve", "converge")
POLL_S = 0.05
_PR_SET_PDEATHSIG = 1


@dataclass
class InProcessSummary:
    """What the manifest and convergence.json say of an in-process run (`rundir.RunSummary`)."""

    counts: RunCounts
    convergence: list[dict[str, Any]]
    stage_seconds: dict[str, float] = field(default_factory=dict)


def fill_inprocess_run(model: Model, data_dir: Path, staged: Path, progress: StageProgress,
                       cancel: threading.Event) -> InProcessSummary:
    """Run `model` on `data_dir` and write the run's data files into `staged` (everything but the manifest
    and convergence.json, which the publisher writes). `progress(stage, done, total)` as each stage starts.
    Raises `RunCancelled` when `cancel` is set, `InputError` and the other input errors a run reports."""
    if not hasattr(os, "fork"):
        return _fill_here(model, data_dir, staged, progress, cancel)
    # os.fork, not multiprocessing: its child closes sys.stdin, whose lock a thread reading stdin (the designer's
    # worker) holds at the fork, and the child would wait for it forever
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        _child(model, data_dir, staged, Connection(write_end, readable=False))
    os.close(write_end)
    receive = Connection(read_end, writable=False)
    try:
        return _follow(pid, receive, progress, cancel)
    finally:
        receive.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _follow(pid: int, receive: Connection, progress: StageProgress, cancel: threading.Event) -> InProcessSummary:
    """Relay the child's messages until it is done; kill it the moment `cancel` is set."""
    while True:
        if cancel.is_set():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            raise RunCancelled("cancelled")
        try:
            ready = receive.poll(POLL_S)
            message = receive.recv() if ready else None
        except (EOFError, OSError):
            raise RuntimeError(f"the in-process run ended without a result ({_exit_status(pid)})") from None
        if message is None:
            continue
        kind = message[0]
        if kind == "stage":
            progress(message[1], STAGES.index(message[1]) if message[1] in STAGES else 0, len(STAGES))
        elif kind == "done":
            counts, convergence, seconds = message[1:]
            return InProcessSummary(RunCounts(**counts), convergence, seconds)
        elif kind == "input":
            raise InputError(message[1])
        else:
            raise RuntimeError(message[1])


def _exit_status(pid: int) -> str:
    with contextlib.suppress(ChildProcessError):
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            return f"killed by signal {os.WTERMSIG(status)}"
        return f"exit code {os.waitstatus_to_exitcode(status)}"
    return "exit status unknown"


def _child(model: Model, data_dir: Path, staged: Path, send: Connection) -> NoReturn:
    """The forked run: dies with its parent, writes the data files, sends its summary, exits at once
    (no atexit handlers of the parent's: its Spark gateway, its temporary folders)."""
    code = 0
    try:
        _die_with_parent()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides about cancel; it kills this process
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        result = run_reference(model, data_dir, lambda stage: send.send(("stage", stage)))
        write_data_files(result, model, staged)
        send.send(("done", result.counts.as_dict(), result.convergence, result.stage_seconds))
    except BaseException as exc:  # everything goes to the parent as a message: this process only ends
        code = 1
        with contextlib.suppress(Exception):
            send.send(_failure(exc))
    finally:
        with contextlib.suppress(Exception):
            send.close()
        os._exit(code)


def _failure(exc: BaseException) -> tuple[str, str]:
    from engine.run.rundir.write import RUN_INPUT_ERRORS

    if isinstance(exc, RUN_INPUT_ERRORS):
        return ("input", str(exc))
    if isinstance(exc, OSError):
        return ("error", f"cannot write the run directory: {exc.strerror or exc}")
    return ("error", f"internal error: {type(exc).__name__}: {exc}")


def _fill_here(model: Model, data_dir: Path, staged: Path, progress: StageProgress,
               cancel: threading.Event) -> InProcessSummary:
    def stage(name: str) -> None:
        if cancel.is_set():
            raise RunCancelled("cancelled")
        progress(name, STAGES.index(name) if name in STAGES else 0, len(STAGES))

    result = run_reference(model, data_dir, stage)
    write_data_files(result, model, staged)
    return InProcessSummary(result.counts, result.convergence, result.stage_seconds)


def write_data_files(result: RunResult, model: Model, staged: Path) -> None:
    """The run's tables, conflicts, error queue and rejects, as `rundir.write_run` lays them out."""
    from engine.run.rundir.write import write_data

    write_data(result, model, staged)


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (a killed `mapwright run` leaves no orphan)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
