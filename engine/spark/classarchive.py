"""A class-data archive for the Spark JVM (AppCDS): a cold session starts with Spark's classes already parsed.

A Spark driver loads about 25,000 classes from about 250 jars before a run's first job, and finding,
parsing and verifying them is a good part of a cold run: the bundled sample's cold `mapwright run` takes
seconds less with an archive (benchmarks/results). The archive is HotSpot's dynamic archive of
the classes a recorded session loaded (`-XX:ArchiveClassesAtExit`), recorded once, by `build()`, from a
real run of the bundled samples, and mapped read-only by every later driver (`java_options()`).

- It lives in the Python environment (`sys.prefix`), beside the jars it was made from, and goes with it.
  Its name carries a digest of what HotSpot checks before it maps one (the java executable and its
  build, the jars on Spark's class path, the heap's pointer mode), so an upgraded Java or pyspark finds
  no archive rather than a stale one, which HotSpot would refuse.
- It is recorded into a temporary name (one recording at a time per environment: a file lock), synced
  to disk and renamed once the recording JVM has exited cleanly, and then sealed with its size. Only an
  archive whose size is its seal's is used: a truncated archive would crash the JVM that maps it. A
  recording that times out or is interrupted stops the JVM it started.
- A session without an archive runs as before. `MAPWRIGHT_CLASS_ARCHIVE=0` turns it off.
- HotSpot's own warnings go to stderr, never stdout (where `mapwright run` writes its progress events),
  and none is written about the archive.

`python -m engine.spark.classarchive` records the archive when there is none (`make` does this).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from engine.java import java_executable, version_text
from engine.spark.memory import driver_memory

QUIET = "-Xlog:disable -Xlog:all=warning,cds*=off:stderr"
"""HotSpot's own messages: warnings to stderr, never stdout (where `mapwright run` writes its progress events),
and none about the archive (an unusable one only costs the time it would have saved)."""

COMPRESSED_OOPS_BELOW = 32 << 30
"""A heap of this size or more turns compressed pointers off, and with them the archive's base: another key."""


def archive_dir() -> Path:
    return Path(sys.prefix) / "share" / "mapwright"


def archive_path() -> Path | None:
    """Where the archive for this Java and this Spark is (whether or not it exists yet); None when either
    cannot be found. The key is what HotSpot checks: the JVM's build, the jars on the class path (path,
    size, time) and the heap's pointer mode."""
    java = java_executable()
    if java is None:
        return None
    jars = _jars_dir()
    if jars is None:
        return None
    digest = hashlib.sha256()
    digest.update(os.path.realpath(java).encode())
    digest.update(version_text(java).encode())
    digest.update(f"heap>=32g:{_heap_bytes() >= COMPRESSED_OOPS_BELOW}\n".encode())
    for jar in sorted(jars.glob("*.jar")):
        stat = jar.stat()
        digest.update(f"{jar}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return archive_dir() / f"spark-classes-{digest.hexdigest()[:16]}.jsa"


def java_options() -> str:
    """The driver JVM's options that map the archive, when there is a whole one (else nothing)."""
    if os.environ.get("MAPWRIGHT_CLASS_ARCHIVE", "1") == "0":
        return ""
    path = archive_path()
    if path is None or not _whole(path) or '"' in str(path):
        return ""
    return f'-XX:SharedArchiveFile="{path}" -Xshare:auto {QUIET}'  # quoted: Spark splits options at spaces


RECORD_TO = "MAPWRIGHT_RECORD_CLASSES"
"""Set by `build` for the recording process: its driver writes the archive there at exit."""


def recording_options() -> str:
    target = os.environ.get(RECORD_TO)
    return f'-XX:ArchiveClassesAtExit="{target}" {QUIET}' if target and '"' not in target else ""


RECORD = (sys.executable, "-m", "engine.spark.classrecord")
"""The recording process: a Spark session on the bundled samples whose JVM writes the archive at exit."""


def build(timeout: float = 600.0, record: tuple[str, ...] = RECORD) -> Path | None:
    """Record the archive if this Java and Spark have none; its path, or None when it cannot be made.
    One recording at a time per environment: a second waits for the first, then finds its archive."""
    path = archive_path()
    if path is None:
        return None
    if _whole(path):
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(path.parent, os.W_OK):
            raise PermissionError(errno.EACCES, "not writable")
        with _locked(path.parent / ".lock"):
            if _whole(path):  # recorded while this one waited
                return path
            for stale in path.parent.glob("spark-classes-*.jsa*"):  # another Java's or Spark's, a dead part
                stale.unlink(missing_ok=True)
            return _record_into(path, timeout, record)
    except OSError as exc:
        return _without(f"{path.parent}: {exc.strerror or exc}")


def _record_into(path: Path, timeout: float, record: tuple[str, ...]) -> Path | None:
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    env = {**os.environ, RECORD_TO: str(part), "MAPWRIGHT_CLASS_ARCHIVE": "0"}
    # its own process group: a timeout or Ctrl-C stops the JVM too, not only the Python that started it
    proc = subprocess.Popen(record, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
        if proc.returncode != 0 or not part.is_file() or part.stat().st_size == 0:
            return _without((err.strip().splitlines() or ["no output"])[-1])
        size = part.stat().st_size
        with part.open("rb") as fh:
            os.fsync(fh.fileno())  # on disk before it has its name: never a short archive under it
        os.replace(part, path)
        _write_durably(_seal(path), str(size))
        return path
    except subprocess.TimeoutExpired:
        return _without("recording timed out")
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        part.unlink(missing_ok=True)


def _whole(path: Path) -> bool:
    """Whether `path` is an archive a recording finished: its seal, written after it, gives its size. A
    truncated archive would crash the JVM that maps it, so one that is not whole is never used."""
    try:
        return int(_seal(path).read_text()) == path.stat().st_size
    except (OSError, ValueError):
        return False


def _seal(path: Path) -> Path:
    return path.with_name(f"{path.name}.size")


def _write_durably(path: Path, text: str) -> None:
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    with part.open("w") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(part, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    import fcntl  # POSIX: the Makefile's platforms (not imported with the module, which sessions import)

    with lock.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _without(reason: str) -> Path | None:
    """Say why there is no archive; None (for `build` to return)."""
    print(f"mapwright: no class archive for Spark ({reason}); runs start without one", file=sys.stderr)
    return None


def _jars_dir() -> Path | None:
    """The jars Spark's launcher puts on the driver's class path: `$SPARK_HOME/jars`, else pyspark's."""
    if os.environ.get("SPARK_HOME"):
        return Path(os.environ["SPARK_HOME"]) / "jars"
    try:
        import pyspark
    except ImportError:
        return None
    return Path(pyspark.__file__).parent / "jars"


def _heap_bytes() -> int:
    """The driver's heap (`memory.driver_memory`), in bytes."""
    text = driver_memory().strip().lower()
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    try:
        return int(text[:-1]) * units[text[-1]] if text[-1:] in units else int(text)
    except ValueError:
        return 0


BACKGROUND = ("nice", "-n", "19", sys.executable, "-m", "engine.spark.classarchive")
"""`build_in_background`'s process: the build, at the lowest CPU priority."""


def build_in_background(command: tuple[str, ...] = BACKGROUND) -> bool:
    """Start `build` in a detached process, when there is an archive to record: `make run` opens the
    designer meanwhile. Whether a recording was started."""
    path = archive_path()
    if path is None or _whole(path):
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.parent / "spark-classes.log", "ab") as log:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    except OSError as exc:  # a read-only environment, or no `nice`: runs start without an archive
        _without(exc.strerror or str(exc))
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
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
