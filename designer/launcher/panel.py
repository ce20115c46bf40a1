"""The run launcher panel: choose the engine, the sample data and the output, Run and Cancel, watch progress
and the log. The sample data is a folder, or made here (generated, or sampled from a database: datachoice)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.labels import plain_label, plain_tip
from designer.launcher.datachoice import DataSources
from designer.launcher.enginechoice import EngineChoice
from designer.launcher.events import overall_percent
from designer.launcher.runner import Runner, RunProcess, RunRequest
from designer.launcher.settings import (
    AUTO,
    DEFAULT_MASTER,
    SAMPLE_DATA_NOTE,
    SPARK_LOCAL,
    LauncherSettings,
    RunChoices,
    default_out_dir,
    is_bundled_sample_data,
)
from engine.model import ModelLoadError, load_model
from engine.model.schema import Model
from engine.run.rundir.layout import is_run_directory, run_status
from engine.run.rundir.publish import out_dir_problem

LOG_LINES = 10_000
ENGINE_WORDS = {"inprocess": "in process", "spark": "on Spark"}
_ERROR_STYLE = "color: #c62828;"

RunnerFactory = Callable[[QObject | None], Runner]
_W = TypeVar("_W", bound=QWidget)


class RunLauncher(QWidget):
    """Runs the current model on sample data as a separate `mapwright run` process.

    `model_path` is asked for the model to run, `model` for the model to make sample data for (the
    window's document; by default the file read); call `model_changed()` when it changes, so the choices
    remembered for that model come back. `sig_run_finished(status, out_dir)` lets the main window open
    the run in the conflict browser; `sig_spark_wanted(master)` says a warm Spark session on that local
    master is wanted (the user picked Spark local, or such a run starts): Auto and In process never ask.
    """

    sig_run_finished = Signal(str, str)
    sig_spark_wanted = Signal(str)

    def __init__(self, model_path: Callable[[], Path | None], runner_factory: RunnerFactory = RunProcess,
                 settings: QSettings | None = None, parent: QWidget | None = None,
                 confirm_run: Callable[[], bool] | None = None,
                 model: Callable[[], Model | None] | None = None) -> None:
        super().__init__(parent)
        self._model_path = model_path
        self._confirm_run = confirm_run  # e.g. the window saving unsaved edits first; False: do not run
        self._settings = LauncherSettings(settings)
        self._model_of = model or self._model_from_file
        self._run_when_data = False  # F5 asked for data: run once it is there
        self.last_engine = ""  # the engine the last run ran on, from its manifest
        self._model: Path | None = None
        self._auto_out = ""
        self._loading = False
        self._running = False
        self._runner_cancellable = False  # until Cancel is pressed
        self._request: RunRequest | None = None
        self._last_stage: tuple[str, int, int] | None = None  # logged once: a run repeats its stage events
        self._build()
        self._runner = runner_factory(self)
        self._runner.sig_stage.connect(self._on_stage)
        self._runner.sig_log.connect(self.append_log)
        self._runner.sig_finished.connect(self._on_finished)
        self.model_changed()

    def _build(self) -> None:
        self.engine_choice = _named(EngineChoice(), "engineChoice")
        self.engine_combo, self.master_combo = self.engine_choice.engine_combo, self.engine_choice.master_combo
        self.cluster_edit, self.master_error = self.engine_choice.cluster_edit, self.engine_choice.master_error
        self.data_edit = _named(QLineEdit(placeholderText="snapshots/, changes/, schedule.json"), "dataEdit")
        self.data_error = _error_label("dataError")
        self.data_browse = _named(QPushButton("Use a folder…"), "dataBrowse")
        self.generate_button = _named(QPushButton("Generate sample data…"), "generateData")
        self.database_button = _named(QPushButton("Sample from database…"), "sampleDatabase")
        self.sources = DataSources(self, lambda: self._model_of(), self._model_path, self._settings.qsettings,
                                   lambda: self.data_edit.text().strip())
        self.out_edit = _named(QLineEdit(placeholderText="the run directory to write"), "outEdit")
        self.out_browse = _named(QPushButton("Browse…"), "outBrowse")
        self.out_error = _error_label("outError")
        self.run_button = _named(QPushButton("Run"), "runButton")
        self.cancel_button = _named(QPushButton("Cancel"), "cancelButton")
        self.cancel_button.setEnabled(False)
        self.spark_again_button = _named(QPushButton("Run again on Spark"), "sparkAgainButton")
        self.spark_again_button.setToolTip("The same model and data, on Spark local (the last run ran in process)")
        self.spark_again_button.setVisible(False)
        self.progress = _named(QProgressBar(minimum=0, maximum=100, value=0, textVisible=True), "runProgress")
        self.progress.setFormat("idle")
        self.status_label = _named(plain_label("Ready", wrap=True), "runStatus")  # quotes paths and run errors
        self.blocker_label = _named(plain_label(wrap=True), "runBlocker")  # why Run is disabled, in words
        self.sample_note = _named(QLabel(SAMPLE_DATA_NOTE, wordWrap=True), "sampleDataNote")
        self.sample_note.setVisible(False)
        self.log_view = _named(QPlainTextEdit(readOnly=True, maximumBlockCount=LOG_LINES), "runLog")

        form = QFormLayout()
        form.addRow("Engine", self.engine_choice)
        form.addRow("Sample data", _stacked(self.data_edit, _row(self.generate_button, self.database_button,
                                                                 self.data_browse, stretch_first=False),
                                            self.data_error, self.sample_note))
        form.addRow("Output", _stacked(_row(self.out_edit, self.out_browse), self.out_error))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(_row(self.run_button, self.cancel_button, self.spark_again_button, self.blocker_label,
                              stretch_first=False))
        layout.addWidget(self.progress)
        layout.addWidget(self.status_label)
        layout.addWidget(self.log_view, 1)

        self.engine_choice.sig_changed.connect(self._on_choice_edited)
        self.engine_combo.activated.connect(self._on_engine_picked)
        self.data_edit.textChanged.connect(self._on_choice_edited)
        self.out_edit.textChanged.connect(self._update_enabled)
        self.data_browse.clicked.connect(self.sources.use_folder)
        self.generate_button.clicked.connect(self.sources.generate)
        self.database_button.clicked.connect(self.sources.from_database)
        self.sources.sig_data_ready.connect(self._data_ready)
        self.sources.sig_declined.connect(self._data_declined)
        self.spark_again_button.clicked.connect(self.run_again_on_spark)
        self.out_browse.clicked.connect(self._browse_out)
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel_run)

    # -- the model and its remembered choices

    def model_saved_as(self) -> None:
        """The same model now lives in another file (Save As): it keeps the choices in use, unless that file
        has choices of its own, so the sample data chosen a moment ago is not lost."""
        current = self._choices()
        new = self._model_path()
        if new is not None and not self._settings.knows(new) and current.data_dir and self._master_problem() is None:
            self._settings.save(new, current)
        self.model_changed()

    def model_changed(self) -> None:
        """Load the choices remembered for the current model and propose a fresh output folder."""
        self._model = self._model_path()
        self._loading = True
        try:
            choices = self._settings.load(self._model) if self._model else RunChoices(DEFAULT_MASTER, "", AUTO)
            self.engine_choice.set_choices(choices.engine, choices.master, choices.cluster)
            self.data_edit.setText(choices.data_dir)
            self.spark_again_button.setVisible(False)
            self._auto_out = str(default_out_dir(self._model)) if self._model else ""
            self.out_edit.setText(self._auto_out)
        finally:
            self._loading = False
        self._update_enabled()

    def _on_choice_edited(self) -> None:
        self._update_enabled()
        if not self._loading and self._model is not None and self._master_problem() is None:
            self._settings.save(self._model, self._choices())

    def _on_engine_picked(self, _index: int) -> None:
        """The user picked an engine: Spark local warms a session now, so the first run does not wait."""
        if self.engine_choice.choice() == SPARK_LOCAL and self._master_problem() is None:
            self.sig_spark_wanted.emit(self.engine_choice.local_master())

    def _choices(self) -> RunChoices:
        choice = self.engine_choice
        return RunChoices(choice.local_master() or DEFAULT_MASTER, self.data_edit.text().strip(), choice.choice(),
                          choice.cluster())

    def _master(self) -> str:
        return self.engine_choice.run_master() or DEFAULT_MASTER

    def _master_problem(self) -> str | None:
        return self.engine_choice.problem()

    def _data_problem(self) -> str | None:
        text = self.data_edit.text().strip()
        if not text:
            return "choose the sample data folder"
        return None if Path(text).expanduser().is_dir() else f"{text}: no such folder"

    def _out_problem(self) -> str | None:
        text = self.out_edit.text().strip()
        if not text:
            return "choose the output folder"
        return out_dir_problem(Path(text).expanduser().absolute())

    def _update_enabled(self) -> None:
        master, data, out = self._master_problem(), self._data_problem(), self._out_problem()
        _show_error(self.data_error, data if self.data_edit.text().strip() else None)
        _show_error(self.out_error, out if self.out_edit.text().strip() else None)
        blocker = ("open or save a model to run it" if self._model is None else None) or master or data or out
        idle = not self._running
        self.run_button.setEnabled(idle and blocker is None)
        self.run_button.setToolTip(plain_tip(blocker or "run the model on the sample data (mapwright run)"))
        _show_error(self.blocker_label, f"To run: {blocker}" if idle and blocker else None)
        self.sample_note.setVisible(is_bundled_sample_data(self.data_edit.text().strip()))
        self.cancel_button.setEnabled(self._running and self._runner_cancellable)
        for widget in (self.engine_choice, self.data_edit, self.data_browse, self.out_edit, self.out_browse,
                       self.generate_button, self.database_button):
            widget.setEnabled(idle)
        self.spark_again_button.setEnabled(idle and self._model is not None and data is None and out is None)

    # -- running

    @property
    def runner(self) -> Runner:
        """The runner behind the panel (its signals carry the raw progress events)."""
        return self._runner

    def is_running(self) -> bool:
        return self._running

    def start_run(self) -> None:
        """Start a run with the current choices (the Run button)."""
        if self._running:
            return
        if self._model_path() != self._model:  # the main window switched models without telling us
            self.model_changed()
            self._set_status("Loaded the choices for this model; press Run again")
            return
        if not self.run_button.isEnabled():
            return
        if self._confirm_run is not None and not self._confirm_run():
            self._set_status("Not run: the model has unsaved changes")
            return
        assert self._model is not None
        request = RunRequest(self._model, Path(self.data_edit.text().strip()).expanduser(),
                             Path(self.out_edit.text().strip()).expanduser(), self._master(),
                             self.engine_choice.run_engine())
        self._settings.save(self._model, self._choices())
        self._request = request
        self.spark_again_button.setVisible(False)
        self._running, self._runner_cancellable = True, True
        self.log_view.clear()
        self._last_stage = None
        self.progress.setValue(0)
        self.progress.setFormat("start — %p%")
        self._set_status(f"Running {self._model.name} {self.engine_choice.describe()}…")
        self._update_enabled()
        if self.engine_choice.choice() == SPARK_LOCAL:
            self.sig_spark_wanted.emit(request.master)  # before the run, so the warm session can take it
        self._runner.start(request)

    def run_or_choose_data(self) -> None:
        """F5: run; on a model with no sample data (none chosen, or the folder is gone), ask where it should
        come from first, and run once it is there."""
        if self._model_path() == self._model and self._model is not None and not self._running:
            reason = self._data_problem()
            if reason is not None:
                self._run_when_data = True
                self.sources.ask(reason)
                return
        self.start_run()

    def run_again_on_spark(self) -> None:
        """One click after an in-process run: the same run on Spark local."""
        index = self.engine_combo.findData(SPARK_LOCAL)
        self.engine_combo.setCurrentIndex(index)
        self._on_engine_picked(index)
        self.start_run()

    def _data_ready(self, folder: str) -> None:
        self.data_edit.setText(folder)
        self._set_status(f"Sample data: {folder}")
        if self._run_when_data:
            self._run_when_data = False
            self.start_run()

    def _data_declined(self) -> None:
        self._run_when_data = False

    def cancel_run(self) -> None:
        """Ask the run to stop (the Cancel button); the outcome arrives with the finished signal."""
        if not self._running:
            return
        self._runner_cancellable = False
        self._set_status("Cancelling…")
        self._update_enabled()
        self._runner.cancel()

    def append_log(self, line: str) -> None:
        self.log_view.appendPlainText(line)

    def _on_stage(self, stage: str, done: int, total: int) -> None:
        self.progress.setValue(max(self.progress.value(), overall_percent(stage, done, total)))
        self.progress.setFormat(f"{stage} — %p%")
        if (stage, done, total) != self._last_stage:
            self._last_stage = (stage, done, total)
            self.append_log(f"stage {stage} ({done}/{total})")
        if self._runner_cancellable:
            self._set_status(f"Running: {stage}")

    def _on_finished(self, status: str, out_dir: str, reason: str) -> None:
        self._running = self._runner_cancellable = False
        self.last_engine = _run_engine(out_dir)
        ran = f" {ENGINE_WORDS[self.last_engine]}" if self.last_engine in ENGINE_WORDS else ""
        if status == "succeeded":
            self.progress.setValue(self.progress.maximum())
            self._set_status(f"Succeeded{ran}: {out_dir}")
            self.append_log(f"run {status}")
        else:
            where = self._where_the_reason_is(out_dir, status)
            text = (f"{status.capitalize()}: {reason}" if reason else status.capitalize()) + where
            self._set_status(text, error=status == "failed")
            self.append_log(f"run {status}" + (f": {reason}" if reason else "") + where)
        self.progress.setFormat(f"{status} — %p%")
        if self._model is not None and self.out_edit.text() == self._auto_out:
            self._auto_out = str(default_out_dir(self._model, datetime.now()))
            self.out_edit.setText(self._auto_out)
        self.spark_again_button.setVisible(status == "succeeded" and self.last_engine == "inprocess")
        self._update_enabled()
        self.sig_run_finished.emit(status, out_dir)

    def _where_the_reason_is(self, folder: str, status: str) -> str:
        """`(details in …/manifest.json; the earlier run in … is kept)`, as far as it applies."""
        if not folder or run_status(Path(folder)) != status:
            return ""  # no manifest of this run (it ended before writing one): do not point at another
        manifest = Path(folder) / "manifest.json"
        requested = self._request.out_dir.absolute() if self._request else None
        kept = requested is not None and Path(folder).absolute() != requested and is_run_directory(requested)
        return f" (details in {manifest}" + (f"; the earlier run in {requested} is kept)" if kept else ")")

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status_label.setText(text)
        self.status_label.setStyleSheet(_ERROR_STYLE if error else "")

    # -- folders

    def _model_from_file(self) -> Model | None:
        path = self._model_path()
        try:
            return load_model(path) if path is not None else None
        except ModelLoadError as exc:
            self._set_status(str(exc), error=True)
            return None

    def _browse_out(self) -> None:
        start = self.out_edit.text().strip()
        chosen = QFileDialog.getExistingDirectory(self, "Run directory", str(Path(start).parent) if start else "")
        if not chosen:
            return
        folder = Path(chosen)
        # A run may only replace an empty folder or an earlier run: put it inside anything else.
        if self._model is not None and out_dir_problem(folder) is not None:
            folder = folder / default_out_dir(self._model).name
        self.out_edit.setText(str(folder))


def _run_engine(folder: str) -> str:
    """`run_engine` of the run's manifest ("inprocess" or "spark"), "" when it says none."""
    try:
        doc = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8")) if folder else {}
    except (OSError, ValueError):
        return ""
    return str(doc.get("run_engine") or "") if isinstance(doc, dict) else ""


def _named(widget: _W, name: str) -> _W:
    widget.setObjectName(name)
    return widget


def _error_label(name: str) -> QLabel:
    label = _named(plain_label(wrap=True), name)  # quotes the folder or master the user typed
    label.setStyleSheet(_ERROR_STYLE)
    label.setVisible(False)
    return label


def _show_error(label: QLabel, text: str | None) -> None:
    label.setText(text or "")
    label.setVisible(bool(text))


def _stacked(*widgets: QWidget | QHBoxLayout) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        if isinstance(w, QHBoxLayout):
            layout.addLayout(w)
        else:
            layout.addWidget(w)
    return box


def _row(*widgets: QWidget, stretch_first: bool = True) -> QHBoxLayout:
    layout = QHBoxLayout()
    for i, w in enumerate(widgets):
        layout.addWidget(w, 1 if stretch_first and i == 0 else 0)
    if not stretch_first:
        layout.addStretch(1)
    return layout
