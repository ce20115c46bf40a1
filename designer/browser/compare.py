"""Compare with…: the run a conflict browser shows against another run directory (`engine.rundiff`).

The diff reads both runs whole and every final table, which takes a while on large runs: it runs on a thread
of its own, and its text is shown in a dialog that does not block the browser (`mapwright diff` prints the
same text).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import cast

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QFontDatabase, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QPlainTextEdit, QPushButton, QVBoxLayout

from designer.browser.models import collector_paused
from designer.browser.runview import RunView
from engine.model.io import one_line
from engine.rundiff import RunDirUnreadable, diff_runs, render_diff

SHORTCUT = "Ctrl+D"


def diff_text(run_a: Path, run_b: Path) -> str:
    """What `mapwright diff RUN_A RUN_B` prints, or one line saying why the runs cannot be compared."""
    try:
        with collector_paused():
            return render_diff(diff_runs(run_a, run_b))
    except (RunDirUnreadable, OSError) as exc:
        return f"Cannot compare: {exc}"
    except Exception as exc:  # a thread's error is otherwise lost: say it, in one line
        return one_line(f"Cannot compare: {type(exc).__name__}: {exc}")


class _Differ(QObject):
    """Computes one diff on its own thread; the signal is queued to the comparer in the GUI thread."""

    sig_done = Signal(int, str)  # (comparison number, text)

    def compute(self, number: int, run_a: Path, run_b: Path) -> None:
        text = diff_text(run_a, run_b)
        with contextlib.suppress(RuntimeError):  # the browser closed meanwhile
            self.sig_done.emit(number, text)


class DiffDialog(QDialog):
    """The diff's text, read-only and monospaced, in a window of its own (not modal)."""

    def __init__(self, parent: RunView) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare runs")
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(820, 560)


class RunComparer(QObject):
    """The browser's Compare with… action and button: enabled while a succeeded run is shown."""

    sig_compared = Signal(str)
    """A comparison finished; the text shown."""

    def __init__(self, browser: RunView) -> None:
        super().__init__(browser)  # no Python reference back to the browser: its wrapper goes when it is deleted
        self._started = self._shown = 0
        self.dialog: DiffDialog | None = None
        self.action = QAction("Compare with…", browser)
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(f"Compare this run with another run directory ({SHORTCUT})")
        self.action.triggered.connect(self.choose)
        browser.addAction(self.action)
        self.button = QPushButton("Compare with…")
        self.button.setToolTip(self.action.toolTip())
        self.button.clicked.connect(self.action.trigger)
        browser.sig_run_opened.connect(self.update_enabled)
        browser.sig_open_failed.connect(self.update_enabled)
        self.update_enabled()

    @property
    def browser(self) -> RunView:
        return cast(RunView, self.parent())

    def update_enabled(self, _shown: object = None) -> None:
        """Enabled while a run that succeeded is shown (called as a run is shown or fails to open)."""
        summary = self.browser.summary
        usable = summary is not None and summary.status == "succeeded" and self.browser.rundir is not None
        self.action.setEnabled(usable)
        self.button.setEnabled(usable)

    def choose(self) -> None:
        """Ask for the other run directory (starting beside this one), then compare."""
        rundir = self.browser.rundir
        if rundir is None:
            return
        chosen = QFileDialog.getExistingDirectory(self.browser, "Compare with run directory",
                                                  str(Path(rundir).absolute().parent))
        if chosen:
            self.compare_with(Path(chosen))

    def compare_with(self, other: Path) -> None:
        """Diff the shown run (A) against `other` (B) off the GUI thread; the dialog shows the result."""
        rundir = self.browser.rundir
        if rundir is None:
            return
        self._started += 1
        self.browser.setCursor(Qt.CursorShape.BusyCursor)
        self._show(f"Comparing {rundir} with {other}…")
        differ = _Differ(self)
        differ.sig_done.connect(self._done)
        threading.Thread(target=differ.compute, args=(self._started, Path(rundir), Path(other)),
                         name="mapwright-diff-runs", daemon=True).start()

    def comparing(self) -> bool:
        """Whether a comparison is still running."""
        return self._shown < self._started

    def _done(self, number: int, text: str) -> None:
        differ = self.sender()
        if isinstance(differ, _Differ):
            differ.deleteLater()
        if number != self._started:  # a later comparison superseded this one
            return
        self._shown = number
        self.browser.unsetCursor()
        self._show(text)
        self.sig_compared.emit(text)

    def _show(self, text: str) -> None:
        if self.dialog is None:
            self.dialog = DiffDialog(self.browser)
        self.dialog.text.setPlainText(text)
        self.dialog.show()
        self.dialog.raise_()
