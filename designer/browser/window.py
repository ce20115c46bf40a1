"""`ConflictBrowser`: everything a run left, read with `engine.summary.read_run`, in tabs."""

from __future__ import annotations

import contextlib
import html
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.browser.compare import RunComparer
from designer.browser.models import (
    CONFLICT_COLUMNS,
    CONVERGENCE_COLUMNS,
    QUEUE_COLUMNS,
    REJECT_COLUMNS,
    Record,
    RecordTableModel,
    cell_text,
    collector_paused,
    is_diverged,
)
from designer.browser.overview import RunOverview
from designer.browser.pages import ConflictsPage, ConvergencePage, RecordsPage
from designer.browser.requeue import RunRequeuer
from designer.browser.runview import RunView
from designer.browser.story import story_html, story_lines
from engine.run.rundir.read import LastAttempt
from engine.summary import RunDirDamaged, RunDirUnreadable, RunSummary, read_run
from resources import SAMPLE_MODEL


def attempt_note(attempt: LastAttempt | None) -> str:
    """A line under the headline when a later attempt over this run failed: its status, reason and where."""
    if attempt is None:
        return ""
    reason = f": {html.escape(attempt.reason)}" if attempt.reason else ""
    return (f"<br><b>The last attempt {html.escape(attempt.status)}</b>{reason} — its reason is in "
            f"{html.escape(str(attempt.manifest_path))}; the run shown is the earlier one.")


def describe_queue_entry(entry: Record) -> str:
    def esc(key: str) -> str:
        return html.escape(cell_text(entry.get(key)) or "?")
    return (f"<b>{esc('op')}</b> on {esc('site')}.{esc('table')} from <b>{esc('origin')}</b> (txn {esc('txn')} "
            f"seq {esc('seq')}, mapping {esc('mapping')}, delivered {esc('delivered_at')}) was queued: "
            f"<b>{esc('reason')}</b>")


def queue_images(entry: Record) -> list[tuple[str, Record | None]]:
    return [("Before", entry.get("before")), ("After", entry.get("after"))]


BANNER_LINES = 8  # the most lines the run's story takes at first (it scrolls; the splitter gives it more)
RAW_SHOWN = 120
"""Characters of a rejected line shown under the list; the whole line is in the tooltip and the Raw column."""
SAMPLE_REJECTS_NOTE = ("These rejects are expected: the bundled sample data is faulty on purpose (malformed "
                       "change records and a schema change at noon) to show what rejects look like.")


