"""The designer driven through its real widgets (pytest-qt, offscreen)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QPushButton
from windows import TWO_TABLES, make_window, row_point, window_on

from designer.autosave import autosave_path
from designer.document import Document
from designer.window import MainWindow
from engine.model import load_model
from engine.model.schema import Model
from resources import SAMPLE_MODEL


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    return window_on(qtbot, tmp_path, TWO_TABLES, "two.json")


def drag(w: MainWindow, start: QPoint, end: QPoint) -> None:
    viewport = w.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, 6):
        QTest.mouseMove(viewport, start + (end - start) * i / 5)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def codes(w: MainWindow) -> list[str]:
    model = w.problems.model
    return sorted(model.index(r, 1).data() for r in range(model.rowCount()))


def test_drawing_a_link_on_the_canvas_creates_a_mapping_and_findings_follow(window: MainWindow, qtbot: Any) -> None:
    assert window.document.model.mappings == []
    drag(window, row_point(window, "hq.CUST", "NAME"), row_point(window, "br.CUST", "NAME"))
    qtbot.waitUntil(lambda: len(window.document.model.mappings) == 1)
    mapping = window.document.model.mappings[0]
    assert (mapping.source, mapping.target, mapping.columns["NAME"].input) == ("hq.CUST", "br.CUST", "NAME")
    # the key and a required column are not mapped yet: the Problems panel says so, live
    assert {"DK002", "NL001"} <= set(codes(window))
    assert "error" in window.status.text()
    # the canvas draws the new link
    assert any(getattr(i, "ref", None) == (mapping.id, "NAME") for i in window.scene.decorations)


def test_a_link_drawn_to_the_left_leaves_its_row_by_the_left_edge(window: MainWindow, qtbot: Any) -> None:
    """The drag line leaves the row by the edge that faces the pointer, as the mapping is then drawn."""
    viewport = window.view.viewport()
    source = window.scene.tables["br.CUST"]
    start, end = row_point(window, "br.CUST", "NAME"), row_point(window, "hq.CUST", "NAME")
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, 6):
        QTest.mouseMove(viewport, start + (end - start) * i / 5)
    line = window.scene.interaction.line  # type: ignore[union-attr]
    assert line.path().pointAtPercent(0) == source.port("NAME", "in")  # to the left: the left edge
    QTest.mouseMove(viewport, start + QPoint(300, 0))
    assert line.path().pointAtPercent(0) == source.port("NAME", "out")  # back to the right: the right edge
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    qtbot.waitUntil(lambda: len(window.document.model.mappings) == 1)
    mapping = window.document.model.mappings[0]
    assert (mapping.source, mapping.target) == ("br.CUST", "hq.CUST")
    wire = next(i for i in window.scene.mapping_items[mapping.id] if getattr(i, "ref", None) == (mapping.id, "NAME"))
    assert wire.path().pointAtPercent(0) == source.port("NAME", "in")  # drawn as it was dragged


def test_insert_concat_toggle_key_undo_redo(window: MainWindow, qtbot: Any) -> None:
    drag(window, row_point(window, "hq.CUST", "REGION"), row_point(window, "br.CUST", "KEY"))
    qtbot.waitUntil(lambda: len(window.document.model.mappings) == 1)
    mapping_id = window.document.model.mappings[0].id
    menu = window.controller.menu_for(("column", "br.CUST", "KEY"))
    insert = next(a for a in menu.actions() if a.text() == "Insert method").menu()
    next(a for a in insert.actions() if a.text() == "concat").trigger()
    method = window.document.model.mapping(mapping_id).columns["KEY"]
    assert method.method == "concat" and [m.input for m in method.inputs] == ["REGION", "NO"]
    assert any(type(i).__name__ == "MethodItem" for i in window.scene.decorations)
    # the DKey flag, from the same context menu
    menu = window.controller.menu_for(("column", "br.CUST", "NAME"))
    next(a for a in menu.actions() if a.text() == "Distribution key").trigger()
    assert window.document.model.mapping(mapping_id).distribution_key == ["KEY", "NAME"]
    assert "DK002" in codes(window)  # NAME is in the key but not mapped
    window.undo_action.trigger()
    assert window.document.model.mapping(mapping_id).distribution_key is None
    assert "DK002" not in codes(window)
    window.undo_action.trigger()
    assert window.document.model.mapping(mapping_id).columns["KEY"].method == "column"
    window.redo_action.trigger()
    window.redo_action.trigger()
    assert window.document.model.mapping(mapping_id).distribution_key == ["KEY", "NAME"]


def test_a_finding_appears_and_disappears_as_the_model_is_edited(window: MainWindow) -> None:
    from engine import authoring as au

    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    mapping_id = doc.model.mappings[0].id
    assert "NL001" in codes(window)
    doc.apply(au.set_method(doc.model, mapping_id, "CODE", {"method": "constant", "value": "HQ"}), "code")
    doc.apply(au.set_method(doc.model, mapping_id, "KEY", {"method": "concat", "inputs": ["REGION", "NO"],
                                                             "sep": "-"}), "key")
    assert "NL001" not in codes(window) and "DK002" not in codes(window)
    window.undo_action.trigger()
    assert "DK002" in codes(window)


def test_double_clicking_a_problem_selects_its_item(window: MainWindow, qtbot: Any) -> None:
    from engine import authoring as au

    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    table = window.problems.table
    row = next(r for r in range(table.model().rowCount()) if table.model().index(r, 1).data() == "NL001")
    index = table.model().index(row, 0)
    table.scrollTo(index)
    rect = table.visualRect(index)
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert window.scene.tables["br.CUST"].isSelected()
    assert window.scene.tables["br.CUST"].look.marks  # the table carries the finding's mark


def test_conflict_editor_groups_and_chain(window: MainWindow) -> None:
    editor = window.conflicts
    editor.show_table("br.CUST")
    editor.enabled.setChecked(True)
    assert window.document.model.conflicts_for("br.CUST") is not None
    editor.add_group("name_cg")
    editor.move_column("NAME", "name_cg")
    groups = window.document.model.conflicts_for("br.CUST").column_groups
    assert [(g.name, g.columns) for g in groups] == [("name_cg", ["NAME"])]
    # the shadow group shows the ungrouped columns
    shadow = editor.groups.topLevelItem(editor.groups.topLevelItemCount() - 1)
    assert sorted(shadow.child(i).text(0) for i in range(shadow.childCount())) == ["CODE", "KEY"]
    editor.groups.setCurrentItem(editor.groups.topLevelItem(0))
    editor.method_choice.setCurrentText("maximum")
    next(b for b in editor.findChildren(QPushButton) if b.text() == "Add").click()
    editor.add_method("site_priority")
    chain = window.document.model.conflicts_for("br.CUST").column_groups[0].resolution
    assert [(s.method, s.column) for s in chain] == [("maximum", "NAME"), ("site_priority", None)]
    editor.chain.setCurrentRow(1)
    editor.move_method(-1)
    chain = window.document.model.conflicts_for("br.CUST").column_groups[0].resolution
    assert [s.method for s in chain] == ["site_priority", "maximum"]
    assert "CR005" in editor.warnings.text()  # maximum now ends the chain: no backup for ties
    editor.policies["on_insert_exists"].setCurrentText("as_update")
    editor.policies["on_insert_exists"].activated.emit(0)
    assert window.document.model.conflicts_for("br.CUST").on_insert_exists == "as_update"
    window.document.undo_stack.undo()
    assert window.document.model.conflicts_for("br.CUST").on_insert_exists == "error"


def test_save_and_reopen_equal(window: MainWindow, tmp_path: Path) -> None:
    from engine import authoring as au

    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    assert window.isWindowModified()
    assert window.save()
    assert not window.isWindowModified()
    reopened = load_model(doc.path)  # type: ignore[arg-type]
    assert reopened == doc.model
    window.open_path(doc.path)  # type: ignore[arg-type]
    assert window.document.model == reopened


def test_recover_an_autosave(window: MainWindow, tmp_path: Path) -> None:
    from engine import authoring as au

    doc = window.document
    path = doc.path
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    saved = window.autosaver.save_now()
    assert saved == autosave_path(path) and saved.exists()
    os.utime(path, (1, 1))  # the file is older than the autosave, as after a crash
    fresh = MainWindow(settings=QSettings(str(tmp_path / "s2.ini"), QSettings.Format.IniFormat), ask=False)
    fresh.open_path(path)  # type: ignore[arg-type]
    assert len(fresh.document.model.mappings) == 1
    assert fresh.document.dirty and fresh.isWindowModified()
    fresh.save()
    assert not autosave_path(path).exists()  # a clean save removes the autosave
    fresh.close()


def test_move_table_is_undoable_and_saved_in_the_layout(window: MainWindow, qtbot: Any) -> None:
    item = window.scene.tables["br.CUST"]
    header = window.view.mapFromScene(item.mapToScene(QPointF(100, 10)))
    drag(window, header, header + QPoint(0, 120))
    qtbot.waitUntil(lambda: window.document.model.layout["br.CUST"][1] > 50)
    window.undo_action.trigger()
    assert window.document.model.layout["br.CUST"] == [500, 0]


def test_the_sample_renders_and_is_saved_as_a_png(qtbot: Any, tmp_path: Path) -> None:
    w = MainWindow(Document.open(SAMPLE_MODEL), settings=QSettings(str(tmp_path / "s.ini"),
                                                                    QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.view.fit()
    out = tmp_path / "designer.png"
    assert w.grab().save(str(out))
    assert out.stat().st_size > 50_000
    assert len(w.scene.tables) == len(load_model(SAMPLE_MODEL).tables)
    assert "0 errors" in w.status.text()


def test_designer_without_a_display_says_how_to_run_headless(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "engine.cli", "designer"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 2
    assert "xvfb-run" in out.stderr and "Traceback" not in out.stderr


def test_designer_screenshot_from_the_command_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["MAPWRIGHT_AUTOSAVE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "engine.cli", "designer", "--screenshot", str(tmp_path / "s.png")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "s.png").stat().st_size > 50_000


def test_new_document_model_is_valid() -> None:
    doc = Document.new()
    assert isinstance(doc.model, Model) and doc.findings() == []
    QApplication.processEvents()


def test_an_export_that_cannot_be_made_says_why_and_writes_nothing(window: MainWindow, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """DDL that a target cannot hold (an index name over PostgreSQL's 63 characters) is a message in the
    window, never a traceback, and no file."""
    from PySide6.QtWidgets import QFileDialog

    table = {"columns": [{"name": "ID", "type": "INTEGER", "nullable": False}], "primary_key": ["ID"]}
    model = {"format": "mapwright/1", "name": "long", "servers": [{"id": "a", "dbms": "oracle"},
                                                                   {"id": "b", "dbms": "postgresql"}],
             "tables": [{"server": "a", "name": "T", **table},
                        {"server": "b", "name": "T", **table,
                         "unique_indexes": [{"name": "U" * 70, "columns": ["ID"]}]}],
             "mappings": [{"id": "m", "source": "a.T", "target": "b.T", "columns": {"ID": "ID"}}]}
    (tmp_path / "long.json").write_text(json.dumps(model))
    window.open_path(tmp_path / "long.json")
    out = tmp_path / "out.sql"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    window.export("ddl")
    assert "Export failed" in window.statusBar().currentMessage()
    assert "is longer than postgresql's 63 bytes" in window.statusBar().currentMessage()
    assert not out.exists()
    window.export("json")
    assert out.exists() and "Exported" in window.statusBar().currentMessage()


@pytest.mark.parametrize("kind", ["schema", "ddl", "report", "json"])
def test_an_export_onto_the_open_model_file_is_refused_and_the_file_kept(window: MainWindow, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         kind: str) -> None:
    """Export ▸ schema offers *.json, beside the model: picking the model's own file (even by another name, a
    link) replaced the user's model with the JSON Schema; `mapwright export` refuses it, so does the window."""
    from PySide6.QtWidgets import QFileDialog

    model = window.document.path
    assert model is not None
    before = model.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(model)
    for target in (model, link):
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, t=target, **k: (str(t), ""))
        window.export(kind)
        assert "is the model file itself" in window.statusBar().currentMessage()
        assert model.read_bytes() == before and link.is_symlink()


def test_a_model_s_strings_show_as_they_are_never_as_markup(qtbot: Any, tmp_path: Path) -> None:
    """A mapping id and a constant that look like HTML are shown literally: the inspector never renders
    them (nor loads the image an `<img>` names)."""
    hostile = '<img src="/etc/passwd"><b>m</b>'
    doc = json.loads(json.dumps(TWO_TABLES))
    doc["mappings"] = [{"id": hostile, "source": "hq.CUST", "target": "br.CUST", "columns": {
        "KEY": {"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"}, "NAME": "NAME",
        "CODE": {"method": "constant", "value": "<i>X</i>"}}}]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    w = make_window(qtbot, tmp_path, path)
    w.inspector.show_ref(("mapping", hostile))
    assert w.inspector.title.text() == f"Mapping {hostile}"
    assert w.inspector.title.textFormat() == Qt.TextFormat.PlainText
    w.inspector.show_ref(("link", hostile, "CODE"))
    shown = [label for label in w.inspector.findChildren(QLabel) if "<i>X</i>" in label.text()]
    assert shown and all(label.textFormat() == Qt.TextFormat.PlainText for label in shown)
    assert w.inspector.title.textFormat() == Qt.TextFormat.PlainText and hostile in w.inspector.title.text()
