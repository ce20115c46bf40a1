"""Issue 37 item 5: the Details dock's panels fit the window's default layout at 1280x800 and 1920x1080 — the
conflict editor never scrolls sideways (its buttons reachable), the mapping grid shows mapping ids whole, the
Add server dialog's hint is read whole."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.authoring.dialogs import ServerDialog
from designer.authoring.grid import MAPPING
from resources import SAMPLE_MODEL


def test_details_panels_fit_at_1280_and_1920(qtbot: QtBot, tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, SAMPLE_MODEL)
    longest = max((m.id for m in w.document.model.mappings), key=len)
    for width, height in ((1280, 800), (1920, 1080)):
        w.resize(width, height)
        w.showNormal()
        QApplication.processEvents()
        w._size_docks()  # as the window does once shown (a queued call)
        qtbot.wait(20)
        w.select(("table", "hq.CUSTOMER"))
        w.side_tabs.setCurrentIndex(1)
        editor = w.conflicts
        editor.groups.setCurrentItem(editor.groups.topLevelItem(0))
        while editor.chain.count() < 3:
            editor.add_method("site_priority")
        editor.chain.setCurrentRow(2)
        QApplication.processEvents()
        scroll = w.side_tabs.currentWidget()
        assert isinstance(scroll, QScrollArea)
        assert not scroll.horizontalScrollBar().isVisible(), f"{width}x{height}: scrolls sideways"
        assert editor.width() <= scroll.viewport().width(), f"{width}x{height}: editor wider than the dock"
        remove = editor.chain_buttons["remove"]
        assert remove.isEnabled()
        scroll.ensureWidgetVisible(remove)
        QApplication.processEvents()
        shown = QRect(remove.mapTo(scroll.viewport(), remove.rect().topLeft()), remove.size())
        assert scroll.viewport().rect().contains(shown), f"{width}x{height}: Remove at {shown} is clipped"
        for label in editor.findChildren(QLabel):  # every label wraps or fits: none is cut at the right edge
            if label.isVisible() and label.text():
                right = label.mapTo(editor, label.rect().topRight()).x()
                assert right <= editor.width(), f"{width}x{height}: {label.text()[:40]!r} cut off"
                assert label.wordWrap() or label.sizeHint().width() <= label.width(), label.text()
        w.side_tabs.setCurrentIndex(2)
        QApplication.processEvents()
        view = w.grid.view
        needed = view.fontMetrics().horizontalAdvance(longest)
        assert view.columnWidth(MAPPING) >= needed + 4, f"{width}x{height}: {longest!r} elided"


def test_add_server_dialog_hint_is_whole(qtbot: QtBot, tmp_path: Path) -> None:
    from engine.model import parse_model
    model = parse_model(SAMPLE_MODEL.read_text(encoding="utf-8"), str(SAMPLE_MODEL))
    dialog = ServerDialog(model)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    hint = dialog.hint
    assert hint.isVisible() and "site_priority" in hint.text()
    assert hint.wordWrap() and hint.height() >= hint.heightForWidth(hint.width())
    assert dialog.rect().contains(QRect(hint.mapTo(dialog, hint.rect().topLeft()), hint.size()))
    for line in (dialog.priority, dialog.float_format):  # the hint inside each field is not cut off either
        assert line.width() >= line.fontMetrics().horizontalAdvance(line.placeholderText()) + 8, line.placeholderText()


def test_the_canvas_keeps_most_of_the_height_at_1280x800_with_the_run_tab_shown(qtbot: QtBot,
                                                                                 tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, SAMPLE_MODEL)
    w.resize(1280, 800)
    w.showNormal()
    w.show_launcher()  # the Run tab's form scrolls in its tab instead of growing the dock
    QApplication.processEvents()
    w._size_docks()
    qtbot.wait(20)
    assert w.bottom_tabs.currentWidget() is w.run_page
    assert w.view.height() >= 0.6 * w.height(), f"canvas {w.view.height()} px of {w.height()}"