def elide(text: str, limit: int = RAW_SHOWN) -> str:
    """`text`, or its start and end around a `…` that says how long it is."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} … {text[-half // 2:]}  ({len(text):,} characters)"


def describe_reject(reject: Record) -> str:
    def esc(key: str) -> str:
        return html.escape(cell_text(reject.get(key)))
    raw = html.escape(elide(cell_text(reject.get("raw"))))
    return f"{esc('file')}:{esc('line')}: <b>{esc('reason')}</b><br><tt>{raw}</tt>"


def reject_tooltip(reject: Record) -> str:
    return cell_text(reject.get("raw"))[:10_000]


def ran_on_bundled_sample(summary: RunSummary) -> bool:
    """The run read the bundled sample model, so (unless told otherwise) its deliberately faulty data."""
    model = summary.manifest.get("model")
    path = model.get("path") if isinstance(model, dict) else None
    try:
        return bool(path) and Path(str(path)).resolve() == SAMPLE_MODEL.resolve()
    except (OSError, ValueError):  # a path no file system holds (a NUL byte) is not the sample's
        return False


def _read(path: Path) -> tuple[RunSummary | None, BaseException | None]:
    """The run directory at `path` read, or why it cannot be."""
    try:
        with collector_paused():
            return read_run(path), None
    except (RunDirUnreadable, OSError, UnicodeDecodeError) as exc:
        return None, exc


class _RunReader(QObject):
    """Reads one run directory on a thread of its own and hands the result to the GUI thread: its signal,
    emitted from that thread, is queued to the browser, which lives in the GUI thread."""

    sig_read = Signal(int, object, object, object)  # (load number, path, RunSummary or None, exception or None)

    def read(self, number: int, path: Path) -> None:
        try:
            summary, error = _read(path)
        except Exception as exc:  # anything else a damaged folder raises is said too: a thread's error is lost
            summary, error = None, RunDirUnreadable(path, f"{type(exc).__name__}: {exc}")
        self._emit(number, path, summary, error)

    def _emit(self, number: int, path: Path, summary: RunSummary | None, error: BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the browser, and this reader with it, closed meanwhile
            self.sig_read.emit(number, path, summary, error)


class ConflictBrowser(RunView):
    """Conflicts, error queue, rejects, convergence and the manifest of one run directory.

    Open one with `load_run(path)` (the window does, for instance from a finished run's signal: read on a
    thread of its own, so the window never freezes on a large run), with `open_run(path)` (read in the
    calling thread: for scripts and tests), or pass a `RunSummary`. A run that failed or was cancelled
    shows only its status and reason.
    """

    sig_conflict_selected = Signal(object)
    """The current conflict (a dict), or None."""

    def __init__(self, summary: RunSummary | None = None, rundir: Path | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)  # no run shown: `summary` and `rundir` None
        self._loads = self._shown = 0  # `load_run`s started, and the number of the one shown
        self.conflicts = RecordTableModel(CONFLICT_COLUMNS, parent=self)
        self.error_queue = RecordTableModel(QUEUE_COLUMNS, parent=self)
        self.rejects = RecordTableModel(REJECT_COLUMNS, parent=self)
        self.convergence = RecordTableModel(CONVERGENCE_COLUMNS, highlight=is_diverged, parent=self)

        self.banner = QLabel("No run open.")
        self.banner.setTextFormat(Qt.TextFormat.RichText)  # escaped rich text: never left to Qt's guess
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.conflicts_page = ConflictsPage(self.conflicts)
        self.queue_page = RecordsPage(self.error_queue, describe_queue_entry, queue_images,
                                      {"site": "sites", "reason": "reasons"})
        self.rejects_page = RecordsPage(self.rejects, describe_reject, fields={"file": "files"},
                                        tooltip=reject_tooltip)
        self.sample_note = QLabel(SAMPLE_REJECTS_NOTE)
        self.sample_note.setObjectName("sampleRejectsNote")
        self.sample_note.setWordWrap(True)
        self.sample_note.setVisible(False)
        self.rejects_page.page_layout.insertWidget(0, self.sample_note)
        self.sample_data: bool | None = None  # set by the caller that knows the data folder; None: guess
        self.convergence_page = ConvergencePage(self.convergence)
        self.overview = RunOverview()
        self.tabs = QTabWidget()
        for page, title in ((self.conflicts_page, "Conflicts"), (self.queue_page, "Error queue"),
                            (self.rejects_page, "Rejects"), (self.convergence_page, "Convergence"),
                            (self.overview, "Summary")):
            self.tabs.addTab(page, title)
        self.comparer = RunComparer(self)  # Compare with…: this run against another run directory
        self.requeuer = RunRequeuer(self)  # the error queue's Re-execute…: a new run with the current model
        self.banner_area = QScrollArea()  # a long story scrolls, and the splitter gives it more room
        self.banner_area.setWidgetResizable(True)
        self.banner_area.setFrameShape(QFrame.Shape.NoFrame)
        self.banner_area.setWidget(self.banner)
        top = QWidget()
        header = QHBoxLayout(top)
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.banner_area, 1)
        header.addWidget(self.comparer.button, 0, Qt.AlignmentFlag.AlignTop)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(top)
        self.split.addWidget(self.tabs)
        self.split.setStretchFactor(1, 1)
        self.split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.split)
        self.conflicts_page.sig_record_selected.connect(self.sig_conflict_selected)
        self.resize(1100, 750)
        self._show_data_tabs(False)
        if summary is not None:
            self.show_run(summary, rundir)

    # --- the filters and views, named for callers and tests ----------------------------------------
    @property
    def filter_edit(self) -> QLineEdit:
        return self.conflicts_page.filter_bar.text_edit

    @property
    def type_combo(self) -> QComboBox:
        return self.conflicts_page.filter_bar.combos["type"]

    @property
    def outcome_combo(self) -> QComboBox:
        return self.conflicts_page.filter_bar.combos["outcome"]

    # --- opening a run -----------------------------------------------------------------------------
    def load_run(self, path: Path) -> None:
        """Read the run directory at `path` off the GUI thread, then show it (`sig_run_opened`) or say why it
        cannot be read (`sig_open_failed`). Opening another run meanwhile supersedes this one: only the
        latest load is shown, whichever read finishes first."""
        path = Path(path)
        self._loads += 1
        number = self._loads
        self.banner.setText(f"<b>Loading {html.escape(str(path))}…</b>")
        self.setCursor(Qt.CursorShape.BusyCursor)
        reader = _RunReader(self)
        reader.sig_read.connect(self._loaded)  # a slot of the browser: queued to the GUI thread
        threading.Thread(target=reader.read, args=(number, path), name="mapwright-read-run", daemon=True).start()

    def loading(self) -> bool:
        """Whether a `load_run` is still reading."""
        return self._shown < self._loads

    def _loaded(self, number: int, path: Path, summary: RunSummary | None, error: BaseException | None) -> None:
        reader = self.sender()
        if isinstance(reader, _RunReader):
            reader.deleteLater()
        if number != self._loads:  # a later load superseded this one
            return
        self._shown = number
        self.unsetCursor()
        self._show_read(path, summary, error)

    def open_run(self, path: Path) -> RunSummary | None:
        """Read the run directory at `path` and show it; None (and `sig_open_failed`) when it cannot be read."""
        path = Path(path)
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            summary, error = _read(path)
        finally:
            QGuiApplication.restoreOverrideCursor()
        self._show_read(path, summary, error)
        return summary

    def _show_read(self, path: Path, summary: RunSummary | None, error: BaseException | None) -> None:
        if summary is None:
            self._show_unreadable(path, str(error), damaged=isinstance(error, RunDirDamaged))
        else:
            self.show_run(summary, path)

    def show_run(self, summary: RunSummary, rundir: Path | None = None) -> None:
        """Show a run already read."""
        self.summary, self.rundir = summary, rundir
        succeeded = summary.status == "succeeded"
        empty: list[Record] = []
        self.conflicts.set_records(summary.conflicts if succeeded else empty)
        self.error_queue.set_records(summary.error_queue if succeeded else empty)
        self.rejects.set_records(summary.rejects if succeeded else empty)
        self.convergence.set_records(summary.convergence if succeeded else empty)
        self.overview.show_summary(summary, rundir)
        self._show_data_tabs(succeeded)
        sample = self.sample_data if self.sample_data is not None else ran_on_bundled_sample(summary)
        self.sample_note.setVisible(succeeded and sample)
        self.banner.setText(self._headline(summary, rundir) + (" (bundled sample data: its rejects are "
                                                               "expected)" if succeeded and sample else "")
                            + story_html(story_lines(summary)))
        self._fit_banner()
        self.sig_run_opened.emit(summary)

    def _fit_banner(self) -> None:
        """The banner as tall as its text, up to `BANNER_LINES` lines: the rest scrolls (or the splitter is
        dragged), so the conflicts keep most of the window."""
        width = max(self.banner_area.viewport().width(), 400)
        most = BANNER_LINES * self.banner.fontMetrics().lineSpacing()
        wanted = min(self.banner.heightForWidth(width), most) + 4
        total = max(sum(self.split.sizes()), self.height())
        self.split.setSizes([wanted, max(total - wanted, 1)])

    def _headline(self, summary: RunSummary, rundir: Path | None) -> str:
        where = html.escape(str(rundir)) if rundir else "run"
        if summary.status != "succeeded":
            reason = html.escape(str(summary.manifest.get("reason") or "no reason given"))
            return f"<b>{where}: run {html.escape(summary.status)}</b> — {reason}"
        diverged = sum(1 for m in summary.convergence if is_diverged(m))
        converge = (f"{diverged} of {len(summary.convergence)} mappings diverged" if summary.convergence
                    else "no convergence data")
        headline = (f"<b>{where}</b>: succeeded — {len(summary.conflicts):,} conflicts, "
                    f"{len(summary.error_queue):,} queued, {len(summary.rejects):,} rejects; {converge}")
        return headline + attempt_note(summary.last_attempt)

    def _show_unreadable(self, path: Path, message: str, damaged: bool = False) -> None:
        self.summary, self.rundir = None, path
        for model in (self.conflicts, self.error_queue, self.rejects, self.convergence):
            model.set_records([])
        self.overview.show_error(message, "The run directory is damaged" if damaged else None)
        self._show_data_tabs(False)
        headline = f"{html.escape(str(path))} is damaged" if damaged else f"Cannot open {html.escape(str(path))}"
        self.banner.setText(f"<b>{headline}</b> — {html.escape(message)}")
        self.sig_open_failed.emit(message)

    def _show_data_tabs(self, visible: bool) -> None:
        counts = (("Conflicts", self.conflicts), ("Error queue", self.error_queue), ("Rejects", self.rejects))
        for index, (title, model) in enumerate(counts):
            self.tabs.setTabText(index, f"{title} ({model.rowCount():,})")
        diverged = sum(1 for m in self.convergence.records if is_diverged(m))
        self.tabs.setTabText(3, f"Convergence ({diverged} diverged)" if diverged else "Convergence")
        for index in range(4):
            self.tabs.setTabVisible(index, visible)
        self.tabs.setCurrentIndex(0 if visible else 4)
