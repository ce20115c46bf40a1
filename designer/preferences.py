"""Edit ▸ Preferences: the defaults a user sets once, kept in the window's QSettings (group `PREFERENCES`).

Each value is read where it is used: the Spark master and the engine by `LauncherSettings.load` (for a model
that has chosen none), the autosave interval by the window's `Autosaver`, the driver memory and the runs
folder through the environment (`MAPWRIGHT_DRIVER_MEMORY`, `MAPWRIGHT_RUNS_DIR`), so the runs the designer
starts, in its process or in a child, use them too. An empty field keeps the built-in default.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from designer.autosave import Autosaver
from designer.labels import form_row, plain_label
from designer.launcher.settings import (
    AUTO,
    DEFAULT_MASTER,
    INPROCESS,
    PREFERENCES,
    RUNS_DIR_ENV,
    SPARK_LOCAL,
    preference,
)
from engine.spark.memory import DRIVER_MEMORY
from engine.spark.session import MasterError, parse_master

ENGINES = {AUTO: "Auto", INPROCESS: "In process", SPARK_LOCAL: "Spark local"}
AUTOSAVE_SECONDS = 60  # the periodic autosave of an unsaved model (`Autosaver`'s own default)
MEMORY_ENV = "MAPWRIGHT_DRIVER_MEMORY"
_MEMORY = re.compile(r"[1-9][0-9]{0,5}[kmgt]?", re.IGNORECASE)


@dataclass(frozen=True)
class Preferences:
    """What Edit ▸ Preferences sets; "" is the built-in default."""

    master: str = ""
    driver_memory: str = ""
    engine: str = AUTO
    runs_dir: str = ""
    autosave_seconds: int = AUTOSAVE_SECONDS


def load(settings: QSettings) -> Preferences:
    engine = preference(settings, "engine", AUTO)
    try:
        seconds = int(preference(settings, "autosaveSeconds", str(AUTOSAVE_SECONDS)))
    except ValueError:  # an ini file edited by hand
        seconds = AUTOSAVE_SECONDS
    return Preferences(preference(settings, "master"), preference(settings, "driverMemory"),
                       engine if engine in ENGINES else AUTO, preference(settings, "runsDir"),
                       min(max(seconds, 5), 3600))


def save(settings: QSettings, prefs: Preferences) -> None:
    for name, value in (("master", prefs.master), ("driverMemory", prefs.driver_memory), ("engine", prefs.engine),
                        ("runsDir", prefs.runs_dir), ("autosaveSeconds", str(prefs.autosave_seconds))):
        settings.setValue(f"{PREFERENCES}/{name}", value)
    settings.sync()


_set_by_us: dict[str, str] = {}  # the environment variables `apply_environment` set (and so may take back)


def apply_environment(prefs: Preferences) -> None:
    """The driver memory and the runs folder, for what this process and its children start from now on. A value
    cleared takes back only what a preference had set (never a variable the user exported)."""
    for name, value in ((MEMORY_ENV, prefs.driver_memory), (RUNS_DIR_ENV, prefs.runs_dir)):
        if value:
            os.environ[name] = _set_by_us[name] = value
        elif name in _set_by_us and os.environ.get(name) == _set_by_us.pop(name):
            del os.environ[name]


def problem(prefs: Preferences) -> str | None:
    """Why `prefs` cannot be kept, in one line naming the field; None when they can."""
    if prefs.master:
        try:
            kind = parse_master(prefs.master).kind
        except MasterError as exc:
            return f"Spark master: {exc}"
        if kind != "local":
            return f"Spark master: {prefs.master!r} is a cluster (the default is a local master: local[N] or local[*])"
    if prefs.driver_memory and not _MEMORY.fullmatch(prefs.driver_memory):
        return f"driver memory: {prefs.driver_memory!r} is not a size such as 2g or 4096m"
    if prefs.runs_dir and not Path(prefs.runs_dir).expanduser().is_absolute():
        return f"runs folder: {prefs.runs_dir!r} is not an absolute path"
    return None


class PreferencesDialog(QDialog):
    """The preferences as fields; OK (or Enter) keeps them when `problem` finds nothing to say."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preferences")
        self.setWindowTitle("Preferences — Mapwright")
        self.settings = settings
        prefs = load(settings)
        self.master = QLineEdit(prefs.master)
        self.master.setPlaceholderText(DEFAULT_MASTER)
        self.memory = QLineEdit(prefs.driver_memory)
        self.memory.setPlaceholderText(DRIVER_MEMORY)
        self.engine = QComboBox()
        for key, label in ENGINES.items():
            self.engine.addItem(label, key)
        self.engine.setCurrentIndex(list(ENGINES).index(prefs.engine))
        self.runs = QLineEdit(prefs.runs_dir)
        self.runs.setPlaceholderText("runs/ beside the model")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        runs_row = QHBoxLayout()
        runs_row.addWidget(self.runs, 1)
        runs_row.addWidget(browse)
        self.autosave = QSpinBox()
        self.autosave.setRange(5, 3600)
        self.autosave.setSuffix(" s")
        self.autosave.setValue(prefs.autosave_seconds)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        for label, field in (("Default Spark master", self.master), ("Driver memory", self.memory),
                             ("Default engine", self.engine), ("Runs folder", runs_row),
                             ("Autosave an unsaved model every", self.autosave)):
            form_row(form, label, field)
        note = plain_label("These are defaults: a model keeps its own Run choices once it has run. An empty field "
                           "keeps the built-in default.", wrap=True)
        self.problem_label = plain_label(wrap=True)
        self.problem_label.setStyleSheet("color: #d32f2f")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)
        for line in (self.master, self.memory, self.runs):
            line.textChanged.connect(self._check)
        self.resize(max(460, self.sizeHint().width()), self.sizeHint().height())

    def values(self) -> Preferences:
        return Preferences(self.master.text().strip(), self.memory.text().strip().lower(),
                           str(self.engine.currentData()), self.runs.text().strip(), self.autosave.value())

    def _check(self) -> str | None:
        why = problem(self.values())
        self.problem_label.setText(why or "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(why is None)
        return why

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Where runs are kept", self.runs.text().strip())
        if chosen:
            self.runs.setText(chosen)

    def accept(self) -> None:
        """Kept and applied only when valid: Enter on a field with a problem leaves the dialog open."""
        if self._check() is not None:
            return
        save(self.settings, self.values())
        apply_environment(self.values())
        super().accept()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        self.master.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


def open_for(window: QWidget, settings: QSettings, autosaver: Autosaver) -> PreferencesDialog:
    """Edit ▸ Preferences: a window-modal dialog (it never blocks the event loop). The values kept on OK (or
    Enter) apply to `autosaver` at once; the rest are read where they are next used."""
    dialog = PreferencesDialog(settings, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.accepted.connect(lambda: autosaver.set_interval(load(settings).autosave_seconds * 1000))
    dialog.show()
    return dialog
