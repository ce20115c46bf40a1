"""Authoring a model from File ▸ New through the designer's own menus, dialogs and editors (pytest-qt)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLineEdit, QMenu

from designer.authoring.dialogs import ServerDialog, TableDialog, WhereDialog
from designer.window import MainWindow
from engine.model import load_model


@pytest.fixture(autouse=True)
def private_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False)
    w.resize(1400, 900)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def menu_action(menu: QMenu, text: str) -> Any:
    """The action of `menu` (or of one of its submenus, as 'Sub/Item') with this text."""
    head, _, rest = text.partition("/")
    action = next((a for a in menu.actions() if a.text() == head), None)
    assert action is not None, f"{head!r} not in {[a.text() for a in menu.actions()]}"
    return menu_action(action.menu(), rest) if rest else action


def context_menu(w: MainWindow, ref: tuple[Any, ...]) -> QMenu:
    """What right-clicking `ref` in the tree offers (the same entries the canvas adds)."""
    menu = QMenu(w)
    w.authoring.fill_menu(menu, ref)
    return menu


def file_new(w: MainWindow) -> None:
    file_menu = w.menuBar().actions()[0].menu()
    menu_action(file_menu, "&New model").trigger()


def type_columns(w: MainWindow, table: str, columns: list[tuple[str, str, bool]], pk: list[str]) -> None:
    """Columns typed into the table's columns grid in the properties panel: Add column, then each cell."""
    w.select(("table", table))
    editor = w.inspector.columns
    for name, type_, not_null in columns:
        editor.add_column(name, type_)
        editor = w.inspector.columns  # the panel is rebuilt after each edit, on the same table
        row = w.document.model.table(table).column_names().index(name)  # type: ignore[union-attr]
        model = editor.model
        if not_null:
            assert model.setData(model.index(row, 2), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
        editor = w.inspector.columns
    for name in pk:
        model = w.inspector.columns.model
        row = w.document.model.table(table).column_names().index(name)  # type: ignore[union-attr]
        assert model.setData(model.index(row, 4), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)


def test_a_two_server_model_authored_from_file_new_validates_as_expected(window: MainWindow, tmp_path: Path) -> None:
    w = window
    file_new(w)
    assert w.document.model.servers == [] and w.document.path is None
    # servers, from the Edit menu (the dialog's values; the dialog itself is tested below)
    edit_menu = w.menuBar().actions()[1].menu()
    edit_menu.aboutToShow.emit()
    assert not w.authoring_actions["Add table…"].isEnabled()  # no server yet
    assert w.authoring.add_server({"id": "hq", "dbms": "oracle", "priority": 20})
    assert w.authoring.add_server({"id": "br", "dbms": "postgresql", "priority": 10})
    # a table on each, then their columns in the properties panel's grid
    assert w.authoring.add_table("hq", "CUST")
    assert w.current_ref == ("table", "hq.CUST")  # the new table is selected
    type_columns(w, "hq.CUST", [("REGION", "CHAR(2)", True), ("CUST_NO", "INTEGER", True),
                                ("NAME", "VARCHAR(40)", False), ("UPDATED_AT", "TIMESTAMP", True)],
                 ["REGION", "CUST_NO"])
    w.select(("server", "br"))
    menu_action(context_menu(w, ("server", "br")), "Add table…")  # offered where it applies
    assert w.authoring.add_table("br", "CUSTOMER")
    type_columns(w, "br.CUSTOMER", [("CUST_KEY", "VARCHAR(16)", True), ("name", "VARCHAR(40)", False),
                                    ("UPDATED_AT", "TIMESTAMP", True)], ["CUST_KEY"])
    # a mapping from the table's context menu, auto-mapped by name (NAME -> name case-insensitively)
    menu_action(context_menu(w, ("table", "hq.CUST")), "New mapping to…/br.CUSTOMER").trigger()
    forward = w.document.model.mappings[0]
    assert {k: v.input for k, v in forward.columns.items()} == {"name": "NAME", "UPDATED_AT": "UPDATED_AT"}  # type: ignore[union-attr]
    menu_action(context_menu(w, ("mapping", forward.id)), f"Rename mapping {forward.id}…")
    assert w.authoring.rename(("mapping", forward.id), "hq_to_br")
    # a concat key, through the canvas's context menu
    canvas_menu = w.controller.menu_for(("column", "br.CUSTOMER", "CUST_KEY"))
    menu_action(canvas_menu, "Insert method/concat").trigger()
    key = w.document.model.mapping("hq_to_br").columns["CUST_KEY"]  # type: ignore[union-attr]
    assert key.method == "concat" and [i.input for i in key.inputs] == ["REGION", "CUST_NO"]  # type: ignore[union-attr]
    # its reverse split: a mapping back, reverse set both ways
    w.select(("mapping", "hq_to_br"))
    menu_action(context_menu(w, ("mapping", "hq_to_br")), "Add mapping back (reverse)").trigger()
    back = w.document.model.mapping("hq_to_br_back")
    assert back is not None and back.reverse == "hq_to_br"
    assert w.document.model.mapping("hq_to_br").reverse == "hq_to_br_back"  # type: ignore[union-attr]
    assert back.columns["REGION"].method == "split" and back.columns["CUST_NO"].method == "cast"
    # a column group with a resolution chain on the branch table
    editor = w.conflicts
    editor.show_table("br.CUSTOMER")
    editor.enabled.setChecked(True)
    editor.add_group("customer_cg")
    editor.move_column("name", "customer_cg")
    editor.move_column("UPDATED_AT", "customer_cg")
    editor.groups.setCurrentItem(editor.groups.topLevelItem(0))
    editor.add_method("latest_timestamp")
    editor.add_method("site_priority")
    chain = w.document.model.conflicts_for("br.CUSTOMER").column_groups[0].resolution  # type: ignore[union-attr]
    assert [(s.method, s.column) for s in chain] == [("latest_timestamp", "UPDATED_AT"), ("site_priority", None)]
    # a where that names an unknown column: MP003, live
    assert w.authoring.edit_where("hq_to_br", "REGION <> 'XX' AND STATUS = 'A'")
    assert "MP003" in {f.code for f in w.document.findings()}
    # saved, and validated by the command line
    out = tmp_path / "authored.json"
    w.document.save(out)
    assert not w.isWindowModified()
    result = subprocess.run([sys.executable, "-m", "engine.cli", "validate", str(out), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr  # errors found
    codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
    assert codes == ["MP003"]
    # fixing the where leaves a clean model
    assert w.authoring.edit_where("hq_to_br", "REGION <> 'XX'")
    w.document.save(out)
    result = subprocess.run([sys.executable, "-m", "engine.cli", "validate", str(out), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, json.loads(result.stdout)["findings"]) == (0, [])
    assert load_model(out) == w.document.model
