"""A real PostgreSQL server for tests: a throwaway cluster on 127.0.0.1, from Debian's `postgresql` package.

`make test` installs the package when it is missing and it can (root with apt). When no server can be
started, the fixture fails with the reason: a test that needs PostgreSQL never skips quietly.

PostgreSQL refuses to run as root, so as root the cluster is made and run as the `postgres` user (created
by the package) in a folder it owns.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BIN_GLOBS = ("/usr/lib/postgresql/*/bin",)


class PgUnavailable(RuntimeError):
    """No PostgreSQL server could be started; the message says why."""


def find_bindir() -> Path:
    """The newest Debian PostgreSQL bin folder that has `initdb` and `pg_ctl`, else `pg_config --bindir`."""
    found = sorted((p for g in BIN_GLOBS for p in Path("/").glob(g.lstrip("/")) if (p / "initdb").is_file()),
                   key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    if found:
        return found[-1]
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if out and (Path(out) / "initdb").is_file():
            return Path(out)
    raise PgUnavailable("no PostgreSQL server binaries (initdb, pg_ctl): install Debian's `postgresql` package "
                        "(make test does so when run as root with apt)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running cluster: connect to `url(database)` as superuser `user`, no password (trust on loopback)."""

    bindir: Path
    datadir: Path
    port: int
    user: str
    run_as: str | None

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://{self.user}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL with psql; returns its output, raises with psql's message on error."""
        cmd = [str(self.bindir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
               "-p", str(self.port), "-U", self.user, "-d", database, "-c", sql]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"psql failed: {out.stderr.strip()}")
        return out.stdout

    def create_database(self, name: str) -> str:
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        _run(self, [str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "-w", "stop"],
             check=False)


def _run(server_or_user: PgServer | str | None, cmd: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    user = server_or_user.run_as if isinstance(server_or_user, PgServer) else server_or_user
    if user:
        cmd = ["runuser", "-u", user, "--", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if check and out.returncode != 0:
        raise PgUnavailable(f"{' '.join(cmd)} failed: {(out.stderr or out.stdout).strip()[-800:]}")
    return out


@contextlib.contextmanager
def running_server() -> Iterator[PgServer]:
    """Start a fresh cluster in a temporary folder, yield it, stop it and remove the folder."""
    bindir = find_bindir()
    run_as = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise PgUnavailable("running as root and there is no `postgres` user to run the server as") from None
        run_as = "postgres"
    base = Path(tempfile.mkdtemp(prefix="mapwright-pg-"))
    datadir = base / "data"
    try:
        if run_as:
            shutil.chown(base, user=run_as)
        user = "mapwright"
        _run(run_as, [str(bindir / "initdb"), "-D", str(datadir), "-U", user, "--auth=trust", "-E", "UTF8",
                      "--locale=C", "--no-sync"])
        port = _free_port()
        server = PgServer(bindir, datadir, port, user, run_as)
        opts = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={base} -c fsync=off"
        _run(run_as, [str(bindir / "pg_ctl"), "-D", str(datadir), "-o", opts, "-l", str(base / "server.log"),
                      "-w", "-t", "60", "start"])
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    server.psql("SELECT 1")
                    break
                except RuntimeError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)
