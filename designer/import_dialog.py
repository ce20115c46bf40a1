"""File ▸ Import tables from database…: pick tables of a live database and add them to the model.

The dialog is a thin layer over `engine.dbimport`: connecting, listing and reflecting run on a worker
thread (`BackgroundCall`), whose progress comes back as signals, so the window never blocks. The new
server and tables land as one undoable command, placed right of everything on the canvas. The password
lives only in its field: QSettings remembers the URL without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QSettings, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.canvas.items import HEADER, ROW, WIDTH
from designer.document import Document
from engine.dbimport import (
    ImportedSchema,
    ImportFailure,
    checked_server_id,
    display_url,
    import_edits,
    parse_source,
    probe_connection,
    read_database,
    read_listing,
)
from engine.edits import UnloadableValue
from engine.model.schema import Table

DBMS_CHOICES = ("oracle", "db2", "mssql", "informix", "ase", "postgresql", "mysql", "sqlite", "other")
SETTINGS_URL, SETTINGS_SERVER = "import/url", "import/server"


class Cancelled(Exception):
    """The user stopped the import."""


class BackgroundCall(QObject):
    """Runs `work(progress)` on a worker thread; its progress, result or one-line failure come back as signals
    (queued to the GUI thread). A plain Python thread, not a QRunnable: a Python QRunnable in Qt's pool can be
    deleted under the running work (a segfault seen in CI)."""

    sig_progress = Signal(int, int, str)
    sig_done = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, work: Callable[[Callable[[int, int, str], None]], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.work = work
        self.cancel = threading.Event()

    def start(self) -> None:
        self.worker = threading.Thread(target=self._run, name="mapwright-import", daemon=True)
        self.worker.start()  # not `self.thread`: that would hide QObject.thread()

    def _run(self) -> None:
        def progress(done: int, total: int, what: str) -> None:
            if self.cancel.is_set():
                raise Cancelled
            self.sig_progress.emit(done, total, what)

        try:
            result = self.work(progress)
        except Cancelled:
            self.sig_failed.emit("Import cancelled.")
        except ImportFailure as exc:
            self.sig_failed.emit(str(exc))
        except Exception as exc:  # a driver's surprise: shown in the dialog, never a crash of the window
            self.sig_failed.emit(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        else:
            self.sig_done.emit(result)


class ConnectionFields:
    """Where to connect, as the import dialog asks it and Run ▸ Sample from database… asks it again: the URL
    (remembered in QSettings without its password), the password (only ever in its field) and the schema."""

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings
        self.url = QLineEdit(str(settings.value(SETTINGS_URL, "") or ""))
        self.url.setPlaceholderText("postgresql://user@host:5432/database   or   sqlite:///path/to/file.db")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("never stored")
        self.schema = QComboBox()
        self.schema.setEditable(True)

    def remember(self) -> None:
        """Remember the URL for the next time, without its password."""
        self.settings.setValue(SETTINGS_URL, display_url(self.url.text().strip()))


def password_asked(message: str) -> bool:
    """Whether a connection's one-line failure is the server asking for a password none was given for."""
    return "asks for a password" in message


@dataclass(frozen=True)
class Listing:
    default_schema: str | None
    schemas: list[str]
    tables: list[str]


def footprint(table: Table) -> tuple[float, float]:
    """The size of a table's node on the canvas."""
    return WIDTH, HEADER + ROW * len(table.columns)


