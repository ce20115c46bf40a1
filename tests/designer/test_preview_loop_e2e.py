"""The preview loop end to end, as a user goes through it: File ▸ New, a two-server model with conflict
resolution, Save, Generate sample data… (the real generator, through its dialog), F5 (a real `mapwright run
--engine inprocess` process), and the conflict browser showing conflicts decided by the methods configured."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QStandardPaths, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from designer.launcher.sampledialog import SampleDialog
from designer.launcher.samplejob import running_jobs
from designer.window import MainWindow

COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
           {"name": "QTY", "type": "INTEGER"}, {"name": "UPDATED", "type": "TIMESTAMP"}]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    QStandardPaths.setTestModeEnabled(True)
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    for browser in list(w.browsers):
        browser.close()
    QStandardPaths.setTestModeEnabled(False)


def build_model(w: MainWindow) -> None:
    """Two servers, T on both, mappings both ways, a column group resolved by latest_timestamp(UPDATED) then
    site_priority on each table: the window's own edit commands and conflict editor."""
    new = next(a for a in w.menuBar().actions()[0].menu().actions() if a.text() == "&New model")
    new.trigger()
    assert w.document.model.servers == [] and w.document.path is None
    assert w.authoring.add_server({"id": "hq", "dbms": "postgresql", "priority": 20})
    assert w.authoring.add_server({"id": "br", "dbms": "postgresql", "priority": 10})
    for server in ("hq", "br"):
        assert w.authoring.add_table(server, "T", [dict(c) for c in COLUMNS], ["ID"])
    forward = w.authoring.new_mapping("hq.T", "br.T", "hq_to_br")
    assert forward == "hq_to_br" and w.authoring.add_reverse("hq_to_br", "br_to_hq")
    for table in ("hq.T", "br.T"):
        editor = w.conflicts
        editor.show_table(table)
        editor.enabled.setChecked(True)
        editor.add_group("t_cg")
        for column in ("NAME", "QTY", "UPDATED"):
            editor.move_column(column, "t_cg")
        editor.groups.setCurrentItem(editor.groups.topLevelItem(0))
        editor.add_method("latest_timestamp")
        editor.add_method("site_priority")
        chain = w.document.model.conflicts_for(table).column_groups[0]  # type: ignore[union-attr]
        assert chain.columns == ["NAME", "QTY", "UPDATED"]
        assert [(s.method, s.column) for s in chain.resolution] == [("latest_timestamp", "UPDATED"),
                                                                     ("site_priority", None)]
    assert w.document.model.mapping("hq_to_br").reverse == "br_to_hq"  # type: ignore[union-attr]
    assert [f for f in w.document.findings() if f.severity == "error"] == []


def test_file_new_to_conflicts_in_the_browser(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    build_model(w)
    saved = tmp_path / "work" / "stock.json"
    saved.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(saved), "")))
    next(a for a in w.menuBar().actions()[0].menu().actions() if a.text() == "&Save").trigger()
    assert w.document.path == saved and not w.document.dirty

    launcher = w.launcher
    w.show_launcher()
    qtbot.mouseClick(launcher.generate_button, Qt.MouseButton.LeftButton)
    dialog = launcher.sources.dialog
    assert isinstance(dialog, SampleDialog)
    assert Path(dialog.out_edit.text()) == tmp_path / "work" / "stock-data"
    dialog.rows.setValue(30)
    dialog.changes.setValue(300)
    dialog.conflict_rate.setFocus()
    dialog.conflict_rate.selectAll()
    QTest.keyClicks(dialog.conflict_rate, "0.5")
    began = time.monotonic()
    with qtbot.waitSignal(dialog.sig_generated, timeout=60_000):
        QTest.keyClick(dialog.conflict_rate, Qt.Key.Key_Return)
    generated = time.monotonic() - began
    assert launcher.data_edit.text() == str(tmp_path / "work" / "stock-data")

    combo = launcher.engine_combo
    combo.setCurrentIndex(combo.findData("inprocess"))
    combo.activated.emit(combo.currentIndex())
    began = time.monotonic()
    assert w.run_action.shortcut().toString() == "F5"
    with qtbot.waitSignal(launcher.sig_run_finished, timeout=120_000) as finished:
        w.run_action.trigger()  # F5 (a shortcut needs the active window, which offscreen tests lack)
        assert launcher.is_running(), launcher.status_label.text()
    ran = time.monotonic() - began
    print(f"generated in {generated:.1f} s, ran in {ran:.1f} s")
    status, out = finished.args
    assert status == "succeeded", launcher.log_view.toPlainText()
    assert "--engine inprocess" in launcher.log_view.toPlainText()
    assert json.loads((Path(out) / "manifest.json").read_text())["run_engine"] == "inprocess"
    assert "Succeeded in process" in launcher.status_label.text() and launcher.spark_again_button.isVisible()

    assert len(w.browsers) == 1
    browser = w.browsers[0]
    qtbot.waitUntil(lambda: browser.summary is not None, timeout=30_000)
    shown = [browser.conflicts.record(r) for r in range(browser.conflicts.rowCount())]
    updates = [c for c in shown if c["type"] == "update"]
    assert updates, f"no update conflict in the run: {browser.banner.text()}"
    for conflict in updates:
        assert conflict["column_group"] == "t_cg" and conflict["table"] in ("hq.T", "br.T")
        assert conflict["methods_tried"][0] == "latest_timestamp"
        remote, local = conflict["remote_new"]["UPDATED"], conflict["local"]["UPDATED"]
        if conflict["method"] == "latest_timestamp":
            later_remote = _when(remote) > _when(local)
            assert conflict["outcome"] == ("remote" if later_remote else "local"), conflict
        else:
            assert conflict["method"] == "site_priority" and _when(remote) == _when(local), conflict
            assert conflict["methods_tried"] == ["latest_timestamp", "site_priority"]
    decided = Counter(c["method"] for c in updates)
    print("decided by:", decided)
    assert set(decided) == {"latest_timestamp", "site_priority"}  # the generator aims at each method
    qtbot.waitUntil(lambda: running_jobs() == 0)


def _when(value: object) -> datetime:
    assert isinstance(value, str), value
    return datetime.fromisoformat(value.replace("Z", "+00:00"))
