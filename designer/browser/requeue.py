"""Re-execute…: the error queue's selected transactions (all when none is selected) executed again with the
designer's current model, into a new run directory beside the run, by `mapwright requeue` (`engine.requeue`).

The requeue reads the run whole and folds over every final table, which takes a while on large runs: it runs
in a child process (as File ▸ Export diagram does), so the browser never waits. The model is the main
window's document, saved first as a run from the designer saves it (asked; not saved, no requeue), so the
new run's manifest names the file it read; a browser opened on its own, with no window, uses the model file
the run's manifest names. When the child finishes, the new
run opens in a browser of its own and the queue page says what happened, in one line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QObject, QProcess, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QBoxLayout, QLabel, QPushButton, QWidget

from designer.browser.models import RECORD_ROLE
from designer.browser.runview import RunView
from designer.launcher.runner import child_process
from engine.model.io import one_line

SHORTCUT = "Ctrl+E"
SUFFIX = "-requeue"
OPENED: list[QWidget] = []
"""Browsers opened for a browser that has no window to keep them: held while they are shown (they outlive
the browser that opened them)."""


def requeue_dir(rundir: Path) -> Path:
    """Where the new run goes: `<run>-requeue` beside the run, else `-requeue-2`, `-requeue-3`...: never a path
    that exists (a requeue may replace an earlier run; this one never replaces anything)."""
    rundir = Path(rundir).absolute()
    candidate, number = rundir.with_name(rundir.name + SUFFIX), 1
    while candidate.exists() or candidate.is_symlink():
        number += 1
        candidate = rundir.with_name(f"{rundir.name}{SUFFIX}-{number}")
    return candidate


def manifest_model(manifest: dict[str, Any]) -> Path | None:
    """The model file the run read, as its manifest names it, or None when it names none."""
    model = manifest.get("model")
    path = model.get("path") if isinstance(model, dict) else None
    return Path(path) if isinstance(path, str) and path else None


def last_line(data: bytes) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1].removeprefix("mapwright: ") if lines else ""


def _forget(gone: QWidget, *_: object) -> None:
    OPENED[:] = [b for b in OPENED if b is not gone]


class RequeueJob(QObject):
    """One `mapwright requeue` child process; `sig_done(out, summary, reason)` when it ends: the new run's
    one-line summary, or (`reason` not empty) why there is no new run."""

    sig_done = Signal(str, str, str)

    def __init__(self, rundir: Path, model: Path, out: Path, txns: list[str], parent: QObject) -> None:
        super().__init__(parent)
        self.out = out
        command = [sys.executable, "-m", "engine.cli", "requeue", str(rundir), f"--model={model}",
                   f"--out={out}"] + [f"--txn={txn}" for txn in txns]  # `=`: a value starting with - stays one
        self.process = child_process(self, command)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        self.process.start()

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        said = last_line(bytes(self.process.readAllStandardOutput().data()))
        reason = last_line(bytes(self.process.readAllStandardError().data()))
        if status != QProcess.ExitStatus.NormalExit or code != 0:
            self._done("", reason or f"the requeue stopped unexpectedly (exit code {code})")
        else:
            self._done(said or f"wrote {self.out}", "")

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # no `finished` follows
            self._done("", f"the requeue could not start ({self.process.errorString()})")

    def _done(self, summary: str, reason: str) -> None:
        self.sig_done.emit(str(self.out), one_line(summary), one_line(reason))
        self.deleteLater()


class RunRequeuer(QObject):
    """The error-queue page's Re-execute… action and button, and the line under them that says what happened.

    Enabled while a run that succeeded, with queued transactions, is shown and no requeue is running. The
    window sets `current_model` (its document's file, saved when the action runs; None: the user kept the
    edits unsaved) and `open_run` (how it
    opens a run directory); a browser on its own uses the run's model file and opens a browser itself."""

    sig_finished = Signal(str, str)
    """A requeue ended: the new run directory and its one-line summary, or ("", why it failed)."""

    def __init__(self, browser: RunView) -> None:
        super().__init__(browser)  # no Python reference back to the browser: its wrapper goes when it is deleted
        self.current_model: Callable[[], Path | None] | None = None
        self.open_run: Callable[[Path], QWidget] | None = None
        self.job: RequeueJob | None = None
        page = browser.queue_page
        page.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)  # several transactions
        self.action = QAction("Re-execute…", page)
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # on the queue page
        self.action.setToolTip("Execute the selected queued transactions (all when none is selected) again with "
                               f"the designer's current model, into a new run directory ({SHORTCUT})")
        self.action.triggered.connect(self.requeue)
        page.addAction(self.action)
        self.button = QPushButton("Re-execute…")
        self.button.setToolTip(self.action.toolTip())
        self.button.clicked.connect(self.action.trigger)
        self.status = QLabel()
        self.status.setObjectName("requeueStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # paths and reasons are shown as they are
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        cast(QBoxLayout, page.filter_bar.layout()).addWidget(self.button)  # at the end of the filter's row
        cast(QBoxLayout, page.layout()).insertWidget(1, self.status)  # under it
        browser.sig_run_opened.connect(self.update_enabled)
        browser.sig_open_failed.connect(self.update_enabled)
        self.update_enabled()

    @property
    def browser(self) -> RunView:
        return cast(RunView, self.parent())

    def update_enabled(self, _shown: object = None) -> None:
        """Enabled while a succeeded run with queued transactions is shown and no requeue is running."""
        summary = self.browser.summary
        usable = (summary is not None and summary.status == "succeeded" and bool(summary.error_queue)
                  and self.browser.rundir is not None and self.job is None)
        self.action.setEnabled(usable)
        self.button.setEnabled(usable)

    def running(self) -> bool:
        return self.job is not None

    def selected_txns(self) -> list[str]:
        """The transactions of the selected queue rows, in the order shown, each once (none: no selection)."""
        view = self.browser.queue_page.view
        txns: list[str] = []
        for index in sorted(view.selectionModel().selectedRows(), key=lambda i: i.row()):
            record = index.data(RECORD_ROLE)
            txn = record.get("txn") if isinstance(record, dict) else None
            if txn is not None and str(txn) not in txns:
                txns.append(str(txn))
        return txns

    def requeue(self) -> None:
        """Start `mapwright requeue` on the shown run (checked and said in one line when it cannot start)."""
        browser = self.browser
        rundir, summary = browser.rundir, browser.summary
        if rundir is None or summary is None or self.job is not None:
            return
        if self.current_model is not None:
            saved = self.current_model()
            if saved is None:
                self._say("Not re-executed: a requeue reads the model file, and the model's changes are not saved")
                return
            model, source = saved, f"the designer's model ({saved.name})"
        else:
            found = manifest_model(summary.manifest)
            if found is None or not found.is_file():
                self._say(f"Cannot re-execute: the model file the run read ({found or 'not named'}) is not there; "
                          "open the run from the designer to use its model")
                return
            model, source = found, str(found)
        txns = self.selected_txns()
        out = requeue_dir(rundir)
        what = (f"{len(txns)} selected transaction(s)" if txns else f"all {len(summary.error_queue)} queued change(s)")
        self.job = RequeueJob(Path(rundir).absolute(), model, out, txns, self)
        self.job.sig_done.connect(self._done)
        self.update_enabled()
        browser.setCursor(Qt.CursorShape.BusyCursor)
        self._say(f"Re-executing {what} with {source} into {out}…")

    def _done(self, out: str, summary: str, reason: str) -> None:
        self.job = None
        self.browser.unsetCursor()
        self.update_enabled()
        if reason:
            self._say(f"Re-execute failed: {reason}")
            self.sig_finished.emit("", reason)
            return
        self._say(summary)
        self._open(Path(out))
        self.sig_finished.emit(out, summary)

    def _open(self, out: Path) -> None:
        """The new run in a browser: the window's (so it keeps it and its model), else one of our own."""
        if self.open_run is not None:
            self.open_run(out)
            return
        other = type(self.browser)()
        other.setWindowTitle(f"Run {out} — Mapwright")
        other.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        OPENED.append(other)
        other.destroyed.connect(partial(_forget, other))
        other.load_run(out)
        other.show()

    def _say(self, text: str) -> None:
        self.status.setText(one_line(text))