class ImportDialog(QDialog):
    """Connect, pick tables (with a filter), import them as one undo step."""

    STOPS_WITH_WINDOW = True  # its designer window closing stops a running import

    sig_imported = Signal(object)  # ImportedSchema

    def __init__(self, document: Document, occupied: Callable[[], list[tuple[float, float, float, float]]],
                 settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import tables from database")
        self.document, self.occupied, self.settings = document, occupied, settings
        self.call: BackgroundCall | None = None
        self._on_done: Callable[[Any], None] = lambda _result: None
        self.resize(620, 640)

        self.connection = ConnectionFields(settings)
        self.url, self.password, self.schema = self.connection.url, self.connection.password, self.connection.schema
        self.test_button = QPushButton("Test connection")
        self.list_button = QPushButton("List tables")
        self.server = QComboBox()
        self.server.setEditable(True)
        self.server.addItems([s.id for s in document.model.servers])
        self.server.setEditText(str(settings.value(SETTINGS_SERVER, "") or "") or "imported")
        self.dbms = QComboBox()
        self.dbms.addItem("from the URL", None)
        for name in DBMS_CHOICES:
            self.dbms.addItem(name, name)

        self.tables = QStandardItemModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.tables)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter tables")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table_view = QListView()
        self.table_view.setModel(self.proxy)
        self.all_button, self.none_button = QPushButton("Check shown"), QPushButton("Uncheck shown")
        self.all_button.clicked.connect(lambda: self._check_shown(True))
        self.none_button.clicked.connect(lambda: self._check_shown(False))

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # messages quote database names: never markup
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.notes.setPlaceholderText("Types and defaults not imported exactly are listed here.")
        self.notes.setMaximumHeight(110)
        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.import_button.setEnabled(False)
        self._layout()

        self.test_button.clicked.connect(self.test_connection)
        self.list_button.clicked.connect(self.list_tables)
        self.import_button.clicked.connect(self.start_import)
        self.close_button.clicked.connect(self.cancel_or_close)
        self.tables.itemChanged.connect(self._selection_changed)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Database URL", self.url)
        form.addRow("Password", self.password)
        connect_row = QHBoxLayout()
        connect_row.addWidget(self.test_button)
        connect_row.addWidget(self.list_button)
        connect_row.addStretch(1)
        form.addRow("", connect_row)
        form.addRow("Schema", self.schema)
        form.addRow("Server id", self.server)
        form.addRow("DBMS", self.dbms)
        picks = QHBoxLayout()
        picks.addWidget(self.filter, 1)
        picks.addWidget(self.all_button)
        picks.addWidget(self.none_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(picks)
        layout.addWidget(self.table_view, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)

    # --- background calls ------------------------------------------------------------------------

    def _run(self, work: Callable[[Callable[[int, int, str], None]], Any], done: Callable[[Any], None],
             message: str) -> None:
        self._say(message)
        self._busy(True)
        self._on_done = done
        call = self.call = BackgroundCall(work)  # no parent: it outlives the dialog if closed mid-call
        queued = Qt.ConnectionType.QueuedConnection  # emitted on a worker thread, handled on the GUI thread
        call.sig_progress.connect(self._progress, queued)
        call.sig_done.connect(self._finished, queued)
        call.sig_failed.connect(self._failed, queued)
        call.start()

    def _finished(self, result: object) -> None:
        self._busy(False)
        self._on_done(result)

    def _busy(self, busy: bool) -> None:
        for widget in (self.test_button, self.list_button, self.url, self.password, self.schema):
            widget.setEnabled(not busy)
        self.import_button.setEnabled(not busy and bool(self.checked_tables()))
        self.close_button.setText("Stop" if busy else "Close")
        if busy:
            self.progress.setRange(0, 0)  # busy until the first progress report
        else:
            self.call = None

    def _progress(self, done: int, total: int, what: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        if total:
            self._say(f"Reading tables: {done} of {total}" + (f" ({what})" if what else ""))

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        if password_asked(message):
            message = "The server asks for a password: type it in the Password field."
            self.password.setFocus()
        self._say(message, error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #d32f2f" if error else "")

    def done(self, result: int) -> None:
        """Closing by any means stops a running call and lets its results fall on the floor."""
        if self.call is not None:
            self.call.cancel.set()
            for signal in (self.call.sig_progress, self.call.sig_done, self.call.sig_failed):
                signal.disconnect()
            self.call = None
        super().done(result)

    def cancel_or_close(self) -> None:
        if self.call is not None:
            self.call.cancel.set()
            self._say("Stopping…")
        else:
            self.reject()

    # --- actions ---------------------------------------------------------------------------------

    def _source(self) -> Any:
        source = parse_source(self.url.text(), self.password.text() or None)
        self.connection.remember()
        return source

    def test_connection(self) -> None:
        url, password = self.url.text(), self.password.text() or None
        self._run(lambda _p: probe_connection(parse_source(url, password)),
                  lambda text: self._say(str(text)[:1].upper() + str(text)[1:] + "."), "Connecting…")

    def list_tables(self) -> None:
        try:
            source = self._source()
        except ImportFailure as exc:
            self._say(str(exc), error=True)
            return
        schema = self.schema.currentText().strip() or None

        def work(_progress: Callable[[int, int, str], None]) -> Listing:
            return Listing(*read_listing(source, schema))

        self._run(work, self._show_listing, "Listing tables…")

    def _show_listing(self, listing: Listing) -> None:
        current = self.schema.currentText().strip() or listing.default_schema or ""
        self.schema.blockSignals(True)
        self.schema.clear()
        self.schema.addItems(listing.schemas)
        self.schema.setEditText(current)
        self.schema.blockSignals(False)
        self.tables.itemChanged.disconnect(self._selection_changed)
        self.tables.clear()
        for name in listing.tables:
            item = QStandardItem(name)
            item.setCheckable(True)
            item.setEditable(False)
            item.setCheckState(Qt.CheckState.Checked)
            self.tables.appendRow(item)
        self._uncheck_present()
        self.tables.itemChanged.connect(self._selection_changed)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self._say(f"{len(listing.tables)} table(s) in {current or 'the default schema'}.")
        self._selection_changed()

    def _uncheck_present(self) -> None:
        """Tables the model already has on the server named: unchecked (importing them again is refused)."""
        present = {t.key for t in self.document.model.tables}
        server = self.server.currentText().strip()
        for row in range(self.tables.rowCount()):
            item = self.tables.item(row)
            if f"{server}.{item.text()}" in present:
                item.setCheckState(Qt.CheckState.Unchecked)
                item.setToolTip("Already in the model on this server")

    def checked_tables(self) -> list[str]:
        return [self.tables.item(r).text() for r in range(self.tables.rowCount())
                if self.tables.item(r).checkState() == Qt.CheckState.Checked]

    def _check_shown(self, checked: bool) -> None:
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        for row in range(self.proxy.rowCount()):
            self.tables.itemFromIndex(self.proxy.mapToSource(self.proxy.index(row, 0))).setCheckState(state)

    def _selection_changed(self, *_: object) -> None:
        picked = self.checked_tables()
        self.import_button.setEnabled(self.call is None and bool(picked))
        self.import_button.setText(f"Import {len(picked)} table{'s' * (len(picked) != 1)}")

    def start_import(self) -> None:
        server = self.server.currentText().strip()
        if not server:
            self._say("Give the server id the tables belong to.", error=True)
            return
        try:
            checked_server_id(server)  # Add server's rule: a dot or a space would make table keys ambiguous
            source = self._source()
        except ImportFailure as exc:
            self._say(str(exc), error=True)
            return
        self.settings.setValue(SETTINGS_SERVER, server)
        tables, dbms = self.checked_tables(), self.dbms.currentData()
        schema = self.schema.currentText().strip() or None
        self.notes.clear()
        self._run(lambda progress: read_database(source, server, dbms, schema, tables, progress),
                  self._imported, "Reading tables…")

    def _imported(self, imported: ImportedSchema) -> None:
        if not imported.tables:  # each picked table was left out (with a note): an empty server is no import
            self.notes.setPlainText("\n".join(str(n) for n in imported.notes))
            self._say("No table imported: none of those picked can be (the notes below say why).", error=True)
            return
        try:
            edits = import_edits(self.document.model, imported, footprint, self.occupied())
        except UnloadableValue as exc:  # something read that no model file could hold: never half a model
            self._say(f"Not imported: {exc}", error=True)
            return
        except ImportFailure as exc:
            self._say(str(exc).replace("--tables", "the table list").replace("--server", "server id")
                      .replace("give --dbms", "pick DBMS"), error=True)
            return
        count = len(imported.tables)
        self.document.apply(edits, f"Import {count} table{'s' * (count != 1)} from {imported.server}")
        self.sig_imported.emit(imported)
        self._uncheck_present()  # the dialog stays open for its notes: a second Import must not repeat this one
        self._selection_changed()
        self.notes.setPlainText("\n".join(str(n) for n in imported.notes))
        self._say(f"Imported {count} table{'s' * (count != 1)} as server {imported.server} ({imported.dbms})"
                  + (f"; {len(imported.notes)} note(s) below." if imported.notes else "."))
        if not imported.notes:
            self.accept()


def open_for(window: Any) -> ImportDialog:
    """Show the dialog for a main window's document (window-modal, so the model cannot change under it)."""
    scene = window.scene

    def occupied() -> list[tuple[float, float, float, float]]:
        return [(r.x(), r.y(), r.width(), r.height()) for r in (i.sceneBoundingRect() for i in scene.tables.values())]

    dialog = ImportDialog(window.document, occupied, window.settings, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.sig_imported.connect(lambda imported: window.statusBar().showMessage(
        f"Imported {len(imported.tables)} table(s) as server {imported.server}", 6000))
    window.import_dialog = dialog
    dialog.open()
    return dialog
