"""A warm run worker: one SparkSession kept alive between runs, so a preview skips Spark's start.

`python -m engine.worker --master local[N] [--parent PID]` starts the session at once and then serves run
requests, one at a time, read as JSON lines on stdin:

    {"run": {"model": PATH, "data": DIR, "out": RUNDIR, "master": URL, "engine": "spark"}}   queue a run
    {"cancel": true}                                                       cancel the current or queued run
    {"stop": true}                                                         stop Spark and exit (so does EOF)

Every run goes through `engine.runner.run`, the very code path of `mapwright run` (the same checks, lock,
run directory, rejects and cancel semantics), and prints the same `stage` and `finished` lines, then one
`{"event": "done", "code": N, "error": "..."}` (the exit code `mapwright run` would have given and, for exit
2, its one-line message). The worker's own state is `{"event": "worker", "state": "starting" | "ready" |
"busy" | "stopped", ...}`.

With `--no-spark` it starts no Spark at all and serves in-process runs (`"engine": "inprocess"`, no master):
the engine is imported once, so a preview of a small sample skips the interpreter's start and imports too.

Warm means more than a started JVM: a session's first run pays for importing the engine in every Python
worker and for compiling its queries, and Spark ends a Python worker idle for a minute. So the worker
runs the pipeline once on a tiny generated sample before it says `ready` (no run directory is written),
and while idle it touches its Python workers every `KEEP_WARM_S` with a job of a few milliseconds.

It never outlives its parent: it exits when stdin closes, when the parent dies (Linux's
PR_SET_PDEATHSIG, and a watch on the parent's pid everywhere), and the JVM exits with it (pyspark's
gateway ends when its stdin, held by this process, closes).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import queue
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import runner
from engine.run.semantics.reference import RunCancelled
from engine.spark.session import MasterError, parse_master

STATE, DONE = "worker", "done"
PARENT_POLL_S = 0.5
KEEP_WARM_S = 40.0  # under Spark's one-minute limit for an idle Python worker
CANCEL_GRACE_S = 0.3  # a cancelled run is answered this soon; its jobs are cancelled, its thread drained after
DRAIN_S = 60.0  # a cancelled pipeline that has not stopped by then leaves the session in doubt: exit
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class RunOrder:
    """One run request, as the designer's `RunRequest`."""

    model: Path
    data_dir: Path
    out: Path
    master: str | None
    engine: str = "spark"


class WarmSessions:
    """Lends the worker's session to each run: never stopped by a run, its cache cleared after each."""

    cancel_grace_s = CANCEL_GRACE_S

    def __init__(self, master_url: str) -> None:
        self.master_url = master_url
        self.spark: Any = None

    def start(self) -> Any:
        self.spark = runner._start_spark(self.master_url)
        return self.spark

    def warm_up(self) -> None:
        """One pipeline run on a tiny generated sample: Python workers import the engine, queries compile."""
        from engine.model import load_model
        from engine.sampledata.generator import generate
        from engine.spark.pipeline import run_spark
        from resources import SAMPLE_MODEL

        model = load_model(SAMPLE_MODEL)
        with tempfile.TemporaryDirectory(prefix="mapwright-warm-") as tmp:
            data, out = Path(tmp) / "data", Path(tmp) / "out"
            out.mkdir()
            generate(model, data, seed=7, rows=20, changes=30)
            run_spark(self.spark, model, data, out)
        self.release(self.spark)

    def keep_warm(self) -> None:
        """A job of a few milliseconds on every core, so Spark keeps its Python workers (and their imports)."""
        cores = max(1, int(self.spark.sparkContext.defaultParallelism))
        self.spark.range(0, cores, 1, cores).mapInArrow(_touch, "id long").count()

    def acquire(self, master_url: str, cancel: threading.Event) -> Any:
        if self.spark is None:
            raise runner.RunUsageError("this worker runs without Spark: only in-process runs")
        if master_url != self.master_url:
            raise runner.RunUsageError(f"this warm session runs on {self.master_url}, not {master_url}")
        if cancel.is_set():
            raise RunCancelled("cancelled")
        return self.spark

    def release(self, spark: Any) -> None:
        if spark is not None:  # what a cancelled run persisted, and its jobs, must not weigh on the next
            with contextlib.suppress(Exception):
                spark.sparkContext.cancelAllJobs()
                spark.catalog.clearCache()

    def abandon(self) -> None:
        pass

    def stop(self) -> None:
        runner._stop_quietly(self.spark)
        self.spark = None


