"""What a run directory is and holds (docs/contract.md §6), checked without following a link or reading
anything but a regular file: which folders a run may write (`folder_problem`), the files a run writes
(`RUN_FILES`, `TABLES`) and the first thing in a run directory that no run wrote (`stranger`).

Standard library only, as `engine.run.rundir.publish`, which tests load as a file of its own."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

MANIFEST = "manifest.json"
_MAX_MANIFEST_BYTES = 4 * 1024 * 1024
RUN_FILES = ("manifest.json", "conflicts.jsonl", "conflicts.parquet", "error_queue.jsonl", "rejects.jsonl",
             "convergence.json")
"""The files a run writes at the top of its folder (docs/contract.md §6; `engine.run.rundir.write`), beside `TABLES`."""
OS_FILES = (".DS_Store", "Thumbs.db")
"""What a desktop's file browser writes into any folder it shows (macOS Finder, Windows Explorer): its
own cache, not the user's work, taken with the run that replaces the folder."""
TABLES = "tables"
"""`tables/<server>/<table>.parquet`: a folder of folders of Parquet files (`rundir.table_file`)."""


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
        doc = json.loads(read_regular(path / MANIFEST, _MAX_MANIFEST_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    engine = doc.get("engine")
    if not isinstance(engine, str) or engine.split(" ")[0] != "mapwright":
        return None
    return doc


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of `path` if it is a regular file (not a link, a pipe, a device) of at most `limit` bytes;
    `OSError` otherwise. Opened without following a link and without blocking, then checked by descriptor."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise OSError(errno.EINVAL, "not a regular file of a run", str(path))
        data = os.read(fd, info.st_size + 1)  # one byte more: a file that grew since
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(errno.EFBIG, "larger than a run's file", str(path))
    return data


def folder_problem(out: Path) -> str | None:
    """Why a run may not write the folder `out` (one line), or None: it must be absent, empty, or a Mapwright
    run directory holding nothing a run did not write (`stranger`)."""
    if out.is_symlink():
        return f"{out}: is a symbolic link; give the folder itself as the run directory"
    if not out.exists():
        return None
    if not out.is_dir():
        return f"{out}: is a file, not a folder; a run directory must be new, empty or an earlier run"
    try:
        empty = not any(out.iterdir())
    except FileNotFoundError:  # removed meanwhile (a run discarding its attempt): absent
        return None
    except OSError as exc:
        return f"{out}: cannot be read ({exc.strerror})"
    if empty:
        return None
    if is_run_directory(out):
        found = stranger(out)
        return None if found is None else stranger_problem(found, out)
    why = "its manifest.json does not name the engine mapwright" if (out / MANIFEST).exists() else "no manifest.json"
    return f"{out}: is not empty and is not a Mapwright run directory ({why}); choose a new or empty folder"


def stranger(folder: Path) -> Path | None:
    """The first entry of the run directory `folder` (by name, depth first) that no run writes, or None.

    A run writes `RUN_FILES` and `tables/<server>/<table>.parquet`: regular files and folders, never a link
    (Spark's part files, `_SUCCESS` and checksums stay in scratch folders `engine.spark.output` removes before
    the run is published). Replacing a run directory removes the old one whole, so anything else in it, a
    NOTES.md or a thesis.txt, would be lost with it: a run refuses such a folder."""
    for entry in _entries(folder):
        if entry.name in (*RUN_FILES, *OS_FILES) and entry.is_file(follow_symlinks=False):
            continue
        if entry.name != TABLES or not entry.is_dir(follow_symlinks=False):
            return Path(entry.path)
        for server in _entries(Path(entry.path)):
            if server.name in OS_FILES and server.is_file(follow_symlinks=False):
                continue
            if not server.is_dir(follow_symlinks=False):
                return Path(server.path)
            for table in _entries(Path(server.path)):
                if not ((table.name.endswith(".parquet") or table.name in OS_FILES)
                        and table.is_file(follow_symlinks=False)):
                    return Path(table.path)
    return None


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of `folder` by name; none when it went away meanwhile (a run removing what it wrote)."""
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda entry: entry.name)
    except FileNotFoundError:
        return []


def stranger_problem(found: Path, out: Path, shown: Path | None = None) -> str:
    """The refusal naming `found` (inside `out`; as it is named under `shown`, the folder's usual name)."""
    place = (shown or out) / found.relative_to(out)
    kind = "a symbolic link" if found.is_symlink() else "a folder" if found.is_dir() else \
        "a file" if found.is_file() else "a special file (a pipe, a device or a socket)"
    return (f"{_printable(str(place))}: is {kind} that no run writes; a run over {shown or out} would delete it "
            "with the old run: move it away, or write the run to a new or empty folder")


def _printable(text: str) -> str:
    """`text` on one line, its control characters escaped (a file named `a\\nb` cannot split the message)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
