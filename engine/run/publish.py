"""Run directories are precious (CONTRACT section 6): which folders a run may write, one run at a time,
and a swap that a kill at any instant cannot lose.

The protocol, for `--out RUNDIR` (say `/p/run`):

1. *Check* (`check_out_dir`), before anything else: RUNDIR must be absent, an empty folder or a Mapwright
   run directory (`is_run_directory`: its manifest.json names the engine `mapwright`). So must
   `RUNDIR.attempt`, where a failed run over a succeeded one writes. Anything else is refused untouched.
2. *Lock* (`claim`): `fcntl.flock` on the sibling `/p/.run.mapwright-lock`, which holds the owner's pid;
   the kernel releases it when the process dies, however it dies. A second run gets `RunDirBusy`.
3. *Recover*: leftovers of a killed run on this RUNDIR are removed, and only those (the exact sibling
   names below, and the `.run.XXXXXXXX.partial|old` folders of versions before this protocol). If RUNDIR
   is missing while a saved old copy exists (a kill between the two renames of the fallback), the old
   copy is put back first.
4. *Stage and swap* (`publish`): the run is written into `/p/.run.mapwright-new`, which is then exchanged
   with RUNDIR in one step (`exchange`: Linux renameat2, macOS renamex_np); the staged name now holds the old run,
   which is removed. Where exchange is not supported: RUNDIR is renamed to `/p/.run.mapwright-old`, the
   staged folder to RUNDIR, and step 3 of the next run restores the old copy if a kill fell between.
5. *Unlock*: the lock file is removed while still locked, then closed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ATTEMPT_SUFFIX = ".attempt"
MANIFEST = "manifest.json"
_MAX_MANIFEST_BYTES = 4 * 1024 * 1024
_LEGACY_LEFTOVER = r"\.{name}\.[a-z0-9_]{{8}}\.(partial|old)"  # mkdtemp names of the earlier protocol

_held: set[Path] = set()  # RUNDIRs whose lock this process holds (a claim inside a claim is a no-op)


class RunDirError(OSError):
    """RUNDIR cannot be written (it is a file, or a folder that is not a run directory)."""


class RunDirBusy(RunDirError):
    """Another run holds RUNDIR's lock."""


class ExchangeUnsupported(OSError):
    """The platform or file system cannot exchange two directories atomically."""


def is_run_directory(path: Path) -> bool:
    """True when `path` is a folder whose manifest.json is a JSON object naming the engine `mapwright`."""
    return _manifest(path) is not None


def run_status(path: Path) -> str | None:
    """The status a run directory's manifest gives (`succeeded`, `failed`...), None if not a run directory."""
    doc = _manifest(path)
    status = doc.get("status") if doc is not None else None
    return status if isinstance(status, str) else None


def _manifest(path: Path) -> dict[str, object] | None:
    if path.is_symlink() or not path.is_dir():
        return None
    try:
        file = path / MANIFEST
        if not file.is_file() or file.stat().st_size > _MAX_MANIFEST_BYTES:
            return None
        doc = json.loads(file.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    engine = doc.get("engine")
    if not isinstance(engine, str) or engine.split(" ")[0] != "mapwright":
        return None
    return doc


def out_dir_problem(out: Path) -> str | None:
    """Why a run may not write `out` or, should it fail, `out.attempt` beside it (one line); None if it may."""
    return _problem(out) or _problem(attempt_dir(out))


def _problem(out: Path) -> str | None:
    if out.is_symlink():
        return f"{out}: is a symbolic link; give the folder itself as the run directory"
    if not out.exists():
        return None
    if not out.is_dir():
        return f"{out}: is a file, not a folder; a run directory must be new, empty or an earlier run"
    try:
        empty = not any(out.iterdir())
    except OSError as exc:
        return f"{out}: cannot be read ({exc.strerror})"
    if empty or is_run_directory(out):
        return None
    why = "its manifest.json does not name the engine mapwright" if (out / MANIFEST).exists() else "no manifest.json"
    return f"{out}: is not empty and is not a Mapwright run directory ({why}); choose a new or empty folder"


def check_out_dir(out: Path) -> None:
    """Raise `RunDirError` unless a run may write `out` and, should it fail, `out.attempt` beside it."""
    problem = out_dir_problem(out)
    if problem:
        raise RunDirError(problem)


def attempt_dir(out: Path) -> Path:
    """Where a failed or cancelled run over a succeeded one writes its manifest."""
    return out.with_name(out.name + ATTEMPT_SUFFIX)


def _sibling(out: Path, kind: str) -> Path:
    return out.with_name(f".{out.name}.mapwright-{kind}")


def lock_file(out: Path) -> Path:
    return _sibling(out, "lock")


@contextlib.contextmanager
def claim(out: Path) -> Iterator[Path]:
    """Check `out`, lock it for this process and clean what a killed run left; yields the absolute path.

    Raises `RunDirError` (not writable here) or `RunDirBusy` (another run holds it), before touching it.
    """
    out = Path(os.path.abspath(out))
    check_out_dir(out)
    if out in _held:
        yield out
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = _lock(out)
    except RunDirError:
        raise
    except OSError as exc:
        raise RunDirError(f"{out}: cannot write here ({_why(exc)})") from None
    _held.add(out)
    try:
        try:
            for target in (out, attempt_dir(out)):
                recover(target)
        except OSError as exc:
            raise RunDirError(f"{out}: cannot clean up what an earlier killed run left ({_why(exc)})") from None
        yield out
    finally:
        _held.discard(out)
        with contextlib.suppress(OSError):
            os.unlink(lock_file(out))
        os.close(fd)


def _why(exc: OSError) -> str:
    return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc.strerror or exc)


