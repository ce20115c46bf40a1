"""Two paths swapped in one step, and a rename made durable: the operating system's part of publishing a run
directory (`publish`) or a sample's data folder (`sampledata.staging`)."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
from pathlib import Path


class ExchangeUnsupported(OSError):
    """The platform or file system cannot exchange two directories atomically."""


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


def sync_dir(folder: Path) -> None:
    """Make a rename durable (best effort: some file systems refuse fsync on a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
