"""A run's input files opened as an attacker might hand them (docs/contract.md §4): regular files only, each
with a size bound, for both engines alike.

A FIFO named `schedule.json` blocked the run for ever; a link to `/dev/zero` was read until the kernel
killed the process; a snapshot that was a FIFO, a device or a broken link was passed over without a word,
and the run succeeded without that site's initial rows. Each is now an input error naming the file. A
path is checked before it is opened (opening a device can act on it, and a FIFO blocks), opened without
blocking, checked again by its descriptor (it may have been swapped meanwhile), and never read past its
bound. A link to a regular file is read as that file: data folders are often assembled from links, and
reading one writes nothing. Spark is given only files listed and checked here.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from engine.model.io import file_kind, one_line


class InputFileError(ValueError):
    """An input file that is not a regular file, is too large or cannot be opened; one line naming it."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(one_line(f"{path}: {why}"))


def check_input_file(path: Path, limit: int) -> None:
    """Raise `InputFileError` unless `path` is a regular file (or a link to one) of at most `limit` bytes that
    this process can open."""
    open_input_file(path, limit).close()


def read_input_file(path: Path, limit: int) -> bytes:
    """The bytes of the input file `path` (see `check_input_file`), at most `limit` whatever it grows to."""
    with open_input_file(path, limit) as fh:
        size = os.fstat(fh.fileno()).st_size  # within the bound: checked
        parts = [fh.read(size + 1)]  # a read allocates what it asks for: the size, never the bound
        got = len(parts[0])
        while size < got <= limit:  # it grows while it is read: on, a step at a time, up to the bound
            part = fh.read(min(1 << 20, limit + 1 - got))
            if not part:
                break
            parts.append(part)
            got += len(part)
    if got > limit:
        raise InputFileError(path, _too_large(limit, "it grew while it was read"))
    return b"".join(parts)


def open_input_file(path: Path, limit: int) -> BinaryIO:
    """The input file `path` open for reading, once checked by path and by descriptor (`check_input_file`)."""
    _check(path, _stat(path), limit)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    fh = os.fdopen(fd, "rb")
    try:
        _check(path, os.fstat(fd), limit)
    except BaseException:
        fh.close()
        raise
    return fh


def _stat(path: Path) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputFileError(path, f"is a symbolic link to {os.readlink(path)}, which does not exist") from None
        raise InputFileError(path, "no such file") from None
    except OSError as exc:  # a loop of links, a path through a file, no permission
        raise InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None


def _check(path: Path, info: os.stat_result, limit: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(path, "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(path, f"is {file_kind(info.st_mode)}, not a regular file; a run reads only regular "
                             "files (a pipe would block it, a device would never end)")
    if info.st_size > limit:
        raise InputFileError(path, _too_large(limit, f"it holds {info.st_size} bytes"))


def _too_large(limit: int, why: str) -> str:
    return f"is larger than a run reads from one file ({limit} bytes; {why})"


def input_lines(fh: BinaryIO, limit: int, path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) of each line of an open input file, read a line at a time (a large
    file is never held whole), as `records.split_lines` splits a file's bytes: at `\\n` only, a `\\r` before
    it dropped, a UTF-8 byte-order mark at the start dropped; never past `limit` bytes in all."""
    got = 0
    for number, line in enumerate(fh, start=1):
        got += len(line)
        if got > limit:
            raise InputFileError(path, _too_large(limit, "it grew while it was read"))
        if number == 1:
            line = line.removeprefix(codecs.BOM_UTF8)
        yield number, line.removesuffix(b"\n").removesuffix(b"\r")


class InputError(ValueError):
    """Input the run cannot go on without reading (a bad snapshot, an unreadable file)."""



MAX_INPUT_FILE_BYTES = 16 << 30
"""The largest changes or snapshot file a run reads (16 GiB; the reference holds a file whole): sample data
of a hundred million events, far beyond what a run of this tool is for, and a bound on a file that grows."""


def checked_input(path: Path) -> Path:
    """`path`, once checked as a regular file a run may read (`check_input_file`); `InputError` naming it if not."""
    try:
        check_input_file(path, MAX_INPUT_FILE_BYTES)
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    return path
