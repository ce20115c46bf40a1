"""Run directories are precious (docs/contract.md §6): which folders a run may write, one run at a time,
and a swap that a kill at any instant cannot lose.

The protocol, for `--out RUNDIR` (say `/p/run`):

1. *Check* (`check_out_dir`), before anything else: RUNDIR must be absent, an empty folder or a Mapwright
   run directory (`is_run_directory`: its manifest.json names the engine `mapwright`) holding only what a
   run writes (`stranger`: a NOTES.md added to it would be deleted with the old run). So must
   `RUNDIR.attempt`, where a failed run over a succeeded one writes. Anything else is refused untouched.
2. *Lock* (`claim`): `fcntl.flock` on the sibling `/p/.run.mapwright-lock`, which holds the owner's pid;
   the kernel releases it when the process dies, however it dies. A second run gets `RunDirBusy`. The lock
   file is opened without following a link and must be a regular file of this user (`_lock_problem`):
   another user's link there would have the run write its pid into whatever it points to. Nothing of the
   protocol writes through a link: a link under a name the run works under is in its way, never followed.
   The lock file is also the run's record of what it makes beside RUNDIR: before it makes
   `/p/.run.mapwright-new` or `-old` (or those of `run.attempt`) it adds the name to the file, one JSON
   string a line (`_reserve`). A clean end removes the file; a killed run leaves it, with its record.
3. *Recover*: leftovers of a killed run on this RUNDIR are removed, and only those: the folders its lock
   file records, and the `.run.XXXXXXXX.partial|old` folders of versions before this protocol when they
   hold exactly what that protocol left (`_legacy_leftover`). A folder that merely has such a name is a
   user's: it is never removed nor moved; one that takes a name the run needs refuses the run
   (`out_dir_problem`), a verdict the lock gives, never a guess: while another run holds the lock, the names
   are its own and this run is told that run is busy. If RUNDIR is missing while a saved old copy of ours
   exists (a kill between the two renames of the fallback), the old copy is put back first.
4. *Stage and swap* (`publish`): the run is written into `/p/.run.mapwright-new`, which is then exchanged
   with RUNDIR in one step (`exchange`: Linux renameat2, macOS renamex_np); the staged name now holds the old run,
   which is removed. Where exchange is not supported: RUNDIR is renamed to `/p/.run.mapwright-old`, the
   staged folder to RUNDIR, and step 3 of the next run restores the old copy if a kill fell between.
5. *Unlock*: the lock file is removed while still locked, then closed; it stays (unlocked) if a folder it
   records could not be removed, so that the next run can still prove that folder its own.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.run.rundir.layout import (
    folder_problem,
    is_run_directory,
    stranger,
    stranger_problem,
)
from engine.run.rundir.swap import ExchangeUnsupported, exchange, sync_dir

ATTEMPT_SUFFIX = ".attempt"
_MAX_RECORD_BYTES = 64 * 1024
_LEGACY_LEFTOVER = r"\.{name}\.[a-z0-9_]{{8}}\.(partial|old)"  # mkdtemp names of the earlier protocol
_LEGACY_MODE = 0o700  # what mkdtemp gives the folders it makes
_BUSY_WAIT_S = 0.25  # how long a lock held for a moment (another run's check, `_in_the_way_now`) is waited for


class _Record:
    """The lock file of a RUNDIR this process holds, and the sibling names it records: the folders a run
    made (or was about to make) beside RUNDIR, which are the only ones a later run may take for leftovers.
    (A plain class: tests load this file as a module of its own, outside `sys.modules`.)"""

    def __init__(self, fd: int, lock: Path, names: set[str]) -> None:
        self.fd, self.lock, self.names = fd, lock, names


_held: dict[Path, _Record] = {}  # RUNDIRs whose lock this process holds (a claim inside a claim is a no-op)


class RunDirError(OSError):
    """RUNDIR cannot be written (it is a file, or a folder that is not a run directory)."""


class RunDirBusy(RunDirError):
    """Another run holds RUNDIR's lock."""


