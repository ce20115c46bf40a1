"""Spark's class archive: recorded under a temporary name, published only whole, never loud."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.java import require_java
from engine.spark import classarchive


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "spark-classes-0123456789abcdef.jsa"
    monkeypatch.setattr(classarchive, "archive_path", lambda: path)
    return path


def _writes(content: str, code: int = 0) -> tuple[str, ...]:
    """A recording command that writes `content` where the archive is recorded, then exits with `code`."""
    script = (f"import os, sys; open(os.environ[{classarchive.RECORD_TO!r}], 'w').write({content!r}); "
              f"sys.exit({code})")
    return (sys.executable, "-c", script)


def test_a_recording_is_published_under_the_archives_name_only_once_it_ends_well(archive: Path) -> None:
    assert classarchive.build(record=_writes("classes")) == archive
    assert archive.read_text() == "classes"
    assert [p.name for p in archive.parent.iterdir()] == [archive.name]  # no part left beside it
    assert classarchive.build(record=_writes("again")) == archive  # there is one: nothing recorded
    assert archive.read_text() == "classes"


@pytest.mark.parametrize("record", [_writes("half", code=1), _writes(""), (sys.executable, "-c", "pass")],
                         ids=["failed", "empty", "nothing written"])
def test_a_failed_recording_leaves_no_archive(archive: Path, record: tuple[str, ...],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert classarchive.build(record=record) is None
    assert list(archive.parent.iterdir()) == []
    assert "runs start without one" in capsys.readouterr().err


def test_a_recording_removes_other_archives_and_dead_recordings_not_live_ones(archive: Path) -> None:
    folder = archive.parent
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (folder / "spark-classes-fedcba9876543210.jsa").write_text("another java's")
    (folder / f"{archive.name}.{dead.pid}.part").write_text("a killed recording")
    recording = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = folder / f"{archive.name}.{recording.pid}.part"
        live.write_text("a recording under way")
        (folder / "spark-classes.log").write_text("log")
        assert classarchive.build(record=_writes("classes")) == archive
        assert sorted(p.name for p in folder.iterdir()) == sorted([archive.name, live.name, "spark-classes.log"])
    finally:
        recording.kill()
        recording.wait()


def test_the_options_name_an_archive_only_when_there_is_one(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert classarchive.java_options() == ""
    archive.write_text("x")
    assert f"-XX:SharedArchiveFile={archive}" in classarchive.java_options()
    monkeypatch.setenv("MAPWRIGHT_CLASS_ARCHIVE", "0")
    assert classarchive.java_options() == ""


def test_an_unusable_archive_is_skipped_in_silence(archive: Path) -> None:
    """HotSpot writes its archive warnings to stdout, where `mapwright run` writes its progress events: a
    truncated or foreign archive must cost nothing but the time it would have saved."""
    archive.write_bytes(b"\x00" * 100)
    java = require_java()
    done = subprocess.run([java, *classarchive.java_options().split(), "-version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout == ""
    assert "version" in done.stderr


def test_make_run_records_in_the_background_only_when_there_is_no_archive(archive: Path) -> None:
    archive.write_text("x")
    assert classarchive.build_in_background() is False
