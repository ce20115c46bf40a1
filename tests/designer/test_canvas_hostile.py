"""The canvas under hostile gestures: a drag whose source goes while it is drawn, far positions, a selection
whose entity an undo takes away (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from windows import TWO_TABLES, row_point, window_on

from designer.canvas.items import TableItem
from designer.canvas.wires import LinkItem
from designer.window import MainWindow
from engine.model import load_model
from engine.model.io import dump_model


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    return window_on(qtbot, tmp_path, TWO_TABLES, "two.json")


def drawn_as_modelled(w: MainWindow) -> None:
    """The scene holds an item for each table and column map of the model, and none for anything else."""
    model = w.document.model
    items = w.scene.items()
    assert sorted(i.key for i in items if isinstance(i, TableItem)) == sorted(t.key for t in model.tables)
    drawn = {i.ref for i in items if isinstance(i, LinkItem)}
    assert {(m.id, c) for m in model.mappings for c in m.columns} == drawn


def press_and_move(w: MainWindow, start: QPoint) -> None:
    viewport = w.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(40, 0))
    QTest.mouseMove(viewport, start + QPoint(80, 0))
    assert w.scene.interaction is not None and w.scene.interaction.line is not None


def release_at(w: MainWindow, end: QPoint) -> None:
    viewport = w.view.viewport()
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def test_a_drag_whose_source_table_is_deleted_meanwhile_maps_nothing(window: MainWindow,
                                                                      unhandled: list[BaseException]) -> None:
    end = row_point(window, "br.CUST", "CODE")
    press_and_move(window, row_point(window, "hq.CUST", "NO"))
    window.controller.delete_table("hq.CUST")  # the Delete key, pressed with the mouse still down
    before = dump_model(window.document.model)
    release_at(window, end)
    assert dump_model(window.document.model) == before  # no mapping from a table that is gone
    assert "hq.CUST" in window.statusBar().currentMessage()
    assert window.scene.interaction is None
    assert not [i for i in window.scene.items() if type(i).__name__ == "DragLine"]
    drawn_as_modelled(window)
    assert unhandled == []


def test_a_drag_whose_source_column_an_undo_removes_meanwhile_maps_nothing(window: MainWindow) -> None:
    from engine import authoring as au
    from engine.edits import evolve, replace

    doc = window.document
    table = doc.model.table("hq.CUST")
    assert table is not None
    added = evolve(table, columns=[*(c.model_dump(mode="json") for c in table.columns),
                                   {"name": "EXTRA", "type": "INTEGER"}])
    doc.apply([replace(doc.model, "table", table, added)], "Add column EXTRA")
    end = row_point(window, "br.CUST", "NAME")
    press_and_move(window, row_point(window, "hq.CUST", "EXTRA"))
    window.undo_action.trigger()  # Ctrl+Z with the mouse still down: EXTRA is gone
    before = dump_model(doc.model)
    release_at(window, end)
    assert dump_model(doc.model) == before, dump_model(doc.model)[-400:].replace("\n", "")
    assert "EXTRA" in window.statusBar().currentMessage()
    assert au.connect_columns(doc.model, "hq.CUST", "EXTRA", "br.CUST", "NAME") == []
    drawn_as_modelled(window)


def test_a_table_moved_far_off_saves_a_file_that_opens_again(qtbot: Any, tmp_path: Path,
                                                            unhandled: list[BaseException]) -> None:
    far = {**TWO_TABLES, "layout": {"hq.CUST": [1e300, -1e300], "br.CUST": [500, 0]}}
    w = window_on(qtbot, tmp_path, far, "far.json")  # a position the file may hold
    path = tmp_path / "far.json"
    w.controller.move_tables([("hq.CUST", 1e300, 5.0), ("br.CUST", 1e9, -1e9)])  # the table dragged a little
    w.save()
    assert load_model(path).layout == {"hq.CUST": [1e300, 5], "br.CUST": [1_000_000_000, -1_000_000_000]}
    w.undo_action.trigger()
    assert w.document.model.layout == {"hq.CUST": [1e300, -1e300], "br.CUST": [500, 0]}
    assert w.scene.tables["br.CUST"].pos().x() == 500
    assert unhandled == []


def test_undoing_the_edit_that_made_a_selected_method_node_raises_nothing(window: MainWindow,
                                                                          unhandled: list[BaseException]) -> None:
    from engine import authoring as au

    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    mid = doc.model.mappings[0].id
    concat = {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"}
    doc.apply(au.set_method(doc.model, mid, "KEY", concat), "concat")
    doc.apply(au.set_method(doc.model, mid, "KEY", {**concat, "inputs": ["REGION", "NO", {
        "method": "upper", "input": "NAME"}]}), "a third input")
    node = next(i for i in window.scene.items() if getattr(i, "ref", None) == (mid, "KEY", (2,)))
    window.scene.clearSelection()
    node.setSelected(True)
    assert window.inspector.title.text() == f"upper on {mid}: KEY"
    window.undo_action.trigger()  # the concat has two inputs again: there is no node at (2,)
    assert unhandled == []
    assert not window.inspector.fields
    window.undo_action.trigger()  # KEY is a plain column again
    window.redo_action.trigger()
    window.redo_action.trigger()
    assert unhandled == []
    drawn_as_modelled(window)


def test_the_edit_menu_forgets_a_selection_that_an_undo_took_away(window: MainWindow) -> None:
    drag = window.controller.connect_columns
    drag("hq.CUST", "NAME", "br.CUST", "NAME")
    mid = window.document.model.mappings[0].id
    link = next(i for i in window.scene.items() if isinstance(i, LinkItem))
    window.scene.clearSelection()
    link.setSelected(True)
    assert window.current_ref == ("link", mid, "NAME")
    window.undo_action.trigger()  # the mapping is gone, and with it the link
    assert window.current_ref == ()
    window.authoring_menu.update()
    assert not window.authoring_actions["Remove"].isEnabled()
    assert not window.authoring_actions["Auto-map by name"].isEnabled()


def test_the_edit_menu_follows_a_renamed_selection(window: MainWindow) -> None:
    window.scene.clearSelection()
    window.scene.tables["hq.CUST"].setSelected(True)
    assert window.current_ref == ("table", "hq.CUST")
    assert window.authoring.rename(("table", "hq.CUST"), "CLIENT")
    assert window.current_ref == ("table", "hq.CLIENT")
    window.undo_action.trigger()
    assert window.current_ref == ("table", "hq.CUST")
    window.authoring_actions["Remove"].trigger()  # acts on the table as it is named now
    assert window.document.model.table("hq.CUST") is None
    drawn_as_modelled(window)


def test_a_drag_whose_release_was_lost_leaves_no_line_behind(window: MainWindow) -> None:
    press_and_move(window, row_point(window, "hq.CUST", "NAME"))
    # the release went to a menu or dialog that took the mouse; the next press starts afresh
    press_and_move(window, row_point(window, "hq.CUST", "NO"))
    release_at(window, row_point(window, "br.CUST", "CODE"))
    assert not [i for i in window.scene.items() if type(i).__name__ == "DragLine"]
    mapping = window.document.model.mappings[0]
    assert {c: m.input for c, m in mapping.columns.items()} == {"CODE": "NO"}  # type: ignore[union-attr]
    drawn_as_modelled(window)


def test_a_column_dropped_on_a_method_that_takes_no_input_says_so(window: MainWindow) -> None:
    from engine import authoring as au

    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    mid = doc.model.mappings[0].id
    doc.apply(au.set_method(doc.model, mid, "CODE", {"method": "constant", "value": "HQ"}), "code")
    node = next(i for i in window.scene.items() if getattr(i, "ref", None) == (mid, "CODE", ()))
    before = dump_model(doc.model)
    press_and_move(window, row_point(window, "hq.CUST", "NO"))
    release_at(window, window.view.mapFromScene(node.scenePos()))
    assert dump_model(doc.model) == before
    assert window.statusBar().currentMessage() == "Not wired: the method on CODE takes no input column"


def test_zooming_out_from_a_fit_below_the_least_zoom_never_zooms_in(window: MainWindow) -> None:
    window.controller.move_tables([("br.CUST", 0.0, 200_000.0)])  # far apart: the fit is below 10%
    window.view.fit()
    fitted = window.view.zoom_level()
    assert fitted < 0.1
    window.view.zoom(1 / 1.2)  # View ▸ Zoom out: it stays (it jumped in to 10%)
    assert window.view.zoom_level() == pytest.approx(fitted)
    window.view.zoom(1.2)  # and in: one step, not to 10% at once
    assert window.view.zoom_level() == pytest.approx(fitted * 1.2)
    for _ in range(60):
        window.view.zoom(1.2)
    assert window.view.zoom_level() == pytest.approx(4.0)
    for _ in range(60):
        window.view.zoom(1 / 1.2)
    assert window.view.zoom_level() == pytest.approx(0.1)