def out_dir_problem(out: Path) -> str | None:
    """Why a run may not write `out` or, should it fail, `out.attempt` beside it (one line); None if it may.

    A folder that holds one of the names the run works under beside them, and that no run on `out` recorded
    in its lock file, is a user's: the run is refused rather than remove it or write into it. While another
    run holds the lock, such a folder is that run's: no problem here, and the lock step says it is busy."""
    return (folder_problem(out) or folder_problem(attempt_dir(out)) or _lock_problem(out)
            or _in_the_way_now(out))


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


def _working_names(out: Path) -> list[Path]:
    """The folders a run on `out` makes beside it (staged run, saved old copy; for `out` and its attempt)."""
    return [_sibling(target, kind) for target in (out, attempt_dir(out)) for kind in ("new", "old")]


def _in_the_way_now(out: Path) -> str | None:
    """`_in_the_way` before this process locks `out`, as the lock says it: while a run holds the lock, the
    working names are its own (None: the lock step says that run is busy). Otherwise the record is read
    under a shared lock, which no run can take from us meanwhile, or, with no lock file, with none made
    while we looked (a run makes its lock file before any folder)."""
    if not any(os.path.lexists(path) for path in _working_names(out)):
        return None
    path = lock_file(out)
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            problem = _in_the_way(out, set())
            if not os.path.lexists(path):
                return problem
            continue  # a run started while we looked: ask its lock
        except OSError:
            return None  # not a lock file we can read: `_lock_problem` says why, or the lock step does
        try:
            if not _is_lock_file(os.fstat(fd)):
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return None  # a run is at work: the names are its own
            if _same_file(fd, path):
                return _in_the_way(out, _recorded_in(fd, out))
        finally:
            os.close(fd)  # and with it the shared lock
    return None


def _in_the_way(out: Path, recorded: set[str]) -> str | None:
    """The first working name of a run on `out` that something holds which no run on `out` recorded."""
    for path in _working_names(out):
        if os.path.lexists(path) and path.name not in recorded:
            return _in_the_way_of(path)
    return None


def _in_the_way_of(path: Path) -> str:
    return (f"{path}: is in the way of the run (it works under this name) and is not a leftover of a Mapwright "
            "run; move it away")


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
        record = _lock(out)
    except RunDirError:
        raise
    except OSError as exc:
        raise RunDirError(f"{out}: cannot write here ({_why(exc)})") from None
    _held[out] = record
    try:
        try:
            for target in (out, attempt_dir(out)):
                recover(target)
            _settle(record)
        except OSError as exc:
            raise RunDirError(f"{out}: cannot clean up what an earlier killed run left ({_why(exc)})") from None
        problem = _in_the_way(out, record.names)  # checked before the lock too; now with the record in hand
        if problem:
            raise RunDirError(problem)
        yield out
    finally:
        del _held[out]
        if not _pending(record):  # else keep the record: the next run can still prove those folders ours
            with contextlib.suppress(OSError):
                os.unlink(lock_file(out))
        os.close(record.fd)


def _why(exc: OSError) -> str:
    return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc.strerror or exc)


def _lock_problem(out: Path) -> str | None:
    """Why the lock file beside `out` cannot be the lock of a run: a link, not a regular file, another user's
    (whose link or file would have the run write its pid and record through it); None when absent or fine."""
    path = lock_file(out)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path}: the lock file of runs on {out} cannot be read ({exc.strerror})"
    return _lock_file_problem(path, info)


def _lock_file_problem(path: Path, info: os.stat_result) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        what = "is a symbolic link"
    elif not stat.S_ISREG(info.st_mode):
        what = "is not a regular file"
    elif info.st_uid != os.geteuid():
        what = f"belongs to another user (uid {info.st_uid})"
    elif info.st_nlink > 1:
        what = "has other names (hard links)"
    else:
        return None
    return (f"{path}: {what}, so it is not a run's lock file (a run writes its process id into it, and never "
            "through a link or into another's file): remove it, or write the run elsewhere")


