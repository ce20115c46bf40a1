"""Authoring a model from File ▸ New through the designer's own menus, dialogs and editors (pytest-qt)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QCheckBox, QFileDialog, QLineEdit, QMenu, QPushButton

from designer.authoring import commands as cmd
from designer.authoring.dialogs import ServerDialog, TableDialog, WhereDialog
from designer.window import MainWindow
from engine.model import load_model


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


def test_a_two_server_model_authored_from_file_new_validates_as_expected(window: MainWindow, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
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
    back = w.document.model.mapping("br_CUSTOMER_to_hq_CUST")
    assert back is not None and back.reverse == "hq_to_br"
    assert w.document.model.mapping("hq_to_br").reverse == "br_CUSTOMER_to_hq_CUST"  # type: ignore[union-attr]
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
    # saved through File ▸ Save (a new model: Save As asks where), and validated by the command line
    out = tmp_path / "authored.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    assert w.isWindowModified()
    menu_action(w.menuBar().actions()[0].menu(), "&Save").trigger()
    assert out.exists() and w.document.path == out and not w.isWindowModified()
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


TWO = {
    "format": "mapwright/1", "name": "two",
    "servers": [{"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
    "tables": [
        {"server": "hq", "name": "CUST", "columns": [
            {"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False},
            {"name": "NAME", "type": "VARCHAR(40)"}, {"name": "CHANGED", "type": "TIMESTAMP"}],
         "primary_key": ["REGION", "NO"]},
        {"server": "br", "name": "CUST", "columns": [
            {"name": "KEY", "type": "VARCHAR(16)", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
            {"name": "CHANGED", "type": "TIMESTAMP"}], "primary_key": ["KEY"]}],
    "mappings": [{"id": "fwd", "source": "hq.CUST", "target": "br.CUST", "columns": {"NAME": "NAME"}}],
    "layout": {"hq.CUST": [0, 0], "br.CUST": [1400, 900]},
}


@pytest.fixture
def two(window: MainWindow, tmp_path: Path) -> MainWindow:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(TWO))
    assert window.open_path(path)
    return window


def test_dialogs_check_as_you_type(qtbot: Any, two: MainWindow) -> None:
    model = two.document.model
    server = ServerDialog(model)
    qtbot.addWidget(server)
    ok = server.buttons.buttons()[0]
    server.id.setText("hq")
    assert "already exists" in server.problem_label.text() and not ok.isEnabled()
    server.id.setText("web")
    server.priority.setText("ten")
    assert "not a number" in server.problem_label.text() and not ok.isEnabled()
    server.priority.setText("10")
    assert ok.isEnabled() and server.values() == {"id": "web", "dbms": "oracle", "priority": 10.0,
                                                  "float_format": None}
    table = TableDialog(model, "br")
    qtbot.addWidget(table)
    table.name.setText("CUST")
    assert "already has a table" in table.problem_label.text()
    table.name.setText("ORDERS")
    assert table.problem_label.text() == "" and table.values()["server_id"] == "br"
    table.with_id.setChecked(True)
    assert (table.values()["columns"][0]["name"], table.values()["primary_key"]) == ("ID", ["ID"])
    where = WhereDialog(model, "fwd")
    qtbot.addWidget(where)
    where.text.setPlainText("REGION <> 'XX'\n  AND STATUS = 'A'")
    assert where.problem_label.text().startswith("MP003") and "'STATUS'" in where.problem_label.text()
    where.text.setPlainText("REGION <> 'XX' AND (")
    assert "does not parse" in where.problem_label.text()
    where.text.setPlainText("REGION <> 'XX'\n  AND NO > 0")
    assert where.problem_label.text() == "" and where.value() == "REGION <> 'XX'\n  AND NO > 0"


def test_the_columns_grid_checks_types_as_you_type_and_edits_columns(qtbot: Any, two: MainWindow) -> None:
    two.tree.sig_selected.emit(("table", "br.CUST"))
    editor = two.inspector.columns
    assert editor is not None and editor.model.rowCount() == 3
    # the type cell's editor turns red with the reason while the text is not a contract type
    index = editor.model.index(1, 1)
    editor.view.setCurrentIndex(index)
    editor.view.edit(index)
    line = editor.view.findChild(QLineEdit)
    assert line is not None
    line.setText("VARCHR(40)")
    assert line.property("problem") and "d32f2f" in line.styleSheet()
    line.setText("VARCHAR(80)")
    assert line.property("problem") == "" and line.styleSheet() == ""
    editor.view.commitData(line)
    assert two.document.model.table("br.CUST").column("NAME").type == "VARCHAR(80)"  # type: ignore[union-attr]
    # a refused value is not applied, and the panel says why
    assert not editor.model.setData(editor.model.index(1, 0), "KEY")
    assert "already has a column KEY" in two.inspector.error.text()
    # add, move, remove; the same editor keeps its selected row across the edits
    editor.view.selectRow(1)
    editor.add_column("CODE", "CHAR(3)")
    assert two.inspector.columns is editor
    assert two.document.model.table("br.CUST").column_names() == ["KEY", "NAME", "CODE", "CHANGED"]  # type: ignore[union-attr]
    editor.move_current(-1)
    assert two.document.model.table("br.CUST").column_names() == ["KEY", "CODE", "NAME", "CHANGED"]  # type: ignore[union-attr]
    assert editor.current() == "CODE"
    editor.uniques.setText("UX_CODE(CODE); UX_NAME(NAME, CHANGED)")
    editor.uniques.editingFinished.emit()
    assert [ux.name for ux in two.document.model.table("br.CUST").unique_indexes] == ["UX_CODE", "UX_NAME"]  # type: ignore[union-attr]
    editor.remove_current()
    assert "CODE" not in two.document.model.table("br.CUST").column_names()  # type: ignore[union-attr]
    assert [ux.name for ux in two.document.model.table("br.CUST").unique_indexes] == ["UX_NAME"]  # type: ignore[union-attr]
    for _ in range(5):
        two.undo_action.trigger()
    assert two.document.model.table("br.CUST").column_names() == ["KEY", "NAME", "CHANGED"]  # type: ignore[union-attr]
    # the buttons themselves: Add column names the new column and selects it, Up moves it
    buttons = {b.text(): b for b in editor.findChildren(QPushButton)}
    editor.view.selectRow(0)
    buttons["Add column"].click()
    assert two.document.model.table("br.CUST").column_names() == ["KEY", "COLUMN_4", "NAME", "CHANGED"]  # type: ignore[union-attr]
    assert editor.current() == "COLUMN_4"
    buttons["Up"].click()
    assert two.document.model.table("br.CUST").column_names()[0] == "COLUMN_4"  # type: ignore[union-attr]
    buttons["Remove"].click()
    assert two.document.model.table("br.CUST").column_names() == ["KEY", "NAME", "CHANGED"]  # type: ignore[union-attr]


def test_the_mapping_grid_is_searchable_and_editable(qtbot: Any, two: MainWindow) -> None:
    grid = two.grid
    rows = [(grid.model.index(r, 1).data(), grid.model.index(r, 2).data()) for r in range(grid.model.rowCount())]
    assert rows == [("KEY", ""), ("NAME", "column"), ("CHANGED", "")]
    grid.search.setText("chang")
    assert grid.proxy.rowCount() == 1 and grid.proxy.index(0, 1).data() == "CHANGED"
    grid.search.setText("")
    model = grid.model
    assert model.setData(model.index(0, 2), "concat")  # KEY = concat(REGION, NO)
    assert model.index(0, 3).data() == "REGION, NO"
    assert model.setData(model.index(0, 3), "NO, REGION")
    key = two.document.model.mapping("fwd").columns["KEY"]  # type: ignore[union-attr]
    assert [i.input for i in key.inputs] == ["NO", "REGION"]  # type: ignore[union-attr]
    assert model.setData(model.index(2, 3), "CHANGED")  # an unmapped column: a copy
    assert two.document.model.mapping("fwd").columns["CHANGED"].input == "CHANGED"  # type: ignore[union-attr]
    assert not model.setData(model.index(1, 2), "concatt")
    assert "unknown method 'concatt'" in grid.problem.text()
    assert model.setData(model.index(1, 2), "")  # empty: no map
    assert "NAME" not in two.document.model.mapping("fwd").columns  # type: ignore[union-attr]
    two.undo_action.trigger()
    assert model.index(1, 2).data() == "column"


def test_inserting_concat_shows_its_inputs_to_reorder(qtbot: Any, two: MainWindow) -> None:
    menu = two.controller.menu_for(("column", "br.CUST", "KEY"))
    menu_action(menu, "Insert method/concat").trigger()
    assert two.inspector.ref == ("method", "fwd", "KEY", ())
    inputs = two.inspector.inputs
    assert [inputs.item(i).text() for i in range(inputs.count())] == ["REGION", "NO"]
    inputs.setCurrentRow(1)
    form, rebuilds = two.inspector.widget(), two.inspector.rebuilds
    two.inspector.move_input("fwd", "KEY", (), -1)
    key = two.document.model.mapping("fwd").columns["KEY"]  # type: ignore[union-attr]
    assert [i.input for i in key.inputs] == ["NO", "REGION"]  # type: ignore[union-attr]
    assert two.inspector.inputs is inputs  # updated in place, with the moved input still selected
    assert [inputs.item(i).text() for i in range(inputs.count())] == ["NO", "REGION"]
    assert inputs.currentRow() == 0
    separator = two.inspector.fields["sep"]
    assert isinstance(separator, QLineEdit)
    separator.setText("/")
    separator.editingFinished.emit()  # a field of the method commits, and its form stays
    key = two.document.model.mapping("fwd").columns["KEY"]  # type: ignore[union-attr]
    assert key.sep == "/" and [i.input for i in key.inputs] == ["NO", "REGION"]  # type: ignore[union-attr]
    two.document.undo_stack.undo()
    assert separator.text() != "/" and two.inspector.fields["sep"] is separator
    assert two.inspector.widget() is form and two.inspector.rebuilds == rebuilds


def test_latest_timestamp_proposes_a_datetime_column_of_the_group(qtbot: Any, two: MainWindow) -> None:
    editor = two.conflicts
    editor.show_table("br.CUST")
    editor.enabled.setChecked(True)
    editor.add_group("g")
    editor.move_column("NAME", "g")
    editor.move_column("CHANGED", "g")
    editor.groups.setCurrentItem(editor.groups.topLevelItem(0))
    editor.add_method("latest_timestamp")
    editor.add_method("maximum")
    chain = two.document.model.conflicts_for("br.CUST").column_groups[0].resolution  # type: ignore[union-attr]
    assert [(s.method, s.column) for s in chain] == [("latest_timestamp", "CHANGED"), ("maximum", "NAME")]


def test_the_properties_panel_keeps_its_selection_across_edits_and_renames(qtbot: Any, two: MainWindow) -> None:
    two.select(("column", "hq.CUST", "NAME"))
    two.authoring.add_server({"id": "web", "dbms": "mssql"})
    assert two.inspector.ref == ("column", "hq.CUST", "NAME")
    assert two.authoring.rename(("column", "hq.CUST", "NAME"), "FULL_NAME")
    assert two.inspector.ref == ("column", "hq.CUST", "FULL_NAME")
    assert two.authoring.rename(("server", "hq"), "head")
    assert two.inspector.ref == ("column", "head.CUST", "FULL_NAME")
    assert "head.CUST.FULL_NAME" in two.inspector.title.text()
    two.select(("mapping", "fwd"))
    assert two.authoring.rename(("mapping", "fwd"), "forward")
    assert two.inspector.ref == ("mapping", "forward")
    # a selected link on the canvas stays in the panel while the canvas redraws after an edit
    link = next(i for i in two.scene.decorations if getattr(i, "ref", None) == ("forward", "NAME"))
    link.setSelected(True)
    assert two.inspector.ref[0] == "link"
    assert cmd.push(two.document, cmd.SetColumn(two.document, "br.CUST", "CHANGED", nullable=False))
    assert two.inspector.ref == ("link", "forward", "NAME")


def test_selecting_a_table_in_the_tree_centres_it_on_the_canvas(qtbot: Any, two: MainWindow) -> None:
    two.view.resetTransform()
    item = two.scene.tables["br.CUST"]
    two.view.centerOn(two.scene.tables["hq.CUST"])
    assert not two.view.viewport().rect().contains(two.view.mapFromScene(item.sceneBoundingRect().center()))
    tree = two.tree
    index = next(i for i in tree._all() if tree.ref_at(i) == ("table", "br.CUST"))
    tree.clicked.emit(index)
    centre = two.view.mapFromScene(item.sceneBoundingRect().center())
    assert two.view.viewport().rect().contains(centre)
    assert item.isSelected() and two.inspector.ref == ("table", "br.CUST")


def test_menus_offer_what_applies(qtbot: Any, two: MainWindow) -> None:
    texts = [a.text() for a in context_menu(two, ("table", "hq.CUST")).actions()]
    for wanted in ("Add column", "Rename table hq.CUST…", "Remove table hq.CUST", "Replicate to…",
                   "New mapping to…", "Add server…", "Add table…"):
        assert wanted in texts
    column = [a.text() for a in context_menu(two, ("column", "hq.CUST", "NAME")).actions()]
    assert {"Rename column NAME…", "Remove column NAME", "Move column up"} <= set(column)
    mapping = [a.text() for a in context_menu(two, ("link", "fwd", "NAME")).actions()]
    assert {"Auto-map by name", "Edit where…", "Rename mapping fwd…", "Remove mapping fwd"} <= set(mapping)
    # the canvas: its own entries first, then authoring; on empty space, Add server / Add table
    canvas = [a.text() for a in two.controller.menu_for(("column", "br.CUST", "KEY")).actions()]
    assert "Insert method" in canvas and "Auto-map by name" not in canvas and "Add column" in canvas
    table = [a.text() for a in two.controller.menu_for(("table", "br.CUST")).actions()]
    assert [t for t in table if "table br.CUST" in t] == ["Rename table br.CUST…", "Remove table br.CUST"]
    empty = [a.text() for a in two.controller.menu_for(("canvas",)).actions()]
    assert [t for t in empty if t] == ["Add server…", "Add table…"]
    # Replicate to… from the context menu, then the Edit menu enabled by the selection
    menu_action(context_menu(two, ("table", "hq.CUST")), "Replicate to…/br").trigger()
    assert two.document.model.table("br.CUST") is not None  # br already had a CUST: refused, not applied
    assert "already exists" in two.statusBar().currentMessage()
    two.authoring.rename(("table", "br.CUST"), "CUSTOMER")
    menu_action(context_menu(two, ("table", "hq.CUST")), "Replicate to…/br").trigger()
    replica = two.document.model.table("br.CUST")
    assert replica is not None and replica.columns == two.document.model.table("hq.CUST").columns  # type: ignore[union-attr]
    edit_menu = two.menuBar().actions()[1].menu()
    two.select(("table", "hq.CUST"))
    edit_menu.aboutToShow.emit()
    enabled = {t for t, a in two.authoring_actions.items() if a.isEnabled()}
    assert enabled == {"Add server…", "Add table…", "Add column", "Rename…", "Remove", "Replicate to…",
                       "New mapping to…"}
    two.select(("link", "fwd", "NAME"))
    two.authoring_actions["Remove"].trigger()  # a selected column map: only it goes
    assert two.document.model.mapping("fwd").columns == {}  # type: ignore[union-attr]
    two.select(("mapping", "fwd"))
    edit_menu.aboutToShow.emit()
    assert two.authoring_actions["Auto-map by name"].isEnabled() and not two.authoring_actions["Add column"].isEnabled()
    two.authoring_actions["Remove"].trigger()
    assert two.document.model.mapping("fwd") is None


def test_edit_menu_follows_the_selection_for_its_shortcuts(qtbot: Any, two: MainWindow) -> None:
    rename = two.authoring_actions["Rename…"]
    assert rename.shortcut().toString() == "F2"
    two.select(())
    assert not rename.isEnabled()
    two.tree.sig_selected.emit(("server", "br"))  # no menu opened: the selection alone enables it
    assert rename.isEnabled() and not two.authoring_actions["Add column"].isEnabled()


def test_a_multi_line_where_is_edited_by_the_multi_line_editor_only(qtbot: Any, two: MainWindow) -> None:
    assert two.authoring.edit_where("fwd", "REGION <> 'XX'\n  AND NO > 0")
    two.select(("mapping", "fwd"))
    line = two.inspector.fields["where"]
    assert isinstance(line, QLineEdit) and line.isReadOnly() and line.text() == "REGION <> 'XX' AND NO > 0"
    opened: list[str] = []
    two.inspector.sig_edit_where.connect(opened.append)
    next(b for b in two.inspector.findChildren(QPushButton) if b.text() == "Edit where…").click()
    assert opened == ["fwd"]
    assert two.document.model.mapping("fwd").where == "REGION <> 'XX'\n  AND NO > 0"  # type: ignore[union-attr]


def test_an_empty_canvas_says_how_to_start(qtbot: Any, window: MainWindow) -> None:
    from designer.canvas.view import EMPTY_HINT

    def inked_centre() -> int:
        """Pixels of the viewport's central band that are not background (the hint's text)."""
        image = window.view.viewport().grab().toImage()
        background = image.pixel(2, 2)
        y0 = image.height() // 2 - 12
        return sum(image.pixel(x, y) != background for x in range(0, image.width(), 2) for y in range(y0, y0 + 24))

    assert not window.scene.items() and "Right-click" in EMPTY_HINT
    assert inked_centre() > 50  # the hint is drawn
    window.authoring.add_server({"id": "hq", "dbms": "oracle"})
    window.authoring.add_table("hq", "T", [{"name": "ID", "type": "INTEGER"}])
    window.scene.setSceneRect(-5000, -5000, 10000, 10000)
    window.view.resetTransform()
    window.view.centerOn(4000, 4000)  # far from the table: nothing should be drawn here now
    assert inked_centre() == 0


def test_an_edit_of_the_shown_column_updates_its_fields_in_place(qtbot: Any, two: MainWindow) -> None:
    """The form stays (its widgets, the focus) and shows the new values; a commit from a field reads the
    entity as it is now, so it never undoes an edit made since the form was built."""
    two.show()
    two.select(("column", "br.CUST", "NAME"))
    inspector = two.inspector
    form, rebuilds = inspector.widget(), inspector.rebuilds
    default = inspector.fields["default"]
    assert isinstance(default, QLineEdit)
    default.setFocus()
    assert cmd.push(two.document, cmd.SetColumn(two.document, "br.CUST", "NAME", type="VARCHAR(80)"))
    assert inspector.widget() is form and inspector.rebuilds == rebuilds and inspector.fields["default"] is default
    type_line, not_null = inspector.fields["type"], inspector.fields["NOT NULL"]
    assert isinstance(type_line, QLineEdit) and type_line.text() == "VARCHAR(80)"
    assert isinstance(not_null, QCheckBox) and not not_null.isChecked()
    default.setText("'n/a'")
    default.editingFinished.emit()  # commits through the form built before the type changed
    column = two.document.model.table("br.CUST").column("NAME")  # type: ignore[union-attr]
    assert column is not None and column.default == "'n/a'" and column.type == "VARCHAR(80)"
    assert inspector.widget() is form and default.text() == "'n/a'"
    two.document.undo_stack.undo()  # undo restores the value shown, in place
    assert default.text() == "" and inspector.widget() is form
    not_null.setChecked(True)  # a check box commits too, and its form stays
    assert two.document.model.table("br.CUST").column("NAME").nullable is False  # type: ignore[union-attr]
    assert inspector.widget() is form and inspector.rebuilds == rebuilds


def test_an_edit_that_changes_the_forms_rows_rebuilds_it(qtbot: Any, two: MainWindow) -> None:
    two.select(("column", "br.CUST", "NAME"))
    inspector = two.inspector
    form, rebuilds = inspector.widget(), inspector.rebuilds
    assert "fwd" in [label for label, _ in inspector._rows]
    assert cmd.push(two.document, cmd.RemoveMapping(two.document, "fwd"))  # its rows in the column's form go
    assert inspector.widget() is not form and inspector.rebuilds == rebuilds + 1
    assert inspector.ref == ("column", "br.CUST", "NAME") and "fwd" not in [label for label, _ in inspector._rows]


def test_add_mapping_back_from_the_menu_on_a_concat_without_separator(qtbot: Any, two: MainWindow,
                                                                     unhandled: list[BaseException]) -> None:
    """A key concatenated with no separator has no split inverse: "Add mapping back (reverse)" adds the mapping
    back without those columns (BI002 then says why), one undo step; it raised in the menu's slot, adding nothing."""
    from engine.model import dump_model

    doc = two.document
    cmd.push(doc, cmd.SetMethod(doc, "fwd", "KEY", {"method": "concat", "inputs": ["REGION", "NO"], "sep": ""}))
    before = dump_model(doc.model)
    menu_action(context_menu(two, ("link", "fwd", "NAME")), "Add mapping back (reverse)").trigger()
    assert unhandled == []
    back = doc.model.mapping("br_CUST_to_hq_CUST")
    assert back is not None and set(back.columns) == {"NAME"}
    assert any(f.code == "BI002" and f.location.mapping == "fwd" for f in doc.findings())
    doc.undo_stack.undo()
    assert dump_model(doc.model) == before
