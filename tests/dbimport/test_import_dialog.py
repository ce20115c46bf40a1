"""File ▸ Import tables from database…, driven through its real widgets (pytest-qt, offscreen)."""

from __future__ import annotations

import json
import sqlite3
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from catalog import catalog
from pgdata import SECRET, reader_url
from PySide6.QtCore import QSettings, Qt

from designer.import_dialog import ImportDialog
from designer.window import MainWindow
from engine.export import export_ddl
from engine.rules import count, validate
from resources import ROOT as RESOURCES

SHOP = RESOURCES / "samples" / "shop.sqlite"
MODEL = {
    "format": "mapwright/1", "name": "two",
    "servers": [{"id": "hq", "dbms": "oracle"}],
    "tables": [{"server": "hq", "name": "CUST", "columns": [
        {"name": "NO", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"}],
        "primary_key": ["NO"]},
        {"server": "hq", "name": "ITEM", "columns": [{"name": "SKU", "type": "VARCHAR(20)", "nullable": False}]}],
    "layout": {"hq.CUST": [0, 0], "hq.ITEM": [400, 300]},
}


@pytest.fixture(autouse=True)
def private_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(MODEL))
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False)
    w.open_path(path)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def open_dialog(window: MainWindow, qtbot: Any) -> ImportDialog:
    file_menu = window.menuBar().actions()[0].menu()
    action = next(a for a in file_menu.actions() if a.text() == "&Import tables from database…")
    action.trigger()
    dialog = window.import_dialog
    qtbot.waitExposed(dialog)
    return dialog


def list_tables(dialog: ImportDialog, qtbot: Any, url: str, password: str = "") -> None:
    dialog.url.setText(url)
    dialog.password.setText(password)
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.call is None and dialog.status.text() not in ("", "Listing tables…"), timeout=20000)


def test_importing_the_sqlite_sample_through_the_dialog(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{SHOP}")
    assert dialog.status.text() == "3 table(s) in main.", dialog.status.text()
    assert dialog.checked_tables() == ["customer", "order_line", "product"]
    dialog.filter.setText("ORD")  # the filter ignores case
    assert dialog.proxy.rowCount() == 1
    qtbot.mouseClick(dialog.none_button, Qt.MouseButton.LeftButton)
    assert dialog.checked_tables() == ["customer", "product"]
    dialog.filter.clear()
    qtbot.mouseClick(dialog.all_button, Qt.MouseButton.LeftButton)
    assert dialog.import_button.text() == "Import 3 tables"
    dialog.server.setEditText("shop")
    undo_steps = window.document.undo_stack.count()
    with qtbot.waitSignal(dialog.sig_imported, timeout=20000):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())  # no notes: the dialog closes
    model = window.document.model
    assert [t.key for t in model.tables] == ["hq.CUST", "hq.ITEM", "shop.customer", "shop.order_line", "shop.product"]
    assert model.server("shop") is not None and model.server("shop").dbms == "sqlite"
    assert dialog.progress.value() == dialog.progress.maximum() == 3

    rects = {k: item.sceneBoundingRect() for k, item in window.scene.tables.items()}
    assert set(rects) == {t.key for t in model.tables}
    for (a, ra), (b, rb) in combinations(rects.items(), 2):
        assert not ra.intersects(rb), f"{a} overlaps {b}"

    assert window.document.undo_stack.count() == undo_steps + 1  # one undoable command
    window.document.undo_stack.undo()
    assert [t.key for t in model.tables] == ["hq.CUST", "hq.ITEM"] and model.server("shop") is None
    assert set(model.layout) == {"hq.CUST", "hq.ITEM"}
    window.document.undo_stack.redo()
    assert len(model.tables) == 5

    assert count(validate(model))[0] == 0
    ddl = tmp_path / "shop.sql"
    export_ddl(model, ddl, server="shop")
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(copy) as db:
        db.executescript(ddl.read_text())
    assert catalog(f"sqlite:///{copy}") == catalog(f"sqlite:///{SHOP}")