def _is_lock_file(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and info.st_nlink <= 1


def _same_file(fd: int, path: Path) -> bool:
    """True while `path` names the file open as `fd` (its owner had not removed it meanwhile)."""
    try:
        named, opened = os.lstat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _lock(out: Path) -> _Record:
    """Lock `out` and take over its lock file, keeping what a killed owner recorded until it is recovered.

    The file is opened without following a link and without blocking, and taken only when it is a regular
    file of this user with one name (`_lock_problem`). A lock held for a moment only (another run's check,
    `_in_the_way_now`) is waited for; one held longer is another run at work: `RunDirBusy`."""
    path = lock_file(out)
    busy_until = time.monotonic() + _BUSY_WAIT_S
    while True:
        problem = _lock_problem(out)  # before opening: opening a device can act on it
        if problem:
            raise RunDirError(problem)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # made a link since we looked
                raise RunDirError(_lock_file_problem(path, os.lstat(path)) or str(exc)) from None
            raise
        try:
            info = os.fstat(fd)
            if info.st_nlink > 0 and not _is_lock_file(info):  # replaced since we looked
                raise RunDirError(_lock_file_problem(path, info) or f"{path}: not a lock file")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() < busy_until:
                os.close(fd)
                time.sleep(0.01)
                continue
            pid = _owner(fd)
            os.close(fd)
            raise RunDirBusy(f"{out}: another run is writing it (process {pid}); wait for it to end or cancel "
                             "it") from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):  # else the previous owner removed the file between our open and our lock
            record = _Record(fd, path, _recorded_in(fd, out))
            with contextlib.suppress(OSError):  # the pid is for the message of a second run; a full disk
                _rewrite(record)                # must not stop this one (it will say so when it writes)
            return record
        os.close(fd)


def _owner(fd: int) -> str:
    """The pid in a lock file (its owner writes it just after locking: wait a moment for it)."""
    for _ in range(20):
        text = os.pread(fd, 32, 0).split(b"\n")[0].decode("ascii", errors="replace").strip()
        if text.isdigit():
            return text
        time.sleep(0.025)
    return "unknown"


def _recorded_in(fd: int, out: Path) -> set[str]:
    """The working names of `out` recorded in a lock file, one JSON string a line; anything else in it (the
    pid, a line a kill cut short) names nothing."""
    wanted = {path.name for path in _working_names(out)}
    names: set[str] = set()
    for line in os.pread(fd, _MAX_RECORD_BYTES, 0).splitlines():
        try:
            name = json.loads(line)
        except ValueError:
            continue
        if isinstance(name, str) and name in wanted:
            names.add(name)
    return names


def _rewrite(record: _Record) -> None:
    """Write this process's pid and the names still recorded. Written over the old text, then cut to length:
    a kill between the two leaves the names whole (and a tail that names nothing), never an empty record."""
    text = f"{os.getpid()}\n".encode() + b"".join(_line(name) for name in sorted(record.names))
    os.pwrite(record.fd, text, 0)
    os.ftruncate(record.fd, len(text))


def _line(name: str) -> bytes:
    return json.dumps(name).encode("ascii") + b"\n"  # any file name, on one line


def _pending(record: _Record) -> bool:
    """True while a folder the record names still exists."""
    return any(os.path.lexists(record.lock.parent / name) for name in record.names)


def _settle(record: _Record) -> None:
    """Forget the recorded names once none of their folders exists: a record names only what is there."""
    if record.names and not _pending(record):
        record.names.clear()
        with contextlib.suppress(OSError):
            _rewrite(record)


def _record_of(target: Path) -> _Record:
    """The record of the lock this process holds over `target`: its own, or that of the RUNDIR whose
    `.attempt` it is."""
    target = Path(os.path.abspath(target))
    if target in _held:
        return _held[target]
    if target.name.endswith(ATTEMPT_SUFFIX) and target.name != ATTEMPT_SUFFIX:
        owner = target.with_name(target.name[:-len(ATTEMPT_SUFFIX)])
        if owner in _held:
            return _held[owner]
    raise RuntimeError(f"{target}: written without holding its run directory's lock (publish.claim)")


def _reserve(target: Path, kind: str) -> Path:
    """The sibling `kind` of `target`, free, and recorded in the lock file before the caller makes it: a kill
    at any instant after leaves a folder the next run can prove its own. A folder of that name that no run
    recorded is not ours: `RunDirError`, and it is left as it is. Call with the lock held."""
    record, path = _record_of(target), _sibling(target, kind)
    if path.name not in record.names:
        if os.path.lexists(path):
            raise RunDirError(_in_the_way_of(path))
        line = _line(path.name)
        if os.pwrite(record.fd, line, os.fstat(record.fd).st_size) != len(line):  # a record cut short
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(record.lock))  # proves nothing
        record.names.add(path.name)
    remove_path(path)
    return path