def parse_order(line: str) -> RunOrder | str | None:
    """A stdin line as a `RunOrder`, "cancel" or "stop"; None for a blank line. Raises ValueError, one line."""
    text = line.strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        raise ValueError(f"not a JSON line: {text[:80]!r}") from None
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object")
    if doc.get("stop"):
        return "stop"
    if doc.get("cancel"):
        return "cancel"
    order = doc.get("run")
    if not isinstance(order, dict):
        raise ValueError("expected {\"run\": {...}}, {\"cancel\": true} or {\"stop\": true}")
    master, engine = order.get("master"), order.get("engine", "spark")
    try:
        return RunOrder(Path(str(order["model"])), Path(str(order["data"])), Path(str(order["out"])),
                        None if master is None else str(master), str(engine))
    except KeyError as exc:
        raise ValueError(f"run: missing {exc.args[0]!r}") from None


class Worker:
    """The serving loop (a thread) fed by the reading loop (the main thread)."""

    def __init__(self, master_url: str, spark: bool = True) -> None:
        self.sessions = WarmSessions(master_url)
        self.spark = spark
        self.orders: queue.Queue[tuple[RunOrder, threading.Event] | None] = queue.Queue()
        self.ready = threading.Event()
        self._lock = threading.Lock()
        # one cancel event per run queued or running (kept set for a cancelled run's thread until it drains),
        # so a cancel with no run is a no-op, not a trap for the next one
        self._live: list[threading.Event] = []

    def say(self, state: str, **fields: Any) -> None:
        runner.emit(STATE, state=state, master=self.sessions.master_url, pid=os.getpid(), **fields)

    def serve(self) -> None:
        """Start Spark, then run each order as it comes; a None order stops."""
        self.say("starting")
        started = time.monotonic()
        if self.spark:
            self._start_spark(started)
        else:
            _import_inprocess_engine()
            self.say("ready", spark_version=None, seconds=round(time.monotonic() - started, 2))
        self.ready.set()
        while (item := self._next_order()) is not None:
            order, cancel = item
            self.say("busy", out=str(order.out))
            code, error = self._run(order, cancel)
            runner.emit(DONE, code=code, error=error)
            drained = self._drain()
            with self._lock:
                self._live.remove(cancel)
            if not drained:
                self.say("stopped", reason="a cancelled run's Spark jobs did not stop")
                _exit(1)
            self.say("ready")
        self.sessions.stop()
        self.say("stopped", reason="asked to stop")

    def _start_spark(self, started: float) -> None:
        try:
            spark = self.sessions.start()
        except Exception as exc:
            self.say("stopped", reason=runner.spark_failure(exc))
            _exit(1)
        try:
            self.sessions.warm_up()
        except Exception as exc:  # a cold session still serves: the first run pays what the warm-up would have
            print(f"mapwright worker: warm-up failed: {runner.spark_failure(exc)}", file=sys.stderr, flush=True)
        self.say("ready", spark_version=spark.version, seconds=round(time.monotonic() - started, 2))

    def _drain(self) -> bool:
        """Wait for a cancelled run's pipeline thread to notice (cancelling its jobs as they start); then
        clear what it cached. False when it is still running after `DRAIN_S`."""
        deadline = time.monotonic() + DRAIN_S
        while threads := [t for t in threading.enumerate() if t.name == runner.WORKER and t.is_alive()]:
            if time.monotonic() > deadline:
                return False
            runner._cancel_jobs(self.sessions.spark)
            threads[0].join(0.25)
        self.sessions.release(self.sessions.spark)
        return True

    def _next_order(self) -> tuple[RunOrder, threading.Event] | None:
        """The next order; while none comes, keep the Python workers alive."""
        while True:
            try:
                return self.orders.get(timeout=KEEP_WARM_S)
            except queue.Empty:
                if self.sessions.spark is not None:
                    with contextlib.suppress(Exception):
                        self.sessions.keep_warm()

    def _run(self, order: RunOrder, cancel: threading.Event) -> tuple[int, str]:
        try:
            return runner.run(order.model, order.data_dir, order.out, order.master, engine=order.engine,
                              cancel=cancel, sessions=self.sessions), ""
        except runner.RunUsageError as exc:
            print(f"mapwright: {exc}", file=sys.stderr, flush=True)
            return runner.EXIT_USAGE, str(exc)
        except Exception as exc:  # never let one run take the session down
            return runner.EXIT_FAILED, runner.spark_failure(exc)

    def cancel_run(self) -> None:
        """Cancel the run in progress or queued (it still writes its `cancelled` manifest); idle, nothing."""
        with self._lock:
            for cancel in self._live:
                cancel.set()

    def read(self, stream: Any) -> None:
        """Hand each stdin line to the serving loop until `stop` or EOF."""
        for line in stream:
            try:
                order = parse_order(line)
            except ValueError as exc:
                print(f"mapwright worker: {exc}", file=sys.stderr, flush=True)
                continue
            if order == "stop":
                break
            if order == "cancel":
                self.cancel_run()
            elif isinstance(order, RunOrder):
                cancel = threading.Event()
                with self._lock:
                    self._live.append(cancel)
                self.orders.put((order, cancel))
        self.cancel_run()
        self.orders.put(None)


