"""Where a preview's sample data comes from: generated, sampled from a database, or a folder chosen.

`DataSources` opens the three ways for the Run panel (each a window-modal dialog, so the GUI stays live
and tests drive it) and reports the folder each one ends with as `sig_data_ready(folder)`. `ask()` is F5's
question on a model with no data: which of the three, instead of a run that cannot start.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QPushButton, QVBoxLayout, QWidget

from designer.labels import plain_label
from designer.launcher.settings import default_sample_dir
from engine.model.schema import Model

GENERATE, DATABASE, FOLDER = "generate", "database", "folder"
CHOICE_TEXT = {GENERATE: "Generate sample data…", DATABASE: "Sample from database…", FOLDER: "Use a folder…"}


class DataChoiceDialog(QDialog):
    """F5 with no sample data: the three ways to get some. Enter generates, Escape runs nothing."""

    def __init__(self, reason: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sample data to run on")
        self.choice: str | None = None
        text = plain_label(f"This model has no sample data to run on ({reason}). Where should it come from?",
                           wrap=True)  # the reason quotes a folder the user typed: never markup
        self.buttons = QDialogButtonBox()
        self.choice_buttons: dict[str, QPushButton] = {}
        for key, label in CHOICE_TEXT.items():
            button = self.buttons.addButton(label, QDialogButtonBox.ButtonRole.AcceptRole)
            button.setObjectName(f"choose-{key}")
            button.clicked.connect(lambda _checked=False, k=key: self._choose(k))
            self.choice_buttons[key] = button
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.clicked.connect(self.reject)
        self.choice_buttons[GENERATE].setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.buttons)

    def _choose(self, key: str) -> None:
        self.choice = key
        self.accept()


class DataSources(QObject):
    """The Run panel's ways to sample data; `sig_data_ready(folder)` when one has given a folder,
    `sig_declined()` when the user closed one without."""

    sig_data_ready = Signal(str)
    sig_declined = Signal()

    def __init__(self, parent: QWidget, model: Callable[[], Model | None], model_path: Callable[[], Path | None],
                 settings: QSettings, current_folder: Callable[[], str]) -> None:
        super().__init__(parent)
        self._widget = parent
        self._model, self._model_path = model, model_path
        self._settings, self._current = settings, current_folder
        self.dialog: QDialog | None = None  # the one open, for tests and for the window's close

    def ask(self, reason: str) -> DataChoiceDialog:
        """Which of the three, for a model with no data (`reason`: why the current folder will not do)."""
        dialog = DataChoiceDialog(reason, self._widget)
        dialog.finished.connect(lambda _result: self._chosen(dialog))
        self._show(dialog)
        return dialog

    def _chosen(self, dialog: DataChoiceDialog) -> None:
        if dialog.choice == GENERATE:
            self.generate()
        elif dialog.choice == DATABASE:
            self.from_database()
        elif dialog.choice == FOLDER:
            self.use_folder()
        else:
            self.sig_declined.emit()

    def generate(self) -> QDialog | None:
        from designer.launcher.sampledialog import SampleDialog

        model = self._model()
        if model is None:
            return None
        return self._open(SampleDialog(model, default_sample_dir(self._model_path()), self._widget))

    def from_database(self) -> QDialog | None:
        from designer.launcher.sourcedialog import SourceDialog

        model = self._model()
        if model is None:
            return None
        return self._open(SourceDialog(model, default_sample_dir(self._model_path()), self._settings, self._widget))

    def use_folder(self) -> None:
        current = self._current()
        start = current if current and Path(current).expanduser().is_dir() else ""
        chosen = QFileDialog.getExistingDirectory(self._widget, "Sample data folder", start)
        if chosen:
            self.sig_data_ready.emit(chosen)
        else:
            self.sig_declined.emit()

    def _open(self, dialog: QDialog) -> QDialog:
        generated: list[str] = []
        dialog.sig_generated.connect(generated.append)  # type: ignore[attr-defined]
        dialog.sig_generated.connect(self.sig_data_ready)  # type: ignore[attr-defined]
        dialog.finished.connect(lambda _result: None if generated else self.sig_declined.emit())
        self._show(dialog)
        return dialog

    def _show(self, dialog: QDialog) -> None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(lambda _obj=None, gone=dialog: self._forget(gone))
        self.dialog = dialog
        dialog.open()  # window-modal: the model cannot change under it

    def _forget(self, gone: QDialog) -> None:
        if self.dialog is gone:
            self.dialog = None