def recover(target: Path) -> None:
    """Put back an old copy a kill left out of place, then remove the leftovers of a killed run on `target`.

    Leftovers are only what a run provably made: the folders its lock file records (it records each one
    before making it) and the earlier protocol's folders that hold exactly what it left. A folder a user
    made, whatever its name, is neither removed nor moved into place. Call with the lock held."""
    recorded = _record_of(target).names
    old, new = _sibling(target, "old"), _sibling(target, "new")
    ours = [path for path in (old, new) if path.name in recorded]
    legacy = _legacy_leftovers(target)
    if not os.path.lexists(target):
        if old in ours and old.is_dir() and not old.is_symlink():
            os.rename(old, target)
        else:
            for folder in legacy:
                if folder.name.endswith(".old"):  # `_legacy_leftover` checked it holds the old run
                    os.rename(folder / target.name, target)
                    break
    for leftover in (*ours, *legacy):
        remove_path(leftover)


def _legacy_leftovers(target: Path) -> list[Path]:
    """The leftovers of the earlier protocol on `target` (see `_legacy_leftover`), by name."""
    pattern = re.compile(_LEGACY_LEFTOVER.format(name=re.escape(target.name)))
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return [target.parent / n for n in sorted(names)
            if pattern.fullmatch(n) and _legacy_leftover(target.parent / n, target.name)]


def _legacy_leftover(folder: Path, name: str) -> bool:
    """True when `folder` holds exactly what the earlier protocol left: made by mkdtemp (this user, mode
    0700), and a whole run (`.partial`) or nothing but the old run under RUNDIR's name (`.old`). That
    protocol wrote no record, so this is the best evidence there is; a look-alike a user made (another
    mode, another content, a run that is not whole) is not taken. A leftover that fails it stays, hidden."""
    try:
        info = os.lstat(folder)
        if (not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) != _LEGACY_MODE
                or info.st_uid != os.geteuid()):
            return False
        if folder.name.endswith(".partial"):
            return is_run_directory(folder)
        return os.listdir(folder) == [name] and is_run_directory(folder / name)
    except OSError:
        return False


def remove_path(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def publish(target: Path, fill: Callable[[Path], None]) -> Path:
    """Fill a staged sibling of `target`, then swap it into place; the old content is removed. Call with
    the lock held. If `fill` raises, the staged folder is removed and `target` is left as it was."""
    record = _record_of(target)
    staged = _reserve(target, "new")
    staged.mkdir()
    try:
        fill(staged)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    problem = folder_problem(target)  # it may have changed while the run ran: never swap out what is not ours
    if problem:
        shutil.rmtree(staged, ignore_errors=True)
        raise RunDirError(problem)
    if not os.path.lexists(target):
        os.rename(staged, target)
        sync_dir(target.parent)
        _settle(record)
        return target
    try:
        exchange(staged, target)
        discarded = staged
        found = stranger(discarded)  # put there after the check above: swap back, and refuse
        if found is not None:
            exchange(staged, target)
    except ExchangeUnsupported:
        try:
            discarded = _reserve(target, "old")
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        os.rename(target, discarded)
        found = stranger(discarded)
        if found is not None:
            os.rename(discarded, target)
        else:
            os.rename(staged, target)
    if found is not None:
        problem = stranger_problem(found, discarded, target)
        shutil.rmtree(staged, ignore_errors=True)
        _settle(record)
        raise RunDirError(problem)
    sync_dir(target.parent)
    shutil.rmtree(discarded, ignore_errors=True)
    _settle(record)
    return target


def discard(target: Path) -> None:
    """Remove `target` in a way a kill cannot leave half removed under its own name. Lock held. A folder
    holding what no run writes (`stranger`) is left as it is."""
    if os.path.lexists(target) and stranger(target) is None:
        doomed = _reserve(target, "new")
        os.rename(target, doomed)
        if stranger(doomed) is not None:  # put there meanwhile
            os.rename(doomed, target)
        else:
            shutil.rmtree(doomed, ignore_errors=True)
        _settle(_record_of(target))
