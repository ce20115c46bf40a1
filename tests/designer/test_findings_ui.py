"""Findings you cannot miss, and finding your way: Problems panel order, colours and flash; the canvas's
marks and its legend; Help ▸ About; Edit ▸ Find; Quit ▸ Discard drops the autosave (pytest-qt, offscreen)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot
from windows import make_window, window_on

from designer.autosave import autosave_path
from designer.canvas.items import TableItem
from designer.find import search
from designer.helpmenu import about_text
from designer.problems import FLASH_MS
from designer.severity import ERROR_COLOUR, FLASH_COLOUR, WARNING_COLOUR
from designer.window import MainWindow
from engine import authoring as au
from engine.edits import set_setting
from engine.model import load_model
from resources import SAMPLE_MODEL

TWO = {
    "format": "mapwright/1", "name": "two",
    "servers": [{"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
    "tables": [
        {"server": "hq", "name": "CUST", "columns": [
            {"name": "REGION", "type": "CHAR(2)", "nullable": False},
            {"name": "NO", "type": "INTEGER", "nullable": False},
            {"name": "NAME", "type": "VARCHAR(80)"}], "primary_key": ["REGION", "NO"]},
        {"server": "br", "name": "CUST", "columns": [
            {"name": "KEY", "type": "VARCHAR(16)", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
            {"name": "CODE", "type": "CHAR(3)", "nullable": False}], "primary_key": ["KEY"]}],
    "layout": {"hq.CUST": [0, 0], "br.CUST": [500, 0]},
}


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return window_on(qtbot, tmp_path, TWO, "two.json")


@pytest.fixture
def sample(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def panel_rows(w: MainWindow) -> list[tuple[str, str]]:
    view = w.problems.table.model()
    return [(view.index(r, 0).data(), view.index(r, 1).data()) for r in range(view.rowCount())]


# --- the Problems panel ------------------------------------------------------------------------


def test_errors_are_listed_above_warnings(window: MainWindow) -> None:
    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")  # TY005 + errors
    rows = panel_rows(window)
    severities = [s for s, _ in rows]
    assert "error" in severities and "warning" in severities
    assert severities == sorted(severities, key=lambda s: s != "error"), rows


def test_clicking_the_severity_header_keeps_errors_together_first(sample: MainWindow) -> None:
    doc = sample.document
    doc.apply(set_setting(doc.model, "float_transfer", None), "noop")
    table = sample.problems.table
    table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    severities = [s for s, _ in panel_rows(sample)]
    assert severities == sorted(severities, key=lambda s: s != "error")


def test_errors_are_red_and_warnings_orange_in_the_panel(window: MainWindow) -> None:
    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    view = window.problems.table.model()
    colours = {view.index(r, 0).data(): view.index(r, 0).data(Qt.ItemDataRole.ForegroundRole)
               for r in range(view.rowCount())}
    assert QColor(colours["error"]) == ERROR_COLOUR and QColor(colours["warning"]) == WARNING_COLOUR
    assert WARNING_COLOUR.red() > 200 and 80 < WARNING_COLOUR.green() < 160 and WARNING_COLOUR.blue() < 60


def test_a_new_finding_is_scrolled_to_and_flashed(sample: MainWindow, qtbot: QtBot) -> None:
    sample.resize(1400, 700)
    table = sample.problems.table
    table.scrollToTop()
    doc = sample.document
    mapping = doc.model.mappings[-1]
    target = doc.model.table(mapping.target)
    assert target is not None
    column = next(c.name for c in target.columns if c.sql_type.family.value == "character"
                  and c.name in mapping.columns)
    # feed the column a value it cannot hold: a new TY005 warning, below every error
    doc.apply(au.set_method(doc.model, mapping.id, column, {"method": "constant", "value": "x" * 5000}), "long")
    model = sample.problems.model
    fresh = [f for f in model.findings if f in model.fresh]
    assert [f.code for f in fresh] == ["TY005"]
    proxy = table.model()
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 1).data() == "TY005"
               and proxy.index(r, 5).data() == column)
    assert QColor(proxy.index(row, 2).data(Qt.ItemDataRole.BackgroundRole)) == FLASH_COLOUR
    rect = table.visualRect(proxy.index(row, 0))
    assert table.viewport().rect().intersects(rect)  # scrolled into view
    others = [r for r in range(proxy.rowCount()) if r != row]
    assert all(proxy.index(r, 2).data(Qt.ItemDataRole.BackgroundRole) is None for r in others)
    qtbot.waitUntil(lambda: proxy.index(row, 2).data(Qt.ItemDataRole.BackgroundRole) is None,
                    timeout=FLASH_MS + 2000)


# --- the canvas's marks and the legend --------------------------------------------------------------


def mark_colour(w: MainWindow, table: str, column: str) -> QColor:
    item = w.scene.tables[table]
    assert isinstance(item, TableItem)
    image = QImage(int(item.boundingRect().width()) + 40, int(item.boundingRect().height()) + 4,
                   QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

    painter = QPainter(image)
    item.paint(painter, QStyleOptionGraphicsItem())
    painter.end()
    centre = item.row_rect(column).center()
    return image.pixelColor(int(item.row_rect(column).right() + 8), int(centre.y()))


def test_the_canvas_marks_errors_red_and_warnings_orange(window: MainWindow) -> None:
    doc = window.document
    doc.apply(au.connect_columns(doc.model, "hq.CUST", "NAME", "br.CUST", "NAME"), "map")
    window.scene.show_findings(doc.findings())
    assert mark_colour(window, "br.CUST", "NAME") == WARNING_COLOUR  # TY005: VARCHAR(80) into VARCHAR(40)
    assert mark_colour(window, "br.CUST", "CODE") == ERROR_COLOUR  # NL001


def test_help_legend_explains_dots_dashes_and_colours(window: MainWindow) -> None:
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert {a.text() for a in help_menu.actions()} >= {"&Legend", "&About Mapwright"}
    window.legend_action.trigger()
    legend = window.legend
    assert legend.isVisible() and not legend.isModal()
    texts = {k: label.text() for k, label in legend.rows.items()}
    assert "Red dot" in texts["error"] and "error" in texts["error"]
    assert "Orange dot" in texts["warning"]
    assert "Green dashes" in texts["reversible"] and "Red dashes" in texts["not-reversible"]
    assert "PK" in texts["pk"] and "DK" in texts["dk"] and "NOT NULL" in texts["nn"]
    # the swatches are drawn in the canvas's own colours
    error_swatch = legend.rows["error"].parentWidget().layout().itemAtPosition(0, 0).widget().pixmap().toImage()
    centre = error_swatch.pixelColor(error_swatch.width() // 2, error_swatch.height() // 2)
    assert centre == ERROR_COLOUR
    window.legend_action.trigger()  # asked again: the same window, raised
    assert window.legend is legend


def test_help_about_names_the_versions(window: MainWindow, qtbot: QtBot) -> None:
    text = about_text()
    import engine

    assert f"Mapwright {engine.__version__}" in text
    assert "Spark (PySpark) 4." in text or "Spark (PySpark) 3." in text
    from PySide6.QtCore import qVersion

    assert f"Qt {qVersion()}" in text
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}" in text
    window.about_action.trigger()
    box = window.about
    qtbot.waitUntil(box.isVisible)
    assert isinstance(box, QMessageBox) and "PySpark" in box.text()
    assert box.windowModality() == Qt.WindowModality.NonModal
    box.close()


# --- Edit ▸ Find --------------------------------------------------------------------------------------


def test_search_finds_tables_columns_and_mappings_prefix_first() -> None:
    model = load_model(SAMPLE_MODEL)
    hits = search(model, "cust")
    kinds = {h.kind for h in hits}
    assert kinds == {"table", "column", "mapping"}
    assert hits[0].kind == "table" and hits[0].label.lower().startswith("table ")
    assert ("column", "branch.CUSTOMER", "CUST_KEY") in [h.ref for h in hits]
    assert search(model, "   ") == [] and search(model, "no-such-thing-here") == []


def test_edit_find_goes_to_a_column(sample: MainWindow, qtbot: QtBot) -> None:
    assert sample.find_action.shortcut().matches(sample.find_action.shortcut()) and \
        sample.find_action.shortcut().toString() == "Ctrl+F"
    sample.find_action.trigger()
    dialog = sample.find_dialog
    assert dialog.isVisible() and not dialog.isModal()
    qtbot.keyClicks(dialog.edit, "cust_key")
    labels = [dialog.results.item(i).text() for i in range(dialog.results.count())]
    assert labels and all("CUST_KEY" in label for label in labels)
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    selected = [k for k, item in sample.scene.tables.items() if item.isSelected()]
    ref = dialog.results.item(0).data(Qt.ItemDataRole.UserRole)
    assert selected == [ref[1]]
    assert sample.inspector.ref == tuple(ref)


def test_edit_find_goes_to_a_mapping(sample: MainWindow, qtbot: QtBot) -> None:
    mapping = sample.document.model.mappings[0]
    dialog = sample.show_find()
    qtbot.keyClicks(dialog.edit, mapping.id)
    row = next(i for i in range(dialog.results.count())
               if dialog.results.item(i).data(Qt.ItemDataRole.UserRole) == ("mapping", mapping.id))
    dialog.results.setCurrentRow(row)
    dialog.go_to_current()
    assert sample.inspector.ref == ("mapping", mapping.id)
    assert [k for k, item in sample.scene.tables.items() if item.isSelected()] == [mapping.target]


# --- Quit ▸ Discard --------------------------------------------------------------------------------


def test_quit_and_discard_removes_the_autosave(window: MainWindow, qtbot: QtBot,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    doc = window.document
    doc.apply(set_setting(doc.model, "name", "edited"), "Rename")
    saved = window.autosaver.save_now()
    assert saved is not None and saved.exists()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.ask = True
    window.autosaver.debounce.start(10)  # an autosave still pending when the user quits
    assert window.close()
    qtbot.wait(50)
    QApplication.processEvents()
    assert not autosave_path(doc.path).exists()


def test_quit_and_cancel_keeps_the_window_and_the_autosave(window: MainWindow,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    doc = window.document
    doc.apply(set_setting(doc.model, "name", "edited"), "Rename")
    saved = window.autosaver.save_now()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    window.ask = True
    assert not window.close()
    assert saved is not None and saved.exists() and window.isVisible()


def test_autosave_files_stay_private(window: MainWindow) -> None:
    doc = window.document
    doc.apply(set_setting(doc.model, "name", "edited"), "Rename")
    saved = window.autosaver.save_now()
    assert saved is not None and saved.stat().st_mode & 0o777 == 0o600
