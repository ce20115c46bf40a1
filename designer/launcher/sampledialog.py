"""Run ▸ Generate sample data…: the generator's knobs, an output folder, a progress bar and Stop.

A thin dialog over `engine.samplegen.generate_sample`, which runs off the GUI thread (`samplejob`). Enter
generates, Escape closes without a change (and stops a generation under way). When the data is written
the dialog accepts and `sig_generated(folder)` tells the Run panel its new data folder.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from designer.labels import plain_label
from designer.launcher.samplejob import BackgroundJob, start_job
from designer.launcher.widgets import named
from engine.model.schema import Model

ERROR_STYLE = "color: #c62828;"


def parse_outages(text: str) -> tuple[Any, ...]:
    """`SITE:HH:MM-HH:MM` entries, separated by commas or spaces; raises ValueError naming the bad one."""
    from engine.samplegen import Outage

    return tuple(Outage.parse(part) for part in text.replace(",", " ").split())


def default_options() -> Any:
    """The generator's own defaults (its `SampleOptions()`)."""
    from engine.samplegen import SampleOptions

    return SampleOptions()


class SampleJobDialog(QDialog):
    """What the sample dialogs share: an output folder, progress, Stop, one job at a time, and closing by any
    means stopping the job and dropping its outcome."""

    STOPS_WITH_WINDOW = True  # its designer window closing stops a running job

    sig_generated = Signal(str)  # the folder written

    def __init__(self, title: str, out_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.job: BackgroundJob | None = None
        self.summary: Any = None
        self.out_edit = named(QLineEdit(str(out_dir)), "sampleOutEdit")
        self.out_browse = named(QPushButton("Browse…"), "sampleOutBrowse")
        self.out_browse.setAutoDefault(False)
        self.out_browse.clicked.connect(self._browse_out)
        self.progress = named(QProgressBar(minimum=0, maximum=1, value=0, textVisible=True), "sampleProgress")
        self.progress.setFormat("idle")
        self.status = plain_label(wrap=True)  # quotes folders and the engine's messages: never markup
        self.status.setObjectName("sampleStatus")
        self.buttons = QDialogButtonBox()
        self.start_button = self.buttons.addButton(self.start_text(), QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setObjectName("sampleStart")
        self.stop_button = self.buttons.addButton("Stop", QDialogButtonBox.ButtonRole.ActionRole)
        self.stop_button.setObjectName("sampleStop")
        self.stop_button.setAutoDefault(False)
        self.stop_button.setEnabled(False)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.close_button.setAutoDefault(False)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.close_button.clicked.connect(self.reject)

    def start_text(self) -> str:
        return "Generate"

    def out_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(self.out_edit, 1)
        row.addWidget(self.out_browse)
        return row

    def finish_layout(self, form: QFormLayout) -> QVBoxLayout:
        form.addRow("Output folder", self.out_row())
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        return layout

    # -- to be given by each dialog

    def make_job(self, out: Path) -> Callable[[Callable[[str, int, int], None], threading.Event], Any] | None:
        """The work to run for `out`, or None after saying (`say`) what is wrong with the fields."""
        raise NotImplementedError

    def editable(self) -> list[QWidget]:
        return [self.out_edit, self.out_browse]

    # -- the job

    def out_dir(self) -> Path | None:
        text = self.out_edit.text().strip()
        if not text:
            self.say("Choose the output folder.", error=True)
            return None
        folder = Path(text).expanduser().absolute()
        if folder.exists() and not folder.is_dir():
            self.say(f"{folder} is a file: choose a folder.", error=True)
            return None
        return folder

    def start(self) -> None:
        """Generate (the default button: Enter)."""
        if self.job is not None:
            return
        out = self.out_dir()
        work = self.make_job(out) if out is not None else None
        if out is None or work is None:
            return
        self.summary = None
        self._busy(True)
        self.say(f"Writing {out}…")
        self.job = start_job(work, self._progress, self._done, self._failed, self._cancelled)

    def stop(self) -> None:
        """Stop the job under way; the dialog stays open to say so."""
        if self.job is not None:
            self.job.stop()
            self.stop_button.setEnabled(False)
            self.say("Stopping…")

    def is_running(self) -> bool:
        return self.job is not None

    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.job is None:
            return
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(min(done, max(total, 1)))
        self.progress.setFormat(f"{stage} — %p%")

    def _done(self, summary: object) -> None:
        if self.job is None:
            return
        self.job = None
        self.summary = summary
        self._busy(False)
        folder = str(getattr(summary, "out", "") or self.out_edit.text().strip())
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.progress.setFormat("done")
        self.say(f"Wrote {folder}")
        self.sig_generated.emit(folder)
        if self.keep_open():
            self.close_button.setText("Close")
        else:
            self.accept()

    def keep_open(self) -> bool:
        """Whether the dialog stays open once the data is written (it has something more to show)."""
        return False

    def _failed(self, message: str) -> None:
        if self.job is None:
            return
        self.job = None
        self._busy(False)
        self.progress.setFormat("failed")
        self.say(message, error=True)

    def _cancelled(self) -> None:
        if self.job is None:
            return
        self.job = None
        self._busy(False)
        self.progress.setFormat("stopped")
        self.say("Stopped: the sample data was not written.")

    def _busy(self, busy: bool) -> None:
        for widget in self.editable():
            widget.setEnabled(not busy)
        self.start_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        if busy:
            self.progress.setRange(0, 0)  # busy until the first progress report
            self.progress.setFormat("starting")

    def say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(ERROR_STYLE if error else "")

    def done(self, result: int) -> None:
        """Closing by any means (Escape, Cancel, the window's close) stops a job under way."""
        job, self.job = self.job, None
        if job is not None:
            job.stop()
            worker = job.worker
            for signal in (worker.sig_progress, worker.sig_done, worker.sig_failed, worker.sig_cancelled):
                signal.disconnect()
        super().done(result)

    def _browse_out(self) -> None:
        start = self.out_edit.text().strip()
        chosen = QFileDialog.getExistingDirectory(self, "Folder for the sample data", str(Path(start).parent)
                                                  if start else "")
        if chosen:
            self.out_edit.setText(chosen)


class SampleDialog(SampleJobDialog):
    """Generate sample data for the model: seed, rows per table, changes, conflict and malformed rates,
    outages, Debezium format."""

    def __init__(self, model: Model, out_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__("Generate sample data", out_dir, parent)
        self.model = model
        defaults = default_options()
        self.seed = _spin(named(QSpinBox(), "sampleSeed"), 0, 2**31 - 1, int(defaults.seed))
        self.rows = _spin(named(QSpinBox(), "sampleRows"), 0, 10_000_000, int(defaults.rows))
        self.changes = _spin(named(QSpinBox(), "sampleChanges"), 0, 100_000_000, int(defaults.changes))
        self.conflict_rate = _rate(named(QDoubleSpinBox(), "sampleConflictRate"), float(defaults.conflict_rate))
        self.malformed_rate = _rate(named(QDoubleSpinBox(), "sampleMalformedRate"),
                                    float(defaults.malformed_rate))
        self.outages = named(QLineEdit(placeholderText="SITE:HH:MM-HH:MM, … (a site's link down that day)"),
                             "sampleOutages")
        self.outages.setText(" ".join(_outage_text(o) for o in defaults.outages))
        self.debezium = named(QCheckBox("Debezium change events (instead of change records)"), "sampleDebezium")
        self.debezium.setChecked(bool(defaults.debezium))
        form = QFormLayout()
        form.addRow("Seed", self.seed)
        form.addRow("Rows per table", self.rows)
        form.addRow("Changes", self.changes)
        form.addRow("Conflict rate", self.conflict_rate)
        form.addRow("Malformed rate", self.malformed_rate)
        form.addRow("Outages", self.outages)
        form.addRow("Format", self.debezium)
        self.finish_layout(form)
        self.resize(560, self.sizeHint().height())

    def editable(self) -> list[QWidget]:
        return [self.seed, self.rows, self.changes, self.conflict_rate, self.malformed_rate, self.outages,
                self.debezium, *super().editable()]

    def options(self) -> Any:
        """The knobs as `SampleOptions`; raises ValueError (an outage that does not parse)."""
        from engine.samplegen import SampleOptions

        return SampleOptions(seed=self.seed.value(), rows=self.rows.value(), changes=self.changes.value(),
                             conflict_rate=self.conflict_rate.value(), malformed_rate=self.malformed_rate.value(),
                             outages=parse_outages(self.outages.text()), debezium=self.debezium.isChecked())

    def make_job(self, out: Path) -> Callable[[Callable[[str, int, int], None], threading.Event], Any] | None:
        from engine.samplegen import generate_sample

        try:
            options = self.options()
        except ValueError as exc:
            self.say(f"Outages: {exc}", error=True)
            self.outages.setFocus()
            return None
        model = self.model
        return lambda progress, cancel: generate_sample(model, out, options, progress=progress, cancel=cancel)


def _spin(box: QSpinBox, low: int, high: int, value: int) -> QSpinBox:
    box.setRange(low, high)
    box.setValue(value)
    box.setGroupSeparatorShown(True)
    return box


def _rate(box: QDoubleSpinBox, value: float) -> QDoubleSpinBox:
    box.setRange(0.0, 1.0)
    box.setDecimals(3)
    box.setSingleStep(0.01)
    box.setValue(value)
    return box


def _outage_text(outage: Any) -> str:
    return f"{outage.site}:{outage.start:%H:%M}-{outage.end:%H:%M}"