def test_the_password_is_used_but_never_stored(window: MainWindow, qtbot: Any, db: str, pg_server: Any,
                                                tmp_path: Path) -> None:
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, reader_url(pg_server))
    assert dialog.status.text() == "The server asks for a password: type it in the Password field."
    list_tables(dialog, qtbot, reader_url(pg_server), SECRET)
    assert dialog.status.text() == "3 table(s) in public.", dialog.status.text()
    qtbot.mouseClick(dialog.none_button, Qt.MouseButton.LeftButton)
    dialog.filter.setText("odd")
    qtbot.mouseClick(dialog.all_button, Qt.MouseButton.LeftButton)
    dialog.server.setEditText("pg")
    with qtbot.waitSignal(dialog.sig_imported, timeout=20000):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()  # odd types: the notes stay on screen
    assert "pg.odd.doc: JSONB is JSON" in dialog.notes.toPlainText()
    assert window.document.model.table("pg.odd") is not None
    window.document.save()
    window.settings.sync()
    settings = Path(window.settings.fileName()).read_bytes()
    assert f"reader@127.0.0.1:{pg_server.port}/import_cli".encode() in settings  # the URL is remembered...
    assert SECRET.encode() not in settings  # ...without the password
    assert SECRET.encode() not in window.document.path.read_bytes()
    dialog.close()


def test_connection_test_and_its_failures_are_reported_in_the_dialog(window: MainWindow, qtbot: Any) -> None:
    dialog = open_dialog(window, qtbot)
    dialog.url.setText(f"sqlite:///{SHOP}")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Connected to sqlite:///"), timeout=20000)
    dialog.url.setText("sqlite:////no/such/file.db")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "no such SQLite database file" in dialog.status.text(), timeout=20000)
    assert "d32f2f" in dialog.status.styleSheet()
    assert dialog.test_button.isEnabled()


def test_tables_already_in_the_model_are_refused_and_nothing_changes(window: MainWindow, qtbot: Any) -> None:
    from engine.edits import add
    from engine.model import Table

    window.document.apply(add(window.document.model, Table(server="hq", name="customer")), "Add a table")
    dialog = open_dialog(window, qtbot)
    dialog.server.setEditText("hq")
    list_tables(dialog, qtbot, f"sqlite:///{SHOP}")
    assert dialog.checked_tables() == ["order_line", "product"]  # what the server has already is left unchecked
    qtbot.mouseClick(dialog.all_button, Qt.MouseButton.LeftButton)
    dialog.dbms.setCurrentIndex(dialog.dbms.findData("oracle"))
    steps = window.document.undo_stack.count()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "already has hq.customer" in dialog.status.text(), timeout=20000)
    assert "--tables" not in dialog.status.text()  # the dialog speaks of its own widgets
    assert window.document.undo_stack.count() == steps
    assert len(window.document.model.tables) == 3


@pytest.mark.parametrize("server", ["a.b", "x\ty", "a b"])
def test_a_server_id_add_server_refuses_is_refused_by_the_import_too(window: MainWindow, qtbot: Any,
                                                                      server: str) -> None:
    problems: list[str] = []
    window.authoring.sig_problem.connect(problems.append)
    assert not window.authoring.add_server({"id": server, "dbms": "sqlite"})
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{SHOP}")
    dialog.server.setEditText(server)
    before = window.document.undo_stack.count()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.call is None  # refused before connecting
    assert dialog.status.text() == problems[-1] and "cannot hold a dot or a space" in problems[-1]
    assert "d32f2f" in dialog.status.styleSheet()
    assert window.document.undo_stack.count() == before
    assert [s.id for s in window.document.model.servers] == ["hq"]


def test_stop_cancels_a_running_import_and_nothing_changes(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    many = tmp_path / "many.sqlite"
    with sqlite3.connect(many) as conn:
        conn.executescript("".join(f"CREATE TABLE t{i:03} (id INTEGER PRIMARY KEY, v VARCHAR(5));" for i in range(400)))
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{many}")
    assert len(dialog.checked_tables()) == 400
    steps = window.document.undo_stack.count()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.close_button.text() == "Stop" and not dialog.list_button.isEnabled()
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.status.text() == "Import cancelled.", timeout=20000)
    assert dialog.isVisible() and dialog.close_button.text() == "Close" and dialog.list_button.isEnabled()
    assert window.document.undo_stack.count() == steps and len(window.document.model.tables) == 2


