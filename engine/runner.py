"""`mapwright run`: one run as its own process, so a GUI can start, watch and cancel it.

Progress goes to stdout as JSON lines (`{"event": "stage", "stage": ..., "done": N, "total": N}`,
then one `{"event": "finished", "status": ..., "out": RUNDIR, "manifest": path or null, ...}`).

The run directory is checked before anything else and locked once the input has been read
(`engine.run.rundir.publish`): a folder that is not a run directory, or one that another run holds, is exit 2
and left untouched. SIGTERM or Ctrl-C cancels
at any moment, within a fraction of a second while Spark starts (the start runs in a worker thread that
the main thread stops waiting for; the JVM dies with this process). A failed or cancelled run writes a
manifest with its status and reason to RUNDIR, or to `RUNDIR.attempt` when RUNDIR holds a succeeded run,
which is kept; stderr's last line says which file holds the reason. A half-written run never looks
finished.

Where the SparkSession comes from is a `Sessions`: `mapwright run` starts its own and stops it
(`OneShot`); the designer's warm worker (`engine.worker`) lends one it keeps alive between runs and
passes its own cancel event, so both take this very code path (same run directory, rejects, cancel).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.java import JavaMissing, require_java
from engine.model import Model, load_model
from engine.rules import count, validate
from engine.run.inprocess import fill_inprocess_run
from engine.run.rundir.publish import RunDirError, check_out_dir, claim
from engine.run.rundir.write import RUN_INPUT_ERRORS, RunInfo, model_sha256, write_failed_run, write_spark_run
from engine.run.semantics.reference import RunCancelled
from engine.run.semantics.replica import with_replica_identity
from engine.spark.session import MasterError, check_reachable, input_bytes, parse_master

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
WORKER = "mapwright-run"
T = TypeVar("T")
ENGINES = ("auto", "inprocess", "spark")
DEFAULT_MASTER = "local[*]"
AUTO_INPROCESS_BYTES = 16_000_000
"""`--engine auto` runs in process up to this much input (changes, snapshots, schedule), on Spark above it:
a small input's whole in-process run is over before a Spark session has started, and on B2's workload Spark
overtakes the in-process engine between 50,000 and 100,000 events (README, "Choosing the engine"; the
figures: benchmarks/results/README.md, "History of the figures quoted in the code")."""


def choose_engine(engine: str, master_url: str | None, data_dir: Path) -> tuple[str, str | None]:
    """(the engine that runs, its Spark master or None): `inprocess` and `spark` as asked; `auto` runs on
    Spark whenever a master is given (every earlier Spark invocation keeps running on Spark), else in
    process for inputs up to `AUTO_INPROCESS_BYTES` and on Spark above."""
    if engine not in ENGINES:
        raise RunUsageError(f"--engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if engine == "inprocess":
        if master_url is not None:
            raise RunUsageError("--master is for Spark runs; --engine inprocess runs without Spark "
                                "(leave out --master, or choose --engine spark)")
        return "inprocess", None
    if engine == "spark" or master_url is not None:
        return "spark", master_url or DEFAULT_MASTER
    if data_dir.is_dir() and _input_size(data_dir) <= AUTO_INPROCESS_BYTES:
        return "inprocess", None
    return "spark", DEFAULT_MASTER


def _input_size(data_dir: Path) -> int:
    try:
        return input_bytes(data_dir)
    except OSError:
        return AUTO_INPROCESS_BYTES + 1  # unreadable here: Spark's readers will say what is wrong


class RunUsageError(Exception):
    """Input the run cannot start with (no data folder, unreachable master, no Java): exit 2."""


def emit(event: str, **fields: Any) -> None:
    """One JSON line on stdout, written whole (a worker's other threads print lines too)."""
    sys.stdout.write(json.dumps({"event": event, **fields}, default=str) + "\n")
    sys.stdout.flush()


class Sessions(Protocol):
    """Where a run gets its SparkSession and what becomes of it after the run.

    `cancel_grace_s`: how long a cancelled run waits for the pipeline to notice before it is written
    `cancelled` and the pipeline's thread is left to finish on its own (it never writes the run directory).
    """

    cancel_grace_s: float

    def acquire(self, master_url: str, cancel: threading.Event) -> Any:
        """A session on `master_url`; may return early (raising `RunCancelled`) when `cancel` is set."""

    def release(self, spark: Any) -> None:
        """The run is over with `spark` (None when it never got one); before the last line is printed."""

    def abandon(self) -> None:
        """The run was cancelled while `acquire` was still starting Spark."""


class OneShot:
    """`mapwright run`'s own session: started for the run, in a thread a cancel does not wait for; stopped
    after. `input_bytes`: the size of the run's input, which its JVM is started for (`session.jit_options`)."""

    cancel_grace_s = 30.0

    def __init__(self, input_bytes: int | None = None) -> None:
        self.input_bytes = input_bytes

    def acquire(self, master_url: str, cancel: threading.Event) -> Any:
        return _in_worker(lambda: _start_spark(master_url, self.input_bytes), cancel, None, grace_s=0.0)

    def release(self, spark: Any) -> None:
        _stop_quietly(spark)

    def abandon(self) -> None:
        _kill_children()  # stop the JVM being launched


def _in_worker(work: Callable[[], T], cancel: threading.Event, spark: Any, grace_s: float = 30.0) -> T:
    """Run Spark's start or the pipeline in a thread, so a signal never lands inside a py4j call; when
    `cancel` is set, keep asking Spark to stop its jobs and wait for the work to notice (at most `grace_s`)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # handed to the main thread as it is
            box["error"] = exc

    thread = threading.Thread(target=target, name=WORKER, daemon=True)
    thread.start()
    asked = last_ask = 0.0
    while thread.is_alive():
        thread.join(0.05)
        now = time.monotonic()
        if cancel.is_set() and now - last_ask >= 0.25:  # again and again: a job the pipeline starts after
            asked, last_ask = asked or now, now          # the first ask is cancelled as soon as it starts
            _cancel_jobs(spark)
        if asked and time.monotonic() - asked > grace_s:
            raise RunCancelled("cancelled (Spark did not stop in time)")
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]


def _cancel_jobs(spark: Any) -> None:
    if spark is None:
        return
    with contextlib.suppress(Exception):
        if hasattr(spark, "sparkContext") and not type(spark).__module__.startswith("pyspark.sql.connect"):
            spark.sparkContext.cancelAllJobs()
        else:
            spark.interruptAll()


def run(model_path: Path, data_dir: Path, out: Path, master_url: str | None = None, *, engine: str = "spark",
        cancel: threading.Event | None = None, sessions: Sessions | None = None,
        replica_identity: Mapping[str, str] | None = None) -> int:
    """Run and write `out`; returns the exit code. Raises `RunUsageError` before anything starts.

    `engine`: "spark", "inprocess" or "auto" (`choose_engine`); `master_url` None is Spark's default master.
    `replica_identity`: server id -> "full" or "default", over the model's (`replica.with_replica_identity`).
    Without `cancel`, SIGTERM and Ctrl-C cancel (the main thread's handlers, restored after); with one,
    whoever holds it cancels. Without `sessions`, a Spark run starts its own Spark and stops it (`OneShot`).
    """
    chosen, master = choose_engine(engine, master_url, data_dir)
    own_process = sessions is None
    sessions = sessions or OneShot()
    previous: dict[int, Any] = {}
    if cancel is None:
        stop = cancel = threading.Event()
        previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        check_out_dir(out)  # first of all; then the input, read only; then the lock, and the run
        model = load_model(model_path)
        try:
            model = with_replica_identity(model, replica_identity or {})
        except ValueError as exc:
            raise RunUsageError(str(exc)) from None
        _check_usable(data_dir, master)
        _check_apart(data_dir, out)
        if master is None:
            with claim(out) as target:
                code = _run_inprocess(model_path, model, data_dir, target, cancel)
            return code
        if own_process:  # a session for this run alone: started for its size
            sessions = OneShot(input_bytes(data_dir))
        with claim(out) as target:
            code = _run_claimed(model_path, model, data_dir, target, master, cancel, sessions)
    except RunDirError as exc:
        raise RunUsageError(str(exc)) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if own_process and any(t.name == WORKER and t.is_alive() for t in threading.enumerate()):
        # Cancelled while Spark started: the worker is still inside pyspark, and tearing the interpreter
        # down around it takes a second or more. Everything is written, the lock released: leave now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


CANCELLED = "cancelled by the user (SIGTERM or Ctrl-C)"


def _check_usable(data_dir: Path, master_url: str | None) -> None:
    if not data_dir.is_dir():
        raise RunUsageError(f"{data_dir}: no such folder (the sample data, --data)")
    if master_url is None:  # in process: no Spark, no Java
        return
    try:
        master = parse_master(master_url)
        check_reachable(master)
        if master.kind != "connect":
            require_java()
    except (MasterError, JavaMissing) as exc:
        raise RunUsageError(str(exc)) from None


def _check_apart(data_dir: Path, out: Path) -> None:
    """The run directory and the data must not hold one another: a run would read its own files as input,
    or replace the data with its results."""
    data, rundir = data_dir.resolve(), out.resolve()
    if rundir == data or data in rundir.parents:
        raise RunUsageError(f"{out} is inside the data folder {data_dir}: the run would read its own files as "
                            "input; write the run directory elsewhere")
    if rundir in data.parents:
        raise RunUsageError(f"{data_dir} is inside the run directory {out}: a run replaces that folder; "
                            "keep the data elsewhere")


def invalid_model_reason(model: Model, model_path: Path) -> str | None:
    """Why a model is not worked on, or None: it has validation errors. The reason `mapwright run` gives
    (and writes in its failed manifest), so `verify` refuses the same models, in the same words and with
    the same exit code, before it reads any data or starts any server."""
    errors, _ = count(validate(model))
    if not errors:
        return None
    return f"the model has {errors} validation error(s); see `mapwright validate {model_path}`"


def _run_inprocess(model_path: Path, model: Model, data_dir: Path, out: Path, cancel: threading.Event) -> int:
    """The run on the in-process engine (`engine.run.inprocess`): the same checks, run directory, rejects,
    failure and cancel handling as a Spark run, without Spark."""
    info = RunInfo(model_sha256(model_path), master=None, spark_version=None, started=datetime.now(UTC),
                   model_path=str(model_path), run_engine="inprocess")
    reason = invalid_model_reason(model, model_path)
    if reason is not None:
        return _finish_failed(out, "failed", reason, info)

    def progress(stage: str, done: int, total: int) -> None:
        emit("stage", stage=stage, done=done, total=total)

    try:
        if cancel.is_set():
            raise RunCancelled("cancelled")
        emit("stage", stage="start", done=0, total=1)
        result = write_spark_run(lambda staged: _filled(fill_inprocess_run(model, data_dir, staged, progress, cancel)),
                                 model, out, lambda: replace(info, finished=datetime.now(UTC)))
    except (RunCancelled, KeyboardInterrupt):
        return _finish_failed(out, "cancelled", CANCELLED, info)
    except RUN_INPUT_ERRORS as exc:
        where = _write_failed(out, "failed", str(exc), info)
        emit("finished", status="failed", out=str(out), manifest=where.manifest, reason=str(exc), engine="inprocess")
        raise RunUsageError(f"{exc} ({where.note})") from None
    except RunDirError:
        raise
    except OSError as exc:
        return _finish_failed(out, "failed", f"cannot write the run directory: {exc.strerror or exc}", info)
    except RuntimeError as exc:  # the in-process run's own failure, in one line
        return _finish_failed(out, "failed", str(exc), info)
    emit("finished", status="succeeded", out=str(out), manifest=str(out / "manifest.json"),
         counts=result.counts.as_dict(), diverged=sum(1 for m in result.convergence if m["diverged"]),
         engine="inprocess")
    return EXIT_OK


def _filled(summary: T) -> T:
    emit("stage", stage="write", done=1, total=1)
    return summary


def _run_claimed(model_path: Path, model: Model, data_dir: Path, out: Path, master_url: str,
                 cancel: threading.Event, sessions: Sessions) -> int:
    info = RunInfo(model_sha256(model_path), master=master_url, spark_version=None, started=datetime.now(UTC),
                   model_path=str(model_path), run_engine="spark")
    reason = invalid_model_reason(model, model_path)
    if reason is not None:
        return _finish_failed(out, "failed", reason, info)
    spark = None
    try:
        if cancel.is_set():
            raise RunCancelled("cancelled")
        emit("stage", stage="start", done=0, total=1)
        spark = sessions.acquire(master_url, cancel)
        from engine.spark.pipeline import STAGES, run_spark

        info = replace(info, spark_version=spark.version)
        emit("stage", stage="spark", done=1, total=1, spark_version=spark.version)

        def progress(stage: str, done: int, total: int, **tasks: int) -> None:
            if cancel.is_set():
                raise RunCancelled("cancelled")
            emit("stage", stage=stage, done=done, total=total, **tasks)

        def run_into(staged: Path) -> Any:
            ran = _in_worker(lambda: run_spark(spark, model, data_dir, staged, progress), cancel, spark,
                             sessions.cancel_grace_s)
            if cancel.is_set():
                raise RunCancelled("cancelled")
            emit("stage", stage="write", done=len(STAGES), total=len(STAGES))
            return ran

        result = write_spark_run(run_into, model, out, lambda: replace(info, finished=datetime.now(UTC)))
    except (RunCancelled, KeyboardInterrupt):
        if spark is None:  # cancelled while Spark starts: do not wait for it
            sessions.abandon()
        return _finish_failed(out, "cancelled", CANCELLED, info, spark, sessions)
    except RUN_INPUT_ERRORS as exc:
        sessions.release(spark)
        where = _write_failed(out, "failed", str(exc), info)
        emit("finished", status="failed", out=str(out), manifest=where.manifest, reason=str(exc), engine="spark")
        raise RunUsageError(f"{exc} ({where.note})") from None
    except RunDirError:
        sessions.release(spark)
        raise
    except OSError as exc:  # a full disk, a folder gone read-only: the earlier run is still in place
        if cancel.is_set():
            return _finish_failed(out, "cancelled", CANCELLED, info, spark, sessions)
        return _finish_failed(out, "failed", f"cannot write the run directory: {exc.strerror or exc}", info, spark,
                              sessions)
    except Exception as exc:  # a Spark job that failed: say why, in one line
        if cancel.is_set():
            return _finish_failed(out, "cancelled", CANCELLED, info, spark, sessions)
        return _finish_failed(out, "failed", spark_failure(exc), info, spark, sessions)
    sessions.release(spark)
    emit("finished", status="succeeded", out=str(out), manifest=str(out / "manifest.json"),
         counts=result.counts.as_dict(), diverged=sum(1 for m in result.convergence if m["diverged"]),
         engine="spark")
    return EXIT_OK


def _start_spark(master_url: str, input_bytes: int | None = None) -> Any:
    """Import pyspark and start a session: seconds of work a cancel must not wait for."""
    import engine.spark.pipeline  # noqa: F401  (pyspark's import is a good part of the start)
    from engine.spark.session import spark_session

    return spark_session(master_url, one_run_bytes=input_bytes)


def _kill_children() -> None:
    """Kill this process's children (during start-up: the JVM that pyspark is launching), so it neither
    outlives the run nor prints after the last line. Linux only; elsewhere pyspark's atexit kills it."""
    with contextlib.suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            for pid in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)


@dataclass(frozen=True)
class _Written:
    """Where a failed run's manifest went (None when it could not be written), and a note saying so."""

    manifest: str | None
    note: str


def _write_failed(out: Path, status: str, reason: str, info: RunInfo) -> _Written:
    try:
        folder = write_failed_run(out, status, reason, replace(info, finished=datetime.now(UTC)))
    except RunDirError:
        raise
    except OSError as exc:
        return _Written(None, f"its manifest could not be written: {exc.strerror or exc}")
    manifest = folder / "manifest.json"
    if folder != out:
        return _Written(str(manifest), f"the reason is in {manifest}; the succeeded run in {out} is unchanged")
    return _Written(str(manifest), f"the reason is in {manifest}")


def _finish_failed(out: Path, status: str, reason: str, info: RunInfo, spark: Any = None,
                   sessions: Sessions | None = None) -> int:
    """Stop Spark, write the manifest and say where it is: the JSON line, then stderr's last line."""
    (sessions or OneShot()).release(spark)
    where = _write_failed(out, status, reason, info)
    emit("finished", status=status, out=str(out), manifest=where.manifest, reason=reason, engine=info.run_engine)
    print(f"mapwright: run {status}: {reason} ({where.note})", file=sys.stderr)
    return EXIT_FAILED


_WRITER_CALL = re.compile(r"An error occurred while calling o[0-9]+\.(save|text|parquet|json|csv)\.")
"""The first line of a Py4J error raised by one of Spark's writers."""


def spark_failure(exc: BaseException) -> str:
    """The line of a Spark error a user can act on (a Python worker's own error when there is one)."""
    text = str(exc).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [line.removeprefix("Caused by:").strip() for line in lines if line.startswith("Caused by:")]
    if causes and ("TASK_WRITE_FAILED" in text or _WRITER_CALL.search(text)):
        # a full disk, a folder gone read-only, in a task or in the job's commit: the root cause says which
        return f"cannot write the run directory: {causes[-1].split(': ', 1)[-1]}"[:500]
    for line in reversed(lines):
        if line.split(":")[0].endswith(("Error", "Exception", "Cancelled")) and "Traceback" not in line:
            return line[:500]
    if causes:  # a Java error: its root cause
        return causes[-1][:500]
    return f"{type(exc).__name__}: {lines[0][:500] if lines else 'no message'}"


def _stop_quietly(spark: Any) -> None:
    """Stop Spark (before the last line, so its shutdown logs come first); a failure to stop is ignored."""
    if spark is not None:
        with contextlib.suppress(Exception):
            spark.stop()
