"""The questions File ▸ Export asks before it writes: the DDL's dialect and server, and an export folder.

The DDL dialog offers what `mapwright export --to ddl --dialect --server` takes. The folder dialog takes a
folder that does not exist yet (the export creates it, as the command line does): Qt's folder dialog refused
one typed there with "Directory not found", so the folder is a line to type in, with Browse… for an existing
one.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.labels import form_row, plain_label
from engine.model.io import one_line
from engine.model.schema import Model

DIALECTS: list[tuple[str, str | None]] = [
    ("Each server's own (from its DBMS)", None), ("PostgreSQL", "postgresql"), ("Oracle", "oracle"),
    ("SQL Server", "sqlserver"), ("MySQL / MariaDB", "mysql"), ("SQLite", "sqlite"), ("Db2", "db2")]
"""The DDL dialects offered, each with its `--dialect` name (None: each server's, the default)."""


class DdlOptionsDialog(QDialog):
    """Export ▸ ddl: the dialect (each server's own, or one for all) and the tables (every table a mapping
    writes to, or every table of one server)."""

    def __init__(self, model: Model, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export DDL")
        self.dialect = QComboBox()
        for label, name in DIALECTS:
            self.dialect.addItem(label, name)
        self.server = QComboBox()
        self.server.addItem("Every table a mapping writes to", None)
        for server in model.servers:  # a server's id is the user's string: one line, shown as it is
            self.server.addItem(f"Every table of server {one_line(server.id)} ({server.dbms})", server.id)
        form = QFormLayout()
        form_row(form, "SQL dialect", self.dialect)
        form_row(form, "Tables", self.server)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.dialect.setFocus()

    def choice(self) -> tuple[str | None, str | None]:
        """The `--dialect` and `--server` chosen (None: the default)."""
        return self.dialect.currentData(), self.server.currentData()


def ddl_options(parent: QWidget, model: Model, ask: bool) -> tuple[str | None, str | None] | None:
    """The dialect and server to export DDL with; None when the user cancelled. A window that may not ask
    exports with the defaults (each server's dialect, every table a mapping writes to)."""
    if not ask:
        return None, None
    dialog = DdlOptionsDialog(model, parent)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    chosen = dialog.choice()
    dialog.deleteLater()
    return chosen if accepted else None


class FolderDialog(QDialog):
    """A folder to export into, typed (it may not exist yet) or picked with Browse…; relative to `start`'s
    folder when typed relative."""

    def __init__(self, title: str, start: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.start = start
        self.line = QLineEdit(str(start))
        self.line.setMinimumWidth(420)
        browse = QPushButton("Browse…")
        browse.setAutoDefault(False)  # Return in the line accepts the dialog, never opens Browse
        browse.clicked.connect(self.browse)
        self.problem = plain_label(wrap=True)
        self.problem.setStyleSheet("color: #d32f2f")
        self.problem.hide()
        row = QHBoxLayout()
        row.addWidget(self.line, 1)
        row.addWidget(browse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label("Folder (a new one is created; an existing one must be empty or hold an "
                                     "earlier export of this kind):", wrap=True))
        layout.addLayout(row)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.line.textChanged.connect(self._check)
        self.line.setFocus()
        self.line.selectAll()

    def folder(self) -> Path:
        """The folder typed, made absolute against the starting folder's parent (a relative path would
        otherwise name one in wherever the designer was started from)."""
        typed = Path(self.line.text().strip()).expanduser()
        return typed if typed.is_absolute() else self.start.parent / typed

    def browse(self) -> None:
        """An existing folder, picked with the platform's folder dialog."""
        current = self.folder()
        near = current if current.is_dir() else current.parent
        chosen = QFileDialog.getExistingDirectory(self, self.windowTitle(), str(near))
        if chosen:
            self.line.setText(chosen)

    def _check(self) -> str:
        """Why the folder typed cannot be exported into ("" when it can), shown under the line."""
        folder = self.folder()
        why = ("" if self.line.text().strip() and (folder.is_dir() or not folder.exists())
               else "Type a folder" if not self.line.text().strip() else f"{folder} is a file, not a folder")
        self.problem.setText(why)
        self.problem.setVisible(bool(why))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not why)
        return why

    def accept(self) -> None:
        if not self._check():
            super().accept()


def choose_folder(parent: QWidget, title: str, start: Path, ask: bool) -> Path | None:
    """The folder to export into (it may not exist yet: the export creates it); None when cancelled. A window
    that may not ask shows only the platform's folder dialog."""
    if not ask:
        chosen = QFileDialog.getExistingDirectory(parent, title)
        return Path(chosen) if chosen else None
    dialog = FolderDialog(title, start, parent)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    folder = dialog.folder()
    dialog.deleteLater()
    return folder if accepted else None


def suggested_folder(model_path: Path | None, kind: str) -> Path:
    """Where a folder export is offered first: beside the model, named after it (`hq_postgresql`)."""
    if model_path is None:
        return Path.home() / f"untitled_{kind}"
    return model_path.parent / f"{model_path.stem}_{kind}"
