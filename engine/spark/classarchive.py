"""A class-data archive for the Spark JVM (AppCDS): a cold session starts with Spark's classes already parsed.

A Spark driver loads about 25,000 classes from about 250 jars before a run's first job, and finding,
parsing and verifying them is a good part of a cold run: the bundled sample's cold `mapwright run` takes
about 3.5 s less with an archive (26 -> 22.5 s on 2 cores). The archive is HotSpot's dynamic archive of
the classes a recorded session loaded (`-XX:ArchiveClassesAtExit`), recorded once, by `build()`, from a
real run of the bundled samples, and mapped read-only by every later driver (`java_options()`).

- It lives in the Python environment (`sys.prefix`), beside the jars it was made from, and goes with it.
  Its name carries a digest of the java executable, its version and the jars on Spark's class path, so
  an upgraded Java or pyspark finds no archive rather than a stale one (and HotSpot checks the class path
  again itself, falling back to loading classes from the jars).
- It is recorded into a temporary name and renamed once the recording JVM has exited cleanly: a killed,
  failed or concurrent recording never leaves a half-written archive under the final name.
- A session without an archive runs as before. `MAPWRIGHT_CLASS_ARCHIVE=0` turns it off.
- HotSpot's own messages about the archive (it writes them to stdout, where `mapwright run` writes its
  progress events) are turned off.

`python -m engine.spark.classarchive` records the archive when there is none (`make` does this).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from engine.java import java_executable

QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
"""HotSpot's archive messages off: they would go to stdout, among a run's progress events."""


def archive_dir() -> Path:
    return Path(sys.prefix) / "share" / "mapwright"


def archive_path() -> Path | None:
    """Where the archive for this Java and this Spark is (whether or not it exists yet); None when either
    cannot be found."""
    java = java_executable()
    if java is None:
        return None
    try:
        import pyspark
    except ImportError:
        return None
    jars = Path(pyspark.__file__).parent / "jars"
    digest = hashlib.sha256()
    digest.update(os.path.realpath(java).encode())
    digest.update(_java_version(java).encode())
    for jar in sorted(jars.glob("*.jar")):
        stat = jar.stat()
        digest.update(f"{jar}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return archive_dir() / f"spark-classes-{digest.hexdigest()[:16]}.jsa"


def java_options() -> str:
    """The driver JVM's options that map the archive, when there is one (else nothing)."""
    if os.environ.get("MAPWRIGHT_CLASS_ARCHIVE", "1") == "0":
        return ""
    path = archive_path()
    if path is None or not path.is_file():
        return ""
    return f"-XX:SharedArchiveFile={path} -Xshare:auto {QUIET}"


RECORD_TO = "MAPWRIGHT_RECORD_CLASSES"
"""Set by `build` for the recording process: its driver writes the archive there at exit."""


def recording_options() -> str:
    target = os.environ.get(RECORD_TO)
    return f"-XX:ArchiveClassesAtExit={target} {QUIET}" if target else ""


RECORD = (sys.executable, "-m", "engine.spark.classarchive", "--record")
"""The recording process: a Spark session on the bundled samples whose JVM writes the archive at exit."""


def build(timeout: float = 600.0, record: tuple[str, ...] = RECORD) -> Path | None:
    """Record the archive if this Java and Spark have none; its path, or None when it cannot be made."""
    path = archive_path()
    if path is None:
        return None
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob("spark-classes-*.jsa*"):  # another Java's or Spark's, or a dead recording
        if not stale.name.endswith(".part") or not _alive(stale):
            stale.unlink(missing_ok=True)
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    env = {**os.environ, RECORD_TO: str(part), "MAPWRIGHT_CLASS_ARCHIVE": "0"}
    try:
        done = subprocess.run(record, env=env, timeout=timeout, capture_output=True, text=True)
        if done.returncode != 0 or not part.is_file() or part.stat().st_size == 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"mapwright: no class archive for Spark ({tail}); runs start without one", file=sys.stderr)
            return None
        os.replace(part, path)
        return path
    except subprocess.TimeoutExpired:
        print("mapwright: recording Spark's class archive timed out; runs start without one", file=sys.stderr)
        return None
    finally:
        part.unlink(missing_ok=True)


def _record() -> int:
    """In the recording process: run the bundled samples in a session whose JVM writes the archive as it
    exits, and wait for that exit (the archive is complete only then)."""
    from pyspark import SparkContext

    from engine.model.io import load_model
    from engine.spark.pipeline import run_spark
    from engine.spark.session import spark_session
    from resources import ROOT

    samples = ROOT / "samples"
    model = load_model(samples / "orders.json")
    spark = spark_session("local[2]")
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("orders-data", "orders-debezium"):
            if (samples / name).is_dir():
                out = Path(scratch) / name
                out.mkdir()
                run_spark(spark, model, samples / name, out)
    gateway = SparkContext._gateway
    spark.stop()
    proc = getattr(gateway, "proc", None)
    if gateway is None or proc is None:
        return 1
    gateway.shutdown()
    proc.stdin.close()  # the JVM exits when its stdin closes, writing the archive on its way out
    return int(proc.wait(timeout=300))


def _alive(part: Path) -> bool:
    """Whether the process that is recording into `part` (its pid is in the name) is still running."""
    try:
        os.kill(int(part.name.rsplit(".", 2)[-2]), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _java_version(java: str) -> str:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stderr + out.stdout


def build_in_background() -> bool:
    """Start `build` in a detached process at the lowest CPU priority, when there is an archive to record:
    `make run` opens the designer meanwhile. Whether a recording was started."""
    path = archive_path()
    if path is None or path.is_file():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / "spark-classes.log", "ab") as log:
        subprocess.Popen(["nice", "-n", "19", sys.executable, "-m", "engine.spark.classarchive"],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--record"]:
        return _record()
    if args == ["--background"]:
        if build_in_background():
            print("Recording Spark's class archive in the background (about a minute, once): "
                  "later Spark sessions start sooner.")
        return 0
    path = build()
    if path is not None:
        print(f"Spark class archive: {path} ({path.stat().st_size >> 20} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
