"""Where a file is saved: the platform's save dialog, then the filter's suffix added when the name has none.

`QFileDialog.getSaveFileName` returns the name as typed: `hqbranch` in a dialog filtered on `*.json` was
written as `hqbranch`, which File ▸ Open (`*.json`) then does not list. Qt's own dialog adds a default suffix
only when asked to (`setDefaultSuffix`), and it asks before replacing the file it then names; the static
function does neither, so both are done here, by Qt's rule: a suffix only for a name with no dot in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from designer.labels import message

Status = Callable[[str, int], None]


def filter_suffix(name_filter: str, default: str) -> str:
    """The suffix of the first `*.ext` pattern of a name filter (`Mapwright models (*.json)` -> `json`);
    `default` when it names none (a platform dialog may return no filter)."""
    found = re.search(r"\*\.([A-Za-z0-9_]+)", name_filter)
    return found.group(1) if found else default


def with_suffix(path: Path, suffix: str) -> Path:
    """`path` with `.suffix` added when its name has no dot (Qt's rule for a default suffix): `hqbranch`
    becomes `hqbranch.json`; `hq.v2` and `notes.txt` are names the user chose, kept as typed."""
    return path if not suffix or "." in path.name else path.with_name(f"{path.name}.{suffix}")


def confirm_replace(parent: QWidget, path: Path, ask: bool, status: Status) -> bool:
    """Ask before replacing `path`, as Qt's save dialog does for the name it was given. A window that may not
    ask (`ask` False) never replaces it: the status bar says why nothing was written."""
    if not ask:
        status(f"Not written: {path} already exists", 10000)
        return False
    answer = message(parent, QMessageBox.Icon.Warning, "Replace file",
                     f"{path.name} already exists in {path.parent}.\nDo you want to replace it?",
                     QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def save_path(parent: QWidget, title: str, name_filter: str, suffix: str, ask: bool, status: Status,
              start: Path | None = None) -> Path | None:
    """The file to write, asked with the platform's save dialog; None when the user cancelled. A name typed
    without a suffix gets the chosen filter's (`suffix` when the dialog returns no filter); when that names an
    existing file the user is asked first (the dialog asked only about the name typed, which did not exist)."""
    typed, chosen = QFileDialog.getSaveFileName(parent, title, str(start) if start else "", name_filter)
    if not typed:
        return None
    path = with_suffix(Path(typed), filter_suffix(chosen, suffix))
    if path != Path(typed) and (path.exists() or path.is_symlink()) \
            and not confirm_replace(parent, path, ask, status):
        return None
    return path


def overwrite_changed_file(parent: QWidget, path: Path, ask: bool, status: Status) -> bool:
    """The file changed on disk since it was opened or saved here: overwrite it only when the user says so
    (never without asking: a window that may not ask keeps the other change)."""
    text = (f"{path} has been changed on disk since it was opened or saved here (by another program or "
            "window). Saving overwrites that change with this model.")
    status(f"Not saved: {path} changed on disk", 10000)
    if not ask:
        return False
    answer = message(parent, QMessageBox.Icon.Warning, "File changed on disk", text,
                     QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                     QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Save
