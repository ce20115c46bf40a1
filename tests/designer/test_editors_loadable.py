"""Every editor that takes a number (or a value) as free text refuses what no model file may hold, in red with
the loader's own reason, and applies nothing: the designer never saves a file it cannot open again
(pytest-qt, on the bundled sample)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.authoring import commands as cmd
from designer.authoring.dialogs import ServerDialog
from designer.window import MainWindow
from engine.model import dump_model, load_model
from resources import SAMPLE_MODEL

DIGITS_400 = "9" * 400
REFUSED = {DIGITS_400: "an integer of 400 digits is out of range (at most 38)",
           "-" + "1" * 39: "an integer of 39 digits is out of range (at most 38)",
           "9" * 5000: "an integer of 5000 digits is out of range (at most 38)",
           "1e400": "1e400 is out of range for a number"}


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    w = make_window(qtbot, tmp_path, SAMPLE_MODEL)
    # a constant with a number, as the probe had it
    cmd.push(w.document, cmd.SetMethod(w.document, "cust_hq_to_branch", "STATUS", {"method": "constant", "value": 1}))
    w.document.undo_stack.setClean()
    return w


def still_opens(window: MainWindow, tmp_path: Path) -> None:
    """The model as it is now saves to a file that opens again (what `mapwright validate` reads)."""
    path = tmp_path / "saved.json"
    window.document.save(path)
    load_model(path)


def commit(window: MainWindow, ref: tuple[object, ...], field: str, text: str) -> None:
    window.select(ref)
    line = window.inspector.fields[field]
    assert isinstance(line, QLineEdit)
    line.setText(text)
    line.editingFinished.emit()


FORM_FIELDS: list[tuple[tuple[object, ...], str, str]] = [
    (("server", "hq"), "priority", "priority"),
    (("column", "hq.CUSTOMER", "CONTACT_VERSION"), "default", "default"),
    (("method", "cust_hq_to_branch", "STATUS", ()), "value", "value"),
]


@pytest.mark.parametrize(("ref", "field", "named"), FORM_FIELDS, ids=[f[1] for f in FORM_FIELDS])
@pytest.mark.parametrize("typed", list(REFUSED), ids=["400 digits", "39 digits", "5000 digits", "1e400"])
def test_a_form_field_refuses_a_number_no_file_may_hold(window: MainWindow, tmp_path: Path,
                                                        unhandled: list[BaseException], ref: tuple[object, ...],
                                                        field: str, named: str, typed: str) -> None:
    before = dump_model(window.document.model)
    commit(window, ref, field, typed)
    assert not unhandled
    assert dump_model(window.document.model) == before and not window.document.dirty
    assert window.inspector.error.text() == f"not applied: {named}: {REFUSED[typed]}"
    still_opens(window, tmp_path)


@pytest.mark.parametrize("field", ["start", "length"])
def test_a_method_whole_number_field_refuses_one_of_400_digits(window: MainWindow, field: str) -> None:
    cmd.push(window.document, cmd.SetMethod(window.document, "cust_hq_to_branch", "NAME",
                                            {"method": "substring", "input": "NAME", "start": 1, "length": 10}))
    before = dump_model(window.document.model)
    commit(window, ("method", "cust_hq_to_branch", "NAME", ()), field, DIGITS_400)
    assert dump_model(window.document.model) == before
    assert window.inspector.error.text() == f"not applied: {field}: {REFUSED[DIGITS_400]}"


def test_the_widest_integer_a_file_holds_is_still_taken(window: MainWindow, tmp_path: Path) -> None:
    commit(window, ("server", "hq"), "priority", "9" * 38)
    assert window.document.model.server("hq").priority == int("9" * 38)  # type: ignore[union-attr]
    assert window.inspector.error.text() == ""
    still_opens(window, tmp_path)


def test_the_columns_grid_refuses_a_default_no_file_may_hold(window: MainWindow, tmp_path: Path) -> None:
    window.select(("table", "hq.CUSTOMER"))
    editor = window.inspector.columns
    assert editor is not None
    grid = editor.model
    row = window.document.model.table("hq.CUSTOMER").column_names().index("CONTACT_VERSION")  # type: ignore[union-attr]
    before = dump_model(window.document.model)
    assert not grid.setData(grid.index(row, 3), DIGITS_400, Qt.ItemDataRole.EditRole)
    assert dump_model(window.document.model) == before
    assert editor.problem.text() == f"not applied: default: {REFUSED[DIGITS_400]}"
    still_opens(window, tmp_path)


def test_the_mapping_grid_refuses_a_constant_no_file_may_hold(window: MainWindow, tmp_path: Path) -> None:
    grid = window.grid.model
    row = grid.rows.index(("cust_hq_to_branch", "STATUS"))
    before = dump_model(window.document.model)
    assert not grid.setData(grid.index(row, 3), DIGITS_400)
    assert dump_model(window.document.model) == before
    assert window.grid.problem.text() == f"not applied: columns.STATUS.value: {REFUSED[DIGITS_400]}"
    still_opens(window, tmp_path)


def test_the_priority_map_refuses_a_priority_no_file_may_hold(window: MainWindow, tmp_path: Path) -> None:
    window.select(("table", "hq.ORDERS"))
    editor = window.conflicts
    editor.groups.setCurrentItem(editor.groups.topLevelItem(0))  # status_cg
    editor.chain.setCurrentRow(0)  # its priority_group step
    value = editor.priorities.item(0, 0).text()
    before = dump_model(window.document.model)
    editor.priorities.item(0, 1).setText(DIGITS_400)
    assert dump_model(window.document.model) == before and not window.document.dirty
    assert editor.problem.text() == f"not applied: priority of {value!r}: {REFUSED[DIGITS_400]}"
    still_opens(window, tmp_path)


def test_the_server_dialog_refuses_a_priority_no_file_may_hold(qtbot: QtBot, window: MainWindow) -> None:
    dialog = ServerDialog(window.document.model)
    qtbot.addWidget(dialog)
    dialog.id.setText("new")
    dialog.priority.setText(DIGITS_400)
    assert dialog.problem_label.text() == f"priority: {REFUSED[DIGITS_400]}"
    assert not dialog.buttons.buttons()[0].isEnabled()


@pytest.mark.parametrize(("edit", "says"), [
    (lambda w: w.authoring.add_server({"id": "big", "dbms": "oracle", "priority": 10**399}),
     "priority: an integer of 400 digits"),
    (lambda w: w.authoring.edit_server("hq", {"priority": 10**39}), "priority: an integer of 40 digits"),
], ids=["add server", "edit server"])
def test_authoring_gestures_refuse_a_value_no_file_may_hold(window: MainWindow, unhandled: list[BaseException],
                                                            edit: Callable[[MainWindow], bool], says: str) -> None:
    problems: list[str] = []
    window.authoring.sig_problem.connect(problems.append)
    before = dump_model(window.document.model)
    assert not edit(window)
    assert not unhandled and dump_model(window.document.model) == before
    assert problems and problems[-1].startswith(says)


def test_mapwright_validate_opens_what_the_editors_left(window: MainWindow, tmp_path: Path) -> None:
    for ref, field, _named in FORM_FIELDS:
        commit(window, ref, field, DIGITS_400)
    path = tmp_path / "after.json"
    window.document.save(path)
    out = subprocess.run([sys.executable, "-m", "engine.cli", "validate", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 2 and "out of range" not in out.stderr, out.stderr
