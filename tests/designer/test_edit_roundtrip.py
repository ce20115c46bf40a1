"""A value shown in a cell or a field and committed as it is changes nothing, and numbers keep their form:
the mapping grid, the columns grid, the server form and the conflict editor's priorities."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.values import parse_like, parse_number, value_text
from designer.window import MainWindow
from engine.model import dump_model
from engine.model.methods import Concat
from resources import SAMPLE_MODEL

INPUTS = 3


def sample_with(tmp_path: Path, change: Any = None) -> Path:
    model = json.loads(SAMPLE_MODEL.read_text())
    if change is not None:
        change(model)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    return path


def nested_and_numeric(model: dict[str, Any]) -> None:
    for mapping in model["mappings"]:
        if mapping["id"] == "cust_hq_to_branch":
            mapping["columns"]["CUST_KEY"] = {"method": "concat", "sep": "-",
                                              "inputs": [{"method": "upper", "input": "REGION"}, "CUST_NO"]}
        if mapping["id"] == "orders_web_to_hq":
            mapping["columns"]["ORIGIN"] = {"method": "constant", "value": 7}


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, sample_with(tmp_path, nested_and_numeric))


# --- the mapping grid -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mapping", "column"), [("cust_hq_to_branch", "CUST_KEY"), ("cust_branch_to_hq", "CUST_NO"),
                                                 ("orders_web_to_hq", "ORIGIN")])
@pytest.mark.parametrize("cell", [2, INPUTS])
def test_a_grid_cell_committed_as_shown_changes_nothing(window: MainWindow, mapping: str, column: str,
                                                        cell: int) -> None:
    grid = window.grid.model
    index = grid.index(grid.rows.index((mapping, column)), cell)
    before = dump_model(window.document.model)
    assert not grid.setData(index, grid.data(index, Qt.ItemDataRole.EditRole), Qt.ItemDataRole.EditRole)
    assert dump_model(window.document.model) == before and not window.document.dirty


def test_enter_in_an_untouched_inputs_editor_keeps_a_nested_method(window: MainWindow, qtbot: QtBot) -> None:
    window.side_tabs.setCurrentWidget(window.grid)
    grid = window.grid
    index = grid.proxy.mapFromSource(grid.model.index(grid.model.rows.index(("cust_hq_to_branch", "CUST_KEY")), INPUTS))
    grid.view.setCurrentIndex(index)
    grid.view.edit(index)  # a double click, F2
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit) and editor.text() == "upper(REGION), CUST_NO"
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()  # the delegate commits once the editor closes
    method = window.document.model.mapping("cust_hq_to_branch").columns["CUST_KEY"]
    assert isinstance(method, Concat) and method.inputs[0].method == "upper" and not window.document.dirty


def test_a_nested_method_s_inputs_are_not_rewritten_from_their_description(window: MainWindow) -> None:
    grid = window.grid.model
    index = grid.index(grid.rows.index(("cust_hq_to_branch", "CUST_KEY")), INPUTS)
    assert not grid.setData(index, "upper(REGION), CUST_NO, CUST_NAME", Qt.ItemDataRole.EditRole)
    assert "properties panel" in window.grid.problem.text() and not window.document.dirty


def test_a_numeric_constant_edited_in_the_grid_stays_a_number(window: MainWindow) -> None:
    grid = window.grid.model
    index = grid.index(grid.rows.index(("orders_web_to_hq", "ORIGIN")), INPUTS)
    assert grid.data(index, Qt.ItemDataRole.EditRole) == "7"
    assert grid.setData(index, "8", Qt.ItemDataRole.EditRole)
    assert window.document.model.mapping("orders_web_to_hq").columns["ORIGIN"].model_dump()["value"] == 8
    assert '"value": 8\n' in dump_model(window.document.model)


# --- the columns grid and the forms ---------------------------------------------------------------------------

def test_an_unchanged_default_cell_keeps_its_number(window: MainWindow) -> None:
    window.select(("table", "hq.CUSTOMER"))
    assert window.inspector.columns is not None
    columns = window.inspector.columns.model
    index = columns.index(window.document.model.table("hq.CUSTOMER").column_names().index("CONTACT_VERSION"), 3)
    assert not columns.setData(index, columns.data(index, Qt.ItemDataRole.EditRole), Qt.ItemDataRole.EditRole)
    assert not window.document.dirty
    assert columns.setData(index, "2", Qt.ItemDataRole.EditRole)
    assert window.document.model.table("hq.CUSTOMER").column("CONTACT_VERSION").default == 2


def test_a_priority_typed_as_an_integer_is_saved_as_one(window: MainWindow) -> None:
    window.select(("server", "hq"))
    field = window.inspector.fields["priority"]
    assert isinstance(field, QLineEdit)
    field.setText("40")
    field.editingFinished.emit()
    text = dump_model(window.document.model)
    assert '"priority": 40\n' in text and "40.0" not in text


def test_a_big_priority_is_shown_in_full_and_kept(qtbot: QtBot, tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, sample_with(tmp_path, lambda m: m["servers"][0].update(priority=1234567)))
    w.select(("server", "hq"))
    field = w.inspector.fields["priority"]
    assert isinstance(field, QLineEdit) and field.text() == "1234567"
    field.setText("1234567 ")
    field.editingFinished.emit()
    assert w.document.model.server("hq").priority == 1234567


def test_a_priority_that_is_no_finite_number_is_refused_in_the_form(window: MainWindow) -> None:
    window.select(("server", "hq"))
    field = window.inspector.fields["priority"]
    assert isinstance(field, QLineEdit)
    field.setText("inf")
    field.editingFinished.emit()
    assert "not a finite number" in window.inspector.error.text() and not window.document.dirty


# --- the conflict editor --------------------------------------------------------------------------------------

def status_group(window: MainWindow) -> Any:
    window.select(("table", "hq.ORDERS"))
    editor = window.conflicts
    editor.groups.setCurrentItem(editor.groups.topLevelItem(0))  # status_cg
    editor.chain.setCurrentRow(0)  # its priority_group step
    assert editor.priorities.rowCount() == 5
    return editor


@pytest.mark.parametrize("typed", ["inf", "nan", "1e999", "-inf", "high"])
def test_a_priority_the_model_refuses_is_said_inline(window: MainWindow, unhandled: list[BaseException],
                                                     typed: str) -> None:
    editor = status_group(window)
    editor.priorities.item(0, 1).setText(typed)
    assert not unhandled and not window.document.dirty
    assert "not applied" in editor.problem.text() and typed in editor.problem.text()


def test_priorities_keep_integers_and_show_them_in_full(window: MainWindow) -> None:
    editor = status_group(window)
    editor.priorities.item(0, 1).setText("1234567")
    assert not editor.problem.text()
    step = window.document.model.conflicts_for("hq.ORDERS").column_groups[0].resolution[0]
    value = editor.priorities.item(0, 0).text()
    assert step.priorities[value] == 1234567 and isinstance(step.priorities[value], int)
    assert editor.priorities.item(0, 1).text() == "1234567"


def test_a_group_name_is_stripped_before_the_duplicate_check(window: MainWindow) -> None:
    window.select(("table", "hq.ORDERS"))
    window.conflicts.add_group(" status_cg ")
    names = [g.name for g in window.document.model.conflicts_for("hq.ORDERS").column_groups]
    assert names.count("status_cg") == 1 and not window.document.dirty
    assert "already exists" in window.conflicts.problem.text()
    window.conflicts.add_group(" other_cg ")
    assert "other_cg" in [g.name for g in window.document.model.conflicts_for("hq.ORDERS").column_groups]


# --- the values behind them -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "text"), [(40, "40"), (1234567, "1234567"), (40.0, "40.0"), (0.1, "0.1"),
                                             (1e20, "1e+20"), (None, ""), (True, "true"), ("7", "7")])
def test_a_value_is_shown_so_that_it_reads_back_the_same(value: Any, text: str) -> None:
    assert value_text(value) == text
    assert parse_like(text, value) == value and type(parse_like(text, value)) is type(value)


@pytest.mark.parametrize(("text", "current", "read"), [("8", 7, 8), ("2.5", 7, 2.5), ("abc", 7, "abc"),
                                                       ("8", "7", "8"), ("false", True, False), ("1", None, "1")])
def test_an_edited_value_keeps_its_json_type(text: str, current: Any, read: Any) -> None:
    assert parse_like(text, current) == read and type(parse_like(text, current)) is type(read)


@pytest.mark.parametrize("text", ["inf", "nan", "1e999", "", "x"])
def test_what_is_no_finite_number_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_number(text)
