"""`RunView`: a widget that shows one run directory, as the browser's actions see it.

Compare with… (`compare.py`) and Re-execute… (`requeue.py`) need of the conflict browser (`window.py`) only
the run it shows, the signals it sends when it shows one, its error-queue page and how to open another run.
That much is here, below them, and the browser builds on it: so neither action imports the browser that
builds them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from designer.browser.pages import RecordsPage
    from engine.summary import RunSummary


class RunView(QWidget):
    """The run shown (`summary`, None while none is; `rundir`, where it was read) and the signals that say a
    run was shown or could not be read. `window.ConflictBrowser` is the one kind there is: it builds
    `queue_page` and reads runs with `load_run`."""

    sig_run_opened = Signal(object)
    """A run was shown; its `RunSummary`."""
    sig_open_failed = Signal(str)
    """A folder could not be read as a run directory; the message."""

    queue_page: RecordsPage
    """The error queue's page (the browser's: Re-execute… adds its button and status line to it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary: RunSummary | None = None
        self.rundir: Path | None = None

    def load_run(self, path: Path) -> None:
        """Read the run directory at `path` and show it (the browser's reads it off the GUI thread)."""
        raise NotImplementedError(f"{type(self).__name__} cannot read a run directory")
