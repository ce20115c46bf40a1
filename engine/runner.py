"""`mapwright run`: one run as its own process, so a GUI can start, watch and cancel it.

Progress goes to stdout as JSON lines (`{"event": "stage", "stage": ..., "done": N, "total": N}`,
then one `{"event": "finished", ...}`). SIGTERM or Ctrl-C cancels: the run
directory then holds only a manifest saying `cancelled`. A run that fails
says `failed` and why; a half-written run never looks finished.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from engine.java import JavaMissing, require_java
from engine.model import load_model
from engine.rules import count, validate
from engine.run.reference import RunCancelled
from engine.run.rundir import RUN_INPUT_ERRORS, RunDirError, RunInfo, model_sha256, write_failed_run, write_run
from engine.spark.session import MasterError, check_reachable, parse_master

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
T = TypeVar("T")


class RunUsageError(Exception):
    """Input the run cannot start with (no data folder, unreachable master, no Java): exit 2."""


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}, default=str), flush=True)


def _in_worker(work: Callable[[], T], cancel: threading.Event, spark: Any, grace_s: float = 30.0) -> T:
    """Run the pipeline in a thread, so a signal never lands inside a py4j call; when `cancel` is set,
    ask Spark to stop its jobs and wait for the pipeline to notice (at most `grace_s`)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # handed to the main thread as it is
            box["error"] = exc

    thread = threading.Thread(target=target, name="mapwright-run", daemon=True)
    thread.start()
    asked = 0.0
    while thread.is_alive():
        thread.join(0.2)
        if cancel.is_set() and not asked:
            asked = time.monotonic()
            _cancel_jobs(spark)
        if asked and time.monotonic() - asked > grace_s:
            raise RunCancelled("cancelled (Spark did not stop in time)")
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]


def _cancel_jobs(spark: Any) -> None:
    with contextlib.suppress(Exception):
        if hasattr(spark, "sparkContext") and not type(spark).__module__.startswith("pyspark.sql.connect"):
            spark.sparkContext.cancelAllJobs()
        else:
            spark.interruptAll()


def run(model_path: Path, data_dir: Path, out: Path, master_url: str = "local[*]") -> int:
    """Run and write `out`; returns the exit code. Raises `RunUsageError` before anything starts."""
    model = load_model(model_path)
    if not data_dir.is_dir():
        raise RunUsageError(f"{data_dir}: no such folder (the sample data, --data)")
    try:
        master = parse_master(master_url)
        check_reachable(master)
        if master.kind != "connect":
            require_java()
    except (MasterError, JavaMissing) as exc:
        raise RunUsageError(str(exc)) from None
    info = RunInfo(model_sha256(model_path), master=master_url, spark_version=None, started=datetime.now(UTC),
                   model_path=str(model_path))
    errors, _ = count(validate(model))
    if errors:
        reason = f"the model has {errors} validation error(s); see `mapwright validate {model_path}`"
        return _finish_failed(out, "failed", reason, info)
    cancel = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: cancel.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    spark = None
    try:
        emit("stage", stage="start", done=0, total=1)
        from engine.spark.pipeline import STAGES, run_spark
        from engine.spark.session import spark_session

        spark = spark_session(master_url)
        info = replace(info, spark_version=spark.version)
        emit("stage", stage="spark", done=1, total=1, spark_version=spark.version)

        def progress(stage: str, done: int, total: int) -> None:
            if cancel.is_set():
                raise RunCancelled("cancelled")
            emit("stage", stage=stage, done=done, total=total)

        result = _in_worker(lambda: run_spark(spark, model, data_dir, progress), cancel, spark)
        if cancel.is_set():
            raise RunCancelled("cancelled")
        emit("stage", stage="write", done=len(STAGES), total=len(STAGES))
        write_run(result, model, out, replace(info, finished=datetime.now(UTC)))
    except (RunCancelled, KeyboardInterrupt):
        return _finish_failed(out, "cancelled", "cancelled by the user (SIGTERM or Ctrl-C)", info)
    except RUN_INPUT_ERRORS as exc:
        write_failed_run(out, "failed", str(exc), replace(info, finished=datetime.now(UTC)))
        emit("finished", status="failed", out=str(out), reason=str(exc))
        raise RunUsageError(str(exc)) from None
    except RunDirError as exc:
        raise RunUsageError(str(exc)) from None
    except Exception as exc:  # a Spark job that failed: say why, in one line
        if cancel.is_set():
            return _finish_failed(out, "cancelled", "cancelled by the user (SIGTERM or Ctrl-C)", info)
        return _finish_failed(out, "failed", spark_failure(exc), info)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if spark is not None:
            _stop_quietly(spark)
    emit("finished", status="succeeded", out=str(out), counts=result.counts.as_dict(),
         diverged=sum(1 for m in result.convergence if m["diverged"]))
    return EXIT_OK


def _finish_failed(out: Path, status: str, reason: str, info: RunInfo) -> int:
    write_failed_run(out, status, reason, replace(info, finished=datetime.now(UTC)))
    emit("finished", status=status, out=str(out), reason=reason)
    print(f"mapwright: run {status}: {reason}", file=sys.stderr)
    return EXIT_FAILED


def spark_failure(exc: BaseException) -> str:
    """The line of a Spark error a user can act on (a Python worker's own error when there is one)."""
    text = str(exc).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.split(":")[0].endswith(("Error", "Exception", "Cancelled")) and "Traceback" not in line:
            return line[:500]
    return f"{type(exc).__name__}: {lines[0][:500] if lines else 'no message'}"


def _stop_quietly(spark: Any) -> None:
    with contextlib.suppress(Exception):  # the run's outcome is already written
        spark.stop()
