"""File ▸ Export diagram…: the current model drawn to a PNG, SVG or PDF file by `mapwright diagram`, in a child
process, so the window never waits for the drawing (seconds for a model of a thousand tables).

The child reads the model as it is in the window (unsaved edits included, written to a temporary file first)
and draws it as `designer.diagram` does for the command line: the canvas's scene, offscreen.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QProcess, Signal

from designer.diagram import FILTERS, DiagramError, diagram_kind
from designer.file_export import failed
from designer.launcher.runner import child_process
from designer.savepaths import save_path
from engine.export import same_file
from engine.model import Model
from engine.model.io import dump_model, one_line

if TYPE_CHECKING:
    from designer.window import MainWindow


class DiagramJob(QObject):
    """One `mapwright diagram` child process; `sig_done(path, reason)` when it ends (`reason` empty: written)."""

    sig_done = Signal(str, str)

    def __init__(self, model: Model, out: Path, parent: QObject) -> None:
        super().__init__(parent)
        self.out = out
        fd, name = tempfile.mkstemp(prefix="mapwright-diagram-", suffix=".json")  # 0600: the model is the user's
        self.model_file = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dump_model(model))
        self.process = child_process(self, [sys.executable, "-m", "engine.cli", "diagram", str(self.model_file),
                                            "--out", str(out)])
        env = self.process.processEnvironment()
        env.insert("QT_QPA_PLATFORM", "offscreen")  # a file needs no screen
        self.process.setProcessEnvironment(env)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        self.process.start()

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        said = bytes(self.process.readAllStandardError().data()).decode(errors="replace").strip().splitlines()
        reason = said[-1].removeprefix("mapwright: ") if said else ""
        if status != QProcess.ExitStatus.NormalExit or code != 0:
            reason = reason or f"the drawing stopped unexpectedly (exit code {code})"
        self._done(reason)

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # no `finished` follows
            self._done(f"the drawing could not start ({one_line(self.process.errorString())})")

    def _done(self, reason: str) -> None:
        self.model_file.unlink(missing_ok=True)
        self.sig_done.emit(str(self.out), one_line(reason))
        self.deleteLater()


def export_from(window: MainWindow) -> DiagramJob | None:
    """Ask where (the filter's suffix added to a name typed without one), check what can be checked at once,
    then draw in the background; the status bar says when the file is written, or why it was not (and a
    message box too when the window may ask, as other exports do)."""
    status: Callable[[str, int], None] = window.statusBar().showMessage
    model_path = window.document.path
    path = save_path(window, "Export diagram", ";;".join(FILTERS.values()), "png", window.ask, status,
                     model_path.parent if model_path is not None else None)
    if path is None:
        return None
    reason = ""
    try:
        diagram_kind(path)
    except DiagramError as exc:
        reason = str(exc)
    if not reason and not path.parent.is_dir():
        reason = f"{path}: no such folder {path.parent}"
    if not reason and model_path is not None and same_file(path, model_path):
        reason = f"{path} is the model file itself: export the diagram to another path"
    if reason:
        failed(window, one_line(reason), window.ask, status)
        return None
    job = DiagramJob(window.document.model, path, window)
    status(f"Drawing the diagram to {path}…", 0)

    def done(written: str, why: str) -> None:
        if why:
            failed(window, why, window.ask, status)
        else:
            status(f"Exported the diagram to {written}", 6000)

    job.sig_done.connect(done)
    return job
