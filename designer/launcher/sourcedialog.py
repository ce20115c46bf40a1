"""Run ▸ Sample from database…: one server's rows read from a live database, then changes made on top.

The connection is asked as File ▸ Import tables from database… asks it (`ConnectionFields`: the URL
remembered without its password, the password only in its field, the schema). The rows are read by
`engine.samplegen.fromdb.read_server_rows` and handed to `generate_sample(..., initial=rows)`, both off
the GUI thread; what did not come over as it is (the reader's notes) is listed when the data is written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QFormLayout, QPlainTextEdit, QSpinBox, QWidget

from designer.import_dialog import ConnectionFields, password_asked
from designer.launcher.sampledialog import SampleJobDialog, default_options
from designer.launcher.widgets import named
from engine.model.schema import Model

DEFAULT_ROWS = 100


class SourceDialog(SampleJobDialog):
    """The connection, the model's server whose tables to read, rows per table, and the output folder."""

    def __init__(self, model: Model, out_dir: Path, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__("Sample from database", out_dir, parent)
        self.model = model
        self.notes: list[str] = []
        self.connection = ConnectionFields(settings)
        self.url, self.password, self.schema = self.connection.url, self.connection.password, self.connection.schema
        self.url.setObjectName("sourceUrl")
        self.password.setObjectName("sourcePassword")
        self.schema.setObjectName("sourceSchema")
        self.server = named(QComboBox(), "sourceServer")
        self.server.addItems([s.id for s in model.servers])
        self.rows = named(QSpinBox(minimum=1, maximum=10_000_000, value=DEFAULT_ROWS), "sourceRows")
        self.rows.setGroupSeparatorShown(True)
        self.notes_view = named(QPlainTextEdit(readOnly=True), "sourceNotes")
        self.notes_view.setPlaceholderText("What could not be read as it is will be listed here.")
        self.notes_view.setMaximumHeight(110)
        form = QFormLayout()
        form.addRow("Database URL", self.url)
        form.addRow("Password", self.password)
        form.addRow("Schema", self.schema)
        form.addRow("Server in the model", self.server)
        form.addRow("Rows per table", self.rows)
        layout = self.finish_layout(form)
        layout.insertWidget(layout.count() - 1, self.notes_view)
        self.resize(600, self.sizeHint().height())
        if not model.servers:
            self.say("The model has no servers: add one (with its tables) first.", error=True)
            self.start_button.setEnabled(False)

    def start_text(self) -> str:
        return "Read and generate"

    def editable(self) -> list[QWidget]:
        return [self.url, self.password, self.schema, self.server, self.rows, *super().editable()]

    def make_job(self, out: Path) -> Callable[[Callable[[str, int, int], None], threading.Event], Any] | None:
        from engine.samplegen import generate_sample
        from engine.samplegen.fromdb import read_server_rows

        url, server = self.url.text().strip(), self.server.currentText().strip()
        if not url:
            self.say("Give the database URL.", error=True)
            self.url.setFocus()
            return None
        if not server:
            self.say("Choose the model's server whose tables to read.", error=True)
            return None
        self.connection.remember()
        password, schema = self.password.text() or None, self.schema.currentText().strip() or None
        model, rows = self.model, self.rows.value()
        self.notes = []
        self.notes_view.clear()

        def work(progress: Callable[[str, int, int], None], cancel: threading.Event) -> Any:
            progress("read", 0, 1)
            initial, notes = read_server_rows(url, model, server, rows, schema, password=password)
            self.notes = list(notes)  # read on the GUI thread only once the job has ended
            progress("read", 1, 1)
            options = default_options()
            return generate_sample(model, out, options, initial=initial, progress=progress, cancel=cancel)

        return work

    def _done(self, summary: object) -> None:
        self.notes_view.setPlainText("\n".join(self.notes))
        super()._done(summary)
        if self.notes:
            self.say(f"{self.status.text()}; {len(self.notes)} note(s) below on what was not read as it is.")

    def keep_open(self) -> bool:
        return bool(self.notes)  # the notes stay readable; the data folder is already the panel's

    def _failed(self, message: str) -> None:
        if password_asked(message):
            message = "The server asks for a password: type it in the Password field."
            self.password.setFocus()
        super()._failed(message)
