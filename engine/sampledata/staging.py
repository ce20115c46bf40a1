"""Writing a sample-data folder as runs write their directories: staged beside it and swapped in whole.

A data folder is the user's as much as the generator's: they may keep captured changes or snapshots of
their own in it. So `--out` must be absent, empty, or a folder the generator wrote, which it marks with
`sampledata.json` listing every file it wrote. A folder holding any file that list does not name (a
`changes/my_capture.jsonl`) is refused, naming the first such file, and left byte for byte untouched; the
generator never deletes a file it did not write.

The protocol (compare `engine.run.rundir.publish`, which does the same for run directories):

1. *Check* `out` (`check_out`).
2. *Lock* the sibling `.NAME.sampledata-lock` (`fcntl.flock`, released by the kernel however the process
   dies); it records, one JSON string a line, each working folder before it is made.
3. *Recover*: the working folders a killed writer recorded are removed (an old copy out of place is first
   put back), and only those.
4. *Stage and swap*: the data is written into `.NAME.sampledata-new`, the marker last; `out` is checked
   again, then exchanged with it in one step (`swap.exchange`), or, where the file system cannot,
   renamed aside and replaced. The old content is removed.

A kill at any instant leaves `out` holding the old data or the new, never a mix; a full disk or any other
write error leaves it as it was and says so in one line.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path

from engine.run.rundir.publish import remove_path
from engine.run.rundir.swap import ExchangeUnsupported, exchange, sync_dir

MARKER = "sampledata.json"
_MAX_MARKER_BYTES = 16 * 1024 * 1024


class SampleError(Exception):
    """The sample cannot be written as asked (a refused model or --out, a full disk...); one line."""


def files_under(folder: Path) -> list[str]:
    """Every file (and link) below `folder`, as sorted relative POSIX paths; folders are not listed."""
    out: list[str] = []
    for root, dirs, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        out += [(base / name).as_posix() for name in files]
        out += [(base / name).as_posix() for name in dirs if os.path.islink(os.path.join(root, name))]
    return sorted(out)


def marker_files(out: Path) -> list[str] | None:
    """The files `out/sampledata.json` lists; None when there is no marker or it lists none (a marker of an
    earlier version, which listed nothing)."""
    path = out / MARKER
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_MARKER_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return files


def check_out(out: Path, written: Collection[str] | None = None) -> None:
    """Raise `SampleError` unless the generator may write `out`: absent, an empty folder, or a folder whose
    every file its marker lists. A marker of an earlier version lists nothing: its folder is accepted when
    it holds only files of the names about to be `written` (None: not known yet, accepted for now)."""
    if out.is_symlink():
        raise SampleError(f"{out}: is a symbolic link; give the data folder itself")
    if not out.exists():
        return
    if not out.is_dir():
        raise SampleError(f"{out} is not a folder: --out names the data folder to write")
    try:
        present = files_under(out)
    except OSError as exc:
        raise SampleError(f"{out}: cannot be read ({exc.strerror})") from None
    if not present:
        return
    if MARKER not in present:
        raise SampleError(f"{out}: holds {present[0]}, which the sample-data generator did not write (there is "
                          f"no {MARKER}); choose an empty or a new folder")
    listed = marker_files(out)
    if listed is None and written is None:
        return
    allowed = set(listed if listed is not None else written or ()) | {MARKER}
    stranger = next((name for name in present if name not in allowed), None)
    if stranger is not None:
        raise SampleError(f"{out}: holds {stranger}, which the sample-data generator did not write (its "
                          f"{MARKER} does not list it); move it away or choose another folder")


def write_staged(out: Path, fill: Callable[[Path], None], marker: Mapping[str, object]) -> tuple[str, ...]:
    """Fill a staged folder, add the marker (`marker` plus the list of files), swap it in as `out`; returns the
    files written. `SampleError` (one line) when `out` is refused or cannot be written; whatever `fill` raises
    passes through. Either way `out` is left as it was."""
    out = Path(os.path.abspath(out))
    check_out(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with _locked(out) as record:
            _recover(out, record)
            staged = _reserve(out, record, "new")
            staged.mkdir()
            try:
                fill(staged)
                files = tuple(name for name in files_under(staged) if name != MARKER)
                text = json.dumps({**marker, "files": list(files)}, indent=1) + "\n"
                (staged / MARKER).write_text(text, encoding="utf-8", newline="")
                check_out(out, files)  # it may have changed while we wrote: never swap out what is not ours
                _swap(out, staged, record)
            except BaseException:
                shutil.rmtree(staged, ignore_errors=True)
                raise
            remove_path(staged)  # what the swap left under the staged name: the old data, all of it the generator's
            return files
    except SampleError:
        raise
    except OSError as exc:
        raise SampleError(write_error(out, exc)) from None


def write_error(out: Path, exc: OSError) -> str:
    """One line for a write that failed; a full disk says so plainly."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{out}: the disk is full (no space left on device); {out} is unchanged"
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{out}: cannot write{where}: {exc.strerror or exc}; {out} is unchanged"


def _sibling(out: Path, kind: str) -> Path:
    return out.with_name(f".{out.name}.sampledata-{kind}")


class _Record:
    """The lock file's descriptor and the working folders it records."""

    def __init__(self, fd: int, names: set[str]) -> None:
        self.fd, self.names = fd, names


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[_Record]:
    path = _sibling(out, "lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SampleError(f"{out}: another sample generator is writing it; wait for it to end") from None
        wanted = {_sibling(out, kind).name for kind in ("new", "old")}
        names = set()
        for line in os.pread(fd, 65536, 0).splitlines():
            with contextlib.suppress(ValueError):
                name = json.loads(line)
                if name in wanted:
                    names.add(name)
        record = _Record(fd, names)
        try:
            yield record
        finally:  # removed while still locked; kept while a folder it records exists (the next writer's proof)
            if not any(os.path.lexists(out.with_name(n)) for n in record.names):
                with contextlib.suppress(OSError):
                    os.unlink(path)
    finally:
        os.close(fd)


def _recover(out: Path, record: _Record) -> None:
    """Put back an old copy a kill left out of place; remove the working folders a killed writer recorded."""
    old, new = _sibling(out, "old"), _sibling(out, "new")
    if not os.path.lexists(out) and old.name in record.names and old.is_dir():
        os.rename(old, out)
    for folder in (old, new):
        if folder.name in record.names:
            remove_path(folder)


def _reserve(out: Path, record: _Record, kind: str) -> Path:
    """The working folder `kind`, recorded in the lock file before it is made; one no writer recorded is a
    user's and refuses the write."""
    path = _sibling(out, kind)
    if path.name not in record.names:
        if os.path.lexists(path):
            raise SampleError(f"{path}: is in the way of the sample generator (it works under this name); move it")
        line = json.dumps(path.name).encode() + b"\n"
        if os.pwrite(record.fd, line, os.fstat(record.fd).st_size) != len(line):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fsync(record.fd)
        record.names.add(path.name)
    remove_path(path)
    return path


def _swap(out: Path, staged: Path, record: _Record) -> None:
    if not os.path.lexists(out):
        os.rename(staged, out)
    else:
        try:
            exchange(staged, out)
        except ExchangeUnsupported:
            old = _reserve(out, record, "old")
            os.rename(out, old)
            os.rename(staged, out)
            sync_dir(out.parent)
            remove_path(old)
            return
    sync_dir(out.parent)
