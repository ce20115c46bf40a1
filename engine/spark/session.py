"""Spark sessions for a master URL: `local[N]`, `spark://host:port` or `sc://host:port` (Spark Connect)."""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.java import require_java
from engine.model.io import one_line
from engine.spark import classarchive
from engine.spark.memory import driver_memory
from resources import ROOT as RESOURCES

LOG_CONFIG = RESOURCES / "spark" / "log4j2.properties"


SMALL_INPUT_BYTES = 4 << 20
"""A run's input (changes, snapshots, schedule) up to this size is a small one: planned for few rows
(`pipeline.configure`), and a process started for it alone leaves huge methods to the interpreter."""

C1_INPUT_BYTES = 128 << 20
"""A process started for one run of an input up to this size compiles with the JIT's first tier only
(`jit_options`)."""

CODEGEN_CACHE_ENTRIES = 1000
"""Classes of generated code a JVM keeps for a query that needs the same code again (Spark's default: 100)."""

_LOCAL = re.compile(r"^local(\[(\*|[0-9]{1,9})\])?\Z")
_REMOTE = re.compile(r"^(spark|sc)://([^:/\s]+):([0-9]{1,9})/?\Z")


class MasterError(ValueError):
    """A master URL that is malformed or cannot be reached; the message is one line."""


@dataclass(frozen=True)
class Master:
    url: str
    kind: str  # "local" | "standalone" | "connect"
    host: str | None = None
    port: int | None = None


MAX_LOCAL_THREADS = 4096
"""The most worker threads `local[N]` may ask for (Spark takes N as a Java int, and plans 2N partitions)."""


def parse_master(url: str) -> Master:
    """The master URL `url`, checked before Spark starts (`MasterError`, one line): `local[0]` had reached
    Spark, which failed with a Java error, and a port beyond 65535 the socket library, with a traceback."""
    local = _LOCAL.match(url)
    if local:
        threads = local.group(2)
        if threads not in (None, "*") and not 1 <= int(threads) <= MAX_LOCAL_THREADS:
            raise MasterError(f"master {url!r}: local[N] runs N worker threads, from 1 to {MAX_LOCAL_THREADS} "
                              "(or local[*], one a core)")
        return Master(url, "local")
    match = _REMOTE.match(url)
    if not match:
        raise MasterError(f"unknown master {one_line(repr(url))} (use local[N], local[*], spark://host:port or "
                          "sc://host:port)")
    scheme, host, port = match.group(1), match.group(2), int(match.group(3))
    if not 1 <= port <= 65535:
        raise MasterError(f"master {url!r}: the port must be from 1 to 65535, got {port}")
    return Master(url, "standalone" if scheme == "spark" else "connect", host, port)


def check_reachable(master: Master, timeout: float = 5.0) -> None:
    """Fail fast, with one line, when a cluster's port does not answer."""
    if master.host is None or master.port is None:
        return
    try:
        with socket.create_connection((master.host, master.port), timeout=timeout):
            pass
    except OSError as exc:
        raise MasterError(f"cannot reach the Spark master at {master.url}: {exc.strerror or exc}") from None


GC_OPTIONS = "-XX:+UseParallelGC"
JIT_OPTIONS = f"{GC_OPTIONS} -XX:-DontCompileHugeMethods"
"""Every JVM of a run, driver and executors: the throughput collector (a run is a batch, no pause matters,
and on 2 cores G1's concurrent work competes with the tasks: B2 measurably faster), and the JIT compiling
methods of any size. HotSpot leaves a method over 8,000 bytes of bytecode to its interpreter, and Spark's
whole-stage code for the decoding of a model's records is such a method: interpreted, that stage took
about 40% longer (Spark's own documentation of `spark.sql.codegen.hugeMethodLimit` names the limit)."""
LARGE_RUN_JIT_OPTIONS = f"{JIT_OPTIONS} -XX:InlineSmallCode=1000 -XX:MaxNodeLimit=40000"
"""A JVM for one large run: C2 inlines less (HotSpot's defaults are 2,500 and 80,000). A cold run of B2's
1,000,000 events spent 85 s of CPU compiling while it ran, four fifths of it in C2, on a 2-core machine;
with these, about a seventh less, and the run about 5% faster (the native baseline in the same JVM too);
the decoding's code, run warm, as fast. Higher C2 thresholds took more of the compiling away, but left
methods in C1's profiling code for longer: the warm decoding of 1,000,000 records 35% slower
(benchmarks/results)."""
C1_JIT_OPTIONS = f"{JIT_OPTIONS} -XX:TieredStopAtLevel=1"
SMALL_RUN_JIT_OPTIONS = f"{GC_OPTIONS} -XX:TieredStopAtLevel=1"
"""A JVM for one small run: C1 only, and huge methods left to the interpreter (a small run's expressions
are interpreted, and compiling Spark's own huge methods made the cold sample slower)."""


