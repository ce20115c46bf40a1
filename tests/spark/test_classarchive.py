"""Spark's class archive: recorded under a temporary name, published only whole, used only whole, never loud."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.java import require_java
from engine.spark import classarchive


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "spark-classes-0123456789abcdef.jsa"
    monkeypatch.setattr(classarchive, "archive_path", lambda: path)
    return path


def _writes(content: str, code: int = 0, before: str = "") -> tuple[str, ...]:
    """A recording command that runs `before`, writes `content` where the archive is recorded, then exits
    with `code`."""
    script = (f"import os, sys, time, subprocess; {before or 'pass'}; "
              f"open(os.environ[{classarchive.RECORD_TO!r}], 'w').write({content!r}); sys.exit({code})")
    return (sys.executable, "-c", script)


def _sealed(path: Path, content: str) -> None:
    path.write_text(content)
    path.with_name(f"{path.name}.size").write_text(str(len(content)))


def test_a_recording_is_published_under_the_archives_name_only_once_it_ends_well(archive: Path) -> None:
    assert classarchive.build(record=_writes("classes")) == archive
    assert archive.read_text() == "classes"
    assert archive.with_name(f"{archive.name}.size").read_text() == "7"  # the seal: the size it was recorded
    assert sorted(p.name for p in archive.parent.iterdir()) == [".lock", archive.name, f"{archive.name}.size"]
    assert classarchive.build(record=_writes("again")) == archive  # there is one: nothing recorded
    assert archive.read_text() == "classes"


@pytest.mark.parametrize("record", [_writes("half", code=1), _writes(""), (sys.executable, "-c", "pass")],
                         ids=["failed", "empty", "nothing written"])
def test_a_failed_recording_leaves_no_archive(archive: Path, record: tuple[str, ...],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert classarchive.build(record=record) is None
    assert [p.name for p in archive.parent.iterdir()] == [".lock"]
    assert "runs start without one" in capsys.readouterr().err


def test_an_archive_is_used_only_whole(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A truncated archive crashes the JVM that maps it (SIGBUS): one whose size is not the size sealed after
    its recording (a crash between the rename and the seal, a copy cut short) is never named to Java."""
    assert classarchive.java_options() == ""
    archive.write_text("classes")
    assert classarchive.java_options() == ""  # no seal
    _sealed(archive, "classes")
    assert f'-XX:SharedArchiveFile="{archive}"' in classarchive.java_options()
    archive.write_text("class")  # cut short
    assert classarchive.java_options() == ""
    _sealed(archive, "classes")
    monkeypatch.setenv("MAPWRIGHT_CLASS_ARCHIVE", "0")
    assert classarchive.java_options() == ""


def test_a_recording_replaces_what_was_left_before_it(archive: Path) -> None:
    folder = archive.parent
    archive.write_text("cut short, never sealed")
    (folder / "spark-classes-fedcba9876543210.jsa").write_text("another java's")
    (folder / "spark-classes-fedcba9876543210.jsa.size").write_text("14")
    (folder / f"{archive.name}.12345.part").write_text("a killed recording")
    (folder / "spark-classes.log").write_text("log")
    assert classarchive.build(record=_writes("classes")) == archive
    assert archive.read_text() == "classes"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [".lock", archive.name, f"{archive.name}.size", "spark-classes.log"])


def test_two_builds_at_once_record_once(archive: Path, tmp_path: Path) -> None:
    """`make run`'s background recording and `make test`'s: the second waits for the first and uses its
    archive."""
    counter = tmp_path / "recordings"
    record = _writes("classes", before=f"time.sleep(0.5); open({str(counter)!r}, 'a').write('x')")
    results: list[Path | None] = []
    builds = [threading.Thread(target=lambda: results.append(classarchive.build(record=record))) for _ in range(2)]
    for build in builds:
        build.start()
    for build in builds:
        build.join(30)
    assert results == [archive, archive]
    assert counter.read_text() == "x"


def test_a_recording_that_times_out_is_stopped_with_what_it_started(archive: Path, tmp_path: Path) -> None:
    """The recorder's JVM is its child: a timeout (or Ctrl-C) stops both, and leaves no part behind."""
    pid_file = tmp_path / "child.pid"
    before = (f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
              f"open({str(pid_file)!r}, 'w').write(str(child.pid)); time.sleep(60)")
    assert classarchive.build(timeout=3, record=_writes("late", before=before)) is None
    child = int(pid_file.read_text())
    for _ in range(50):
        if not Path(f"/proc/{child}").exists() or "Z" in _state(child):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the recorder's child {child} still runs")
    assert not [p.name for p in archive.parent.iterdir() if p.name.startswith("spark-classes")]


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1]
    except (OSError, IndexError):
        return "Z"


def test_an_unusable_archive_is_skipped_in_silence(archive: Path) -> None:
    """HotSpot would write its archive warnings to stdout, where `mapwright run` writes its progress events:
    a foreign archive must cost nothing but the time it would have saved."""
    _sealed(archive, "\x00" * 100)
    java = require_java()
    options = classarchive.java_options().replace('"', "").split()
    done = subprocess.run([java, *options, "-version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout == ""
    assert "version" in done.stderr and "archive" not in done.stderr


def test_make_run_records_in_the_background_only_when_there_is_no_archive(archive: Path, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    command = (sys.executable, "-c", f"open({str(marker)!r}, 'w').write(str(__import__('os').getsid(0)))")
    assert classarchive.build_in_background(command) is True
    for _ in range(100):
        if marker.exists() and marker.read_text():
            break
        time.sleep(0.05)
    assert int(marker.read_text()) != os.getsid(0)  # detached: its own session, not the caller's
    _sealed(archive, "classes")
    assert classarchive.build_in_background(command) is False


def test_an_environment_it_cannot_write_to_gets_no_archive_and_a_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(classarchive, "archive_path", lambda: blocked / "spark-classes-0123456789abcdef.jsa")
    assert classarchive.build(record=_writes("classes")) is None
    assert classarchive.build_in_background() is False
    err = capsys.readouterr().err
    assert err.count("no class archive for Spark") == 2 and "Traceback" not in err


def test_the_key_follows_what_hotspot_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Another heap pointer mode or another Spark home is another archive (HotSpot would reject this one)."""
    first = classarchive.archive_path()
    assert first is not None
    monkeypatch.setenv("MAPWRIGHT_DRIVER_MEMORY", "3g")
    assert classarchive.archive_path() == first  # still compressed pointers
    monkeypatch.setenv("MAPWRIGHT_DRIVER_MEMORY", "40g")
    assert classarchive.archive_path() != first
    monkeypatch.delenv("MAPWRIGHT_DRIVER_MEMORY")
    (tmp_path / "jars").mkdir()
    (tmp_path / "jars" / "spark-core.jar").write_bytes(b"jar")
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert classarchive.archive_path() != first
