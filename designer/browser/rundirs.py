"""Where Run ▸ Open run directory starts: the folder of the run opened last, else where the Run tab writes runs.

The last run opened is kept in the window's settings, so the dialog starts there in the next session too.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from designer.launcher.settings import APPLICATION

LAST_RUN_KEY = "browser/last_run"


def remember_run(settings: QSettings, rundir: Path) -> None:
    """`rundir` was opened in a conflict browser: the next Open run directory starts beside it."""
    settings.setValue(LAST_RUN_KEY, str(Path(rundir).absolute()))


def open_run_start(settings: QSettings, next_out: str) -> str:
    """The folder Open run directory starts in: the one holding the run opened last, while it exists; else
    the runs folder of `next_out` (the run directory the Run tab would write next), or the nearest folder
    above it that exists (no run written yet); else the application's own runs folder; else "" (Qt's)."""
    last = settings.value(LAST_RUN_KEY)
    if isinstance(last, str) and last and Path(last).parent.is_dir():
        return str(Path(last).parent)
    if next_out.strip():
        return _existing(Path(next_out.strip()).expanduser().absolute().parent)
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    runs = Path(location) / APPLICATION / "runs" if location else None
    return str(runs) if runs is not None and runs.is_dir() else ""


def _existing(folder: Path) -> str:
    """`folder`, or the nearest folder above it that exists."""
    for candidate in (folder, *folder.parents):
        try:
            if candidate.is_dir():
                return str(candidate)
        except OSError:  # a path no file system holds: look further up
            continue
    return ""
