"""`verify` killed with SIGKILL leaves no PostgreSQL server running (issue 35, round two): each server is
verify's child and dies with it (PR_SET_PDEATHSIG, Linux), and the next verify removes what is left, stopping
a server only if its process is still that server (where the platform lets one outlive verify)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.deploy import pgcluster
from engine.deploy.pgcluster import OWNER_FILE, PREFIX, running_servers, stop_orphans

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the servers die with verify on Linux only")

MODEL = {
    "format": "mapwright/1",
    "servers": [{"id": "a", "dbms": "postgresql"}],
    "tables": [{"server": "a", "name": "T", "primary_key": ["ID"],
                "columns": [{"name": "ID", "type": "INTEGER", "nullable": False}]}],
}
"""One PostgreSQL server: one to start before verify is killed."""


@pytest.fixture
def root() -> Iterator[Path]:
    """A temporary folder the servers' user can reach (pytest's own are the test user's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="mapwright-orphans-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _postmasters(root: Path, count: int, alive: Callable[[], bool]) -> list[int]:
    """The postmaster pids the owner files under `root` name, once `count` of them are up."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and alive():
        docs = []
        for owner in root.glob(f"{PREFIX}*/{OWNER_FILE}"):
            with contextlib.suppress(OSError, ValueError):
                docs.append(json.loads(owner.read_text()))
        pids = [doc["postmaster"] for doc in docs if "postmaster" in doc]
        if len(pids) == count:
            return pids
        time.sleep(0.05)
    pytest.fail(f"{count} servers did not start under {root}")


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie, waiting for a parent to reap it, has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _gone(pids: list[int], seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not any(_running(p) for p in pids)


def test_a_killed_verify_takes_its_servers_with_it_and_the_next_removes_their_folders(
        tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model.json").write_text(json.dumps(MODEL))
    (tmp_path / "data" / "changes").mkdir(parents=True)
    (tmp_path / "data" / "changes" / "c.jsonl").write_text(json.dumps(
        {"site": "a", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I",
         "after": {"ID": 1}}) + "\n")
    verify = subprocess.Popen([MAPWRIGHT, "verify", "model.json", "--data", "data"], cwd=tmp_path,
                              env={**os.environ, "TMPDIR": str(root)}, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pids = _postmasters(root, 1, lambda: verify.poll() is None)
    finally:
        verify.send_signal(signal.SIGKILL)
        verify.wait()
    assert _gone(pids), "a server outlived the verify that started it"
    assert len(list(root.glob(f"{PREFIX}*"))) == 1  # its folder is left: nothing ran to remove it
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    with running_servers([]):  # the next verify, before it starts its own
        pass
    assert list(root.glob(f"{PREFIX}*")) == []


CHILD = """
import sys, tempfile, time
tempfile.tempdir = sys.argv[1]
from engine.deploy import pgcluster
pgcluster.DIE_WITH_PARENT = False  # as where the platform cannot tie a server to its parent
with pgcluster.running_servers(["a"]) as servers:
    print(servers["a"].process.pid, flush=True)
    time.sleep(600)
"""


def _owned_folder(root: Path, name: str, doc: dict[str, Any]) -> Path:
    base = root / f"{PREFIX}{name}"
    base.mkdir()
    (base / OWNER_FILE).write_text(json.dumps(doc))
    return base


def test_the_next_verify_stops_a_surviving_server_and_signals_nothing_else(root: Path) -> None:
    starter = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE, text=True)
    assert starter.stdout is not None
    server = int(starter.stdout.readline())
    starter.send_signal(signal.SIGKILL)
    starter.wait()
    time.sleep(0.5)
    assert _running(server)  # the orphan
    program = str((pgcluster._bindir() / "postgres").resolve())
    bystander = subprocess.Popen(["sleep", "60"])
    try:  # a folder whose process is no longer that server (its pid reused): removed, the process untouched
        reused = _owned_folder(root, "reused", {"postmaster": bystander.pid, "postgres": program})
        held = _owned_folder(root, "held", {"postmaster": bystander.pid, "postgres": program})
        lock = os.open(held / OWNER_FILE, os.O_RDONLY)
        fcntl.flock(lock, fcntl.LOCK_EX)  # a verify that still runs: left alone
        try:
            removed = stop_orphans(root)
        finally:
            os.close(lock)
        assert _gone([server]), "the orphaned server was not stopped"
        assert reused in removed and held not in removed and held.exists() and len(removed) == 2
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