def _import_inprocess_engine() -> None:
    """Run the in-process engine once on a tiny generated sample, here, before the first run: every forked
    run then inherits what it imports on first use (pandas, on the first Parquet write, alone is 0.3 s) and
    the caches it fills. A failure is said and ignored: the first run pays for it instead."""
    from engine.model import load_model
    from engine.run.rundir.write import write_data
    from engine.run.semantics.reference import run_reference
    from engine.sampledata.generator import generate
    from resources import SAMPLE_MODEL

    try:
        model = load_model(SAMPLE_MODEL)
        with tempfile.TemporaryDirectory(prefix="mapwright-warm-") as tmp:
            data, out = Path(tmp) / "data", Path(tmp) / "out"
            out.mkdir()
            generate(model, data, seed=7, rows=20, changes=30)
            write_data(run_reference(model, data), model, out)
    except Exception as exc:
        print(f"mapwright worker: warm-up failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


def _touch(batches: Iterator[Any]) -> Iterator[Any]:
    """In a Python worker: import what the pipeline's stages import, and pass the rows on."""
    import engine.spark.converge  # noqa: F401
    import engine.spark.resolve  # noqa: F401

    yield from batches


def watch_parent(parent: int | None) -> None:
    """Exit when the parent dies: PR_SET_PDEATHSIG on Linux, and a thread polling the parent's pid."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    expected = parent if parent is not None else os.getppid()
    if os.getppid() != expected:
        _exit(1)

    def poll() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != expected:
                _exit(1)

    threading.Thread(target=poll, name="mapwright-parent-watch", daemon=True).start()


def _exit(code: int) -> None:
    """Leave now: the JVM follows (its stdin closes); a run's lock is released with the process."""
    sys.stdout.flush()
    sys.stderr.flush()
    runner._kill_children()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.worker", description=__doc__.splitlines()[0])
    parser.add_argument("--master", default="local[*]", help="local[N] or local[*] (the warm session's master)")
    parser.add_argument("--parent", type=int, default=None, help="exit when this process is no longer the parent")
    parser.add_argument("--no-spark", action="store_true", help="start no Spark: serve in-process runs only")
    args = parser.parse_args(argv)
    try:
        if parse_master(args.master).kind != "local":
            raise MasterError(f"a warm session runs on local[N], not {args.master}")
    except MasterError as exc:
        print(f"mapwright worker: {exc}", file=sys.stderr)
        return runner.EXIT_USAGE
    worker = Worker(args.master, spark=not args.no_spark)
    signal.signal(signal.SIGTERM, lambda *_: _exit(0))
    signal.signal(signal.SIGINT, lambda *_: worker.cancel_run())  # as Ctrl-C cancels `mapwright run`
    watch_parent(args.parent)
    server = threading.Thread(target=worker.serve, name="mapwright-serve", daemon=True)
    server.start()
    worker.read(sys.stdin)
    server.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