def jit_options(one_run_bytes: int | None) -> str:
    """The JIT of a JVM started for one run of `one_run_bytes` of input (None: a session that serves
    several runs, or one of unknown size).

    C2's code pays only over a long run. Until then its compiler threads take the cores from the tasks: a
    cold run of B2's 100,000 events spent more CPU compiling (Spark's code, Janino's, and each query's
    generated code) than running tasks, on 2 cores. With C1 only, the compilers take a tenth of that and
    the tasks' code is slower: cold runs up to a few hundred megabytes of input are faster, a run of a
    million events slower, where C2's code repays it (benchmarks/results). A process serving several runs
    keeps both tiers: a warm run is half again as slow with C1 only. A large run's C2 inlines less
    (`LARGE_RUN_JIT_OPTIONS`)."""
    if one_run_bytes is None:
        return JIT_OPTIONS
    if one_run_bytes > C1_INPUT_BYTES:
        return LARGE_RUN_JIT_OPTIONS
    return SMALL_RUN_JIT_OPTIONS if one_run_bytes <= SMALL_INPUT_BYTES else C1_JIT_OPTIONS


def input_bytes(data_dir: Path) -> int:
    """The size of the files a run reads from `data_dir` (changes, snapshots, schedule)."""
    return sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file())


def spark_session(url: str = "local[*]", app_name: str = "mapwright", partitions: int | None = None,
                  one_run_bytes: int | None = None) -> Any:
    """A SparkSession on `url`. Java is checked first for local and standalone masters.

    `one_run_bytes`: the session serves one run of this much input and stops (`mapwright run`); its JVMs
    compile for it (`jit_options`: the bundled sample's cold `mapwright run` faster with C1 only)."""
    master = parse_master(url)
    check_reachable(master)
    warnings.filterwarnings("ignore", message=".*pandas >= 3.0.0.*")
    from pyspark.sql import SparkSession

    if master.kind == "connect":
        builder = SparkSession.builder.remote(url)
    else:
        require_java()
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        jit = jit_options(one_run_bytes)
        builder = (SparkSession.builder.master(url)
                   .config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
                   .config("spark.python.daemon.module", "engine.spark.daemon")
                   .config("spark.driver.extraJavaOptions", " ".join(filter(None, (
                           f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}",
                           jit,
                           classarchive.java_options(), classarchive.recording_options()))))
                   # the driver is the executor too on local[N]: room for a record of up to 16 MiB (and the
                   # head of a larger one, a reject) in each task, whatever the size of the run
                   .config("spark.driver.memory", driver_memory())
                   .config("spark.executor.extraJavaOptions", jit)
                   # a run compiles about 170 classes of generated code, and Spark keeps 100: a warm
                   # session's next run compiled them all again (B2 at 100,000 events, in one JVM: 163
                   # compiles -> 0 in each run after the first, which is 10-15% faster)
                   .config("spark.sql.codegen.cache.maxEntries", str(CODEGEN_CACHE_ENTRIES)))
        builder = builder.config("spark.sql.shuffle.partitions", str(partitions or _default_partitions(url)))
    session = (builder.appName(app_name)
               .config("spark.sql.session.timeZone", "UTC")
               # the model's SQL runs with ANSI semantics (errors, not NULLs, on division by zero and bad
               # casts), which the reference evaluator follows (engine.sql.evaluate); set, not assumed
               .config("spark.sql.ansi.enabled", "true")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .getOrCreate())
    if master.kind != "connect":
        session.sparkContext.setLogLevel("ERROR")
    _quiet_query_context()
    return session


def _quiet_query_context() -> None:
    """PySpark logs every SQL error it raises with a query context, Java stack and all, as a JSON line on
    standard error, before the caller has decided anything: also a row's ANSI failure that the run then
    takes to the reference, and a failure the run reports in one line. The run says what failed; these
    loggers say nothing."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL + 1)


def _default_partitions(url: str) -> int:
    match = _LOCAL.match(url)
    if match and match.group(2) and match.group(2) != "*":
        return max(2, int(match.group(2)) * 2)
    return max(2, (os.cpu_count() or 2) * 2)