def _lock(out: Path) -> int:
    path = lock_file(out)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _owner(fd)
            os.close(fd)
            raise RunDirBusy(f"{out}: another run is writing it (process {pid}); wait for it to end or cancel "
                             "it") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:  # else the previous owner removed the file between our open and our lock: try again
            with contextlib.suppress(OSError):  # the pid is for the message of a second run; a full disk
                os.ftruncate(fd, 0)             # must not stop this one (it will say so when it writes)
                os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


def _owner(fd: int) -> str:
    """The pid in a lock file (its owner writes it just after locking: wait a moment for it)."""
    for _ in range(20):
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
        if text.isdigit():
            return text
        time.sleep(0.025)
    return "unknown"


def recover(target: Path) -> None:
    """Put back an old copy a kill left out of place, then remove every leftover of a killed run on
    `target`. Call with the lock held."""
    old, new = _sibling(target, "old"), _sibling(target, "new")
    legacy = _legacy_leftovers(target)
    if not os.path.lexists(target):
        if old.is_dir():
            os.rename(old, target)
        else:
            for folder in legacy:
                if folder.name.endswith(".old") and (folder / target.name).is_dir():
                    os.rename(folder / target.name, target)
                    break
    for leftover in (old, new, *legacy):
        _remove(leftover)


def _legacy_leftovers(target: Path) -> list[Path]:
    pattern = re.compile(_LEGACY_LEFTOVER.format(name=re.escape(target.name)))
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return [target.parent / n for n in sorted(names) if pattern.fullmatch(n) and (target.parent / n).is_dir()]


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def publish(target: Path, fill: Callable[[Path], None]) -> Path:
    """Fill a staged sibling of `target`, then swap it into place; the old content is removed. Call with
    the lock held. If `fill` raises, the staged folder is removed and `target` is left as it was."""
    staged = _sibling(target, "new")
    _remove(staged)
    staged.mkdir()
    try:
        fill(staged)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    problem = _problem(target)  # it may have changed while the run ran: never swap out what is not ours
    if problem:
        shutil.rmtree(staged, ignore_errors=True)
        raise RunDirError(problem)
    if not os.path.lexists(target):
        os.rename(staged, target)
        _sync_dir(target.parent)
        return target
    try:
        exchange(staged, target)
        discarded = staged
    except ExchangeUnsupported:
        discarded = _sibling(target, "old")
        os.rename(target, discarded)
        os.rename(staged, target)
    _sync_dir(target.parent)
    shutil.rmtree(discarded, ignore_errors=True)
    return target


def discard(target: Path) -> None:
    """Remove `target` in a way a kill cannot leave half removed under its own name. Lock held."""
    if os.path.lexists(target):
        doomed = _sibling(target, "new")
        _remove(doomed)
        os.rename(target, doomed)
        shutil.rmtree(doomed, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # Linux renameat2
_RENAME_SWAP = 2  # macOS renamex_np


def exchange(a: Path, b: Path) -> None:
    """Swap two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`, macOS `renamex_np(RENAME_SWAP)`);
    `ExchangeUnsupported` where neither exists or the file system refuses."""
    libc = _libc()
    linux = getattr(libc, "renameat2", None) if libc is not None else None
    macos = getattr(libc, "renamex_np", None) if libc is not None else None
    if linux is not None:
        linux.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        linux.restype = ctypes.c_int
        failed = linux(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0
    elif macos is not None:
        macos.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        macos.restype = ctypes.c_int
        failed = macos(os.fsencode(a), os.fsencode(b), _RENAME_SWAP) != 0
    else:
        raise ExchangeUnsupported(errno.ENOSYS, "no atomic exchange of two paths here")
    if failed:
        code = ctypes.get_errno()
        if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
            raise ExchangeUnsupported(code, os.strerror(code))
        raise OSError(code, os.strerror(code), str(a), None, str(b))


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _sync_dir(folder: Path) -> None:
    """Make a rename durable (best effort: some file systems refuse fsync on a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