def test_closing_the_window_mid_import_stops_it_and_closes_the_dialog(window: MainWindow, qtbot: Any,
                                                                       tmp_path: Path) -> None:
    """Quitting (the application's Quit, a logout) closes the window past its window-modal dialog: the import
    must end with it, never land later in a model whose window is gone (nor keep the dialog, and so the
    application, alive)."""
    many = tmp_path / "many.sqlite"
    with sqlite3.connect(many) as conn:
        conn.executescript("".join(f"CREATE TABLE t{i:03} (id INTEGER PRIMARY KEY, v VARCHAR(5));" for i in range(400)))
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{many}")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    call = dialog.call
    assert call is not None
    assert window.close()
    assert not dialog.isVisible() and call.cancel.is_set()
    qtbot.waitUntil(lambda: not call.worker.is_alive(), timeout=20000)
    qtbot.wait(50)  # whatever the worker emitted is delivered
    assert len(window.document.model.tables) == 2 and not window.document.dirty


def test_when_no_picked_table_can_be_imported_nothing_changes_and_the_notes_say_why(window: MainWindow, qtbot: Any,
                                                                                     tmp_path: Path) -> None:
    """A table no model can hold (an empty name) is left out with a note; when that leaves none, the dialog
    added an empty server as "Import 0 tables" and said it had imported."""
    odd = tmp_path / "odd.sqlite"
    with sqlite3.connect(odd) as conn:
        conn.execute('CREATE TABLE "" (id INTEGER)')
        conn.execute("CREATE TABLE ok (id INTEGER)")
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{odd}")
    dialog.tables.item(1).setCheckState(Qt.CheckState.Unchecked)
    assert dialog.checked_tables() == [""]
    dialog.server.setEditText("odd")
    steps = window.document.undo_stack.count()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.call is None, timeout=20000)
    assert dialog.status.text() == "No table imported: none of those picked can be (the notes below say why)."
    assert "d32f2f" in dialog.status.styleSheet() and "not imported" in dialog.notes.toPlainText()
    assert window.document.undo_stack.count() == steps and window.document.model.server("odd") is None


def test_after_an_import_with_notes_the_imported_tables_are_unchecked(window: MainWindow, qtbot: Any,
                                                                       tmp_path: Path) -> None:
    """The dialog stays open to show an import's notes; its tables stayed checked, so a second click on
    Import repeated the import and was refused ("already has")."""
    odd = tmp_path / "odd.sqlite"
    with sqlite3.connect(odd) as conn:
        conn.execute('CREATE TABLE "" (id INTEGER)')
        conn.execute("CREATE TABLE ok (id INTEGER)")
        conn.execute("CREATE TABLE later (id INTEGER)")
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{odd}")
    item = {dialog.tables.item(r).text(): dialog.tables.item(r) for r in range(dialog.tables.rowCount())}
    item["later"].setCheckState(Qt.CheckState.Unchecked)  # for a second import
    dialog.server.setEditText("odd")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.call is None, timeout=20000)
    assert window.document.model.table("odd.ok") is not None and dialog.isVisible()  # notes: the "" table
    assert dialog.checked_tables() == [""] and item["ok"].toolTip() == "Already in the model on this server"
    item[""].setCheckState(Qt.CheckState.Unchecked)
    item["later"].setCheckState(Qt.CheckState.Checked)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.call is None, timeout=20000)
    assert window.document.model.table("odd.later") is not None, dialog.status.text()


def test_listing_a_file_that_is_no_database_says_so_in_one_line(window: MainWindow, qtbot: Any,
                                                                 tmp_path: Path) -> None:
    """Listing showed the driver's exception ("DatabaseError: (sqlite3.DatabaseError) file is not a
    database"); importing already said it as an import failure naming the database."""
    junk = tmp_path / "notes.db"
    junk.write_bytes(b"these are my notes, not a database\n" * 200)
    dialog = open_dialog(window, qtbot)
    list_tables(dialog, qtbot, f"sqlite:///{junk}")
    assert dialog.status.text() == f"reading sqlite:///{junk}: file is not a database", dialog.status.text()
    assert "d32f2f" in dialog.status.styleSheet() and dialog.tables.rowCount() == 0
