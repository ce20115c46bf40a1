"""Issue 37 item 6: the conflict browser's detail and chart follow the filter, its columns fit the window
(the differing column first in the detail), Open run directory starts where runs are; item 10: the run log
says each stage change once. Real clicks and keys, a real run directory (the ordering example's, rewritten)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QTableView, QWidget
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, window_on

from designer.browser import ConflictBrowser
from designer.launcher import RunLauncher, RunRequest
from engine.run.rundir.write import conflicts_arrow

COLUMNS = [f"C{n:02d}" for n in range(30)]
"""A wide table: the one differing column (C27) is far below the fold in the columns' own order."""
GROUP = [f"VERY_LONG_COLUMN_NAME_{n:02d}" for n in range(40)]


def customer(**changed: Any) -> dict[str, Any]:
    return {"ID": 7, **{name: f"v{name}" for name in COLUMNS}, **changed}


def conflict(site: str, kind: str, outcome: str, txn: str) -> dict[str, Any]:
    old, new = customer(), customer(C27="changed")
    return {"site": site, "origin": "hq" if site == "branch" else "branch", "table": f"{site}.CUSTOMER",
            "dkey": {"ID": 7}, "txn": txn, "type": kind, "column_group": GROUP, "methods_tried": ["site_priority"],
            "method": "site_priority", "outcome": outcome, "local": old, "remote_old": old,
            "remote_new": None if kind == "delete" else new, "result": old if outcome == "local" else new,
            "delivered_at": "2026-01-05T10:08:00Z", "mapping": "m", "commit_ts": "2026-01-05T10:06:00Z",
            "applied": True}


CONFLICTS = [conflict("hq", "update", "remote", "t1"), conflict("branch", "update", "local", "t2"),
             conflict("branch", "delete", "remote", "t3"), conflict("hq", "delete", "local", "t4")]


def customers_run(base: Path, out: Path) -> Path:
    """A copy of the run at `base` holding `CONFLICTS`, its counts to match."""
    shutil.copytree(base, out)
    doc = json.loads((out / "manifest.json").read_text())
    doc["counts"]["conflicts"] = len(CONFLICTS)
    (out / "manifest.json").write_text(json.dumps(doc))
    (out / "conflicts.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CONFLICTS))
    first = json.loads((base / "conflicts.jsonl").read_text().splitlines()[0])
    pq.write_table(conflicts_arrow([first] * len(CONFLICTS)), out / "conflicts.parquet")  # only its rows counted
    for server in ("hq", "branch"):  # every table a conflict names has its final rows
        (out / "tables" / server).mkdir(parents=True)
        pq.write_table(pa.table({"ID": pa.array([], pa.int64())}), out / "tables" / server / "CUSTOMER.parquet")
    return out


def keys(widget: QWidget, text: str | Qt.Key) -> None:
    """Keys as a keyboard sends them: to the window, which hands them to its focus widget."""
    window = widget.window().windowHandle()
    for key in ([text] if isinstance(text, Qt.Key) else text):
        QTest.keyClick(window, key)
    QApplication.processEvents()


def section(view: QTableView, title: str) -> int:
    model = view.model()
    [found] = [c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == title]
    return found


def click_row(qtbot: QtBot, view: QTableView, row: int) -> None:
    rect = view.visualRect(view.model().index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def row_of(view: QTableView, table: str, kind: str) -> int:
    model = view.model()
    rows = [r for r in range(model.rowCount()) if (model.index(r, section(view, "Table")).data(),
                                                  model.index(r, section(view, "Type")).data()) == (table, kind)]
    return rows[0]


def filter_by_typing(qtbot: QtBot, browser: ConflictBrowser, text: str) -> None:
    """Click the filter box, select what it holds, type `text` and Enter."""
    edit = browser.filter_edit
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    assert edit.hasFocus()
    keys(edit, Qt.Key.Key_End)
    for _ in edit.text():
        keys(edit, Qt.Key.Key_Backspace)
    with qtbot.waitSignal(browser.conflicts_page.proxy.sig_filter_changed, timeout=5_000):
        keys(edit, text)
        keys(edit, Qt.Key.Key_Return)


def choose_type(qtbot: QtBot, browser: ConflictBrowser, value: str | None) -> None:
    """Click the type combo, then, in the list it opens, the type (None: All types)."""
    combo = browser.type_combo
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    popup = combo.view()
    qtbot.waitUntil(popup.isVisible, timeout=2_000)
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # a release sooner is taken for the opening click's
    rect = popup.visualRect(combo.model().index(combo.findData(value) if value is not None else 0, 0))
    with qtbot.waitSignal(browser.conflicts_page.proxy.sig_filter_changed, timeout=5_000):
        qtbot.mouseClick(popup.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_detail_and_the_chart_follow_the_filter(browser: ConflictBrowser, qtbot: QtBot, ordering_run: Path,
                                                    tmp_path: Path) -> None:
    assert browser.open_run(customers_run(ordering_run, tmp_path / "run")) is not None
    page = browser.conflicts_page
    pane = page.comparison
    assert pane is not None and page.chart.counts[("update", "remote")] == 1
    click_row(qtbot, page.view, row_of(page.view, "hq.CUSTOMER", "update"))
    assert "hq.CUSTOMER" in pane.caption.text()

    filter_by_typing(qtbot, browser, "branch.CUSTOMER")
    choose_type(qtbot, browser, "delete")
    assert browser.type_combo.currentData() == "delete" and page.view.model().rowCount() == 1
    # the hq update the filter hides is no longer shown: the one conflict shown is selected, and detailed
    assert page.view.currentIndex().row() == 0 and page.view.selectionModel().isRowSelected(0)
    assert "hq.CUSTOMER" not in pane.caption.text() and "branch.CUSTOMER" in pane.caption.text()
    assert "<b>delete</b>" in pane.caption.text() and page.shown is not None and page.shown["txn"] == "t3"
    # the chart counts what the table shows, and says how many the filter hides
    assert page.chart.counts == {("delete", "remote"): 1} and page.chart.types == ["delete"]
    assert page.chart.chart().title() == "1 of 4 conflicts by type and outcome (filtered)"

    filter_by_typing(qtbot, browser, "nowhere")  # nothing shown: nothing detailed, nothing counted
    assert page.view.model().rowCount() == 0
    assert pane.model.rowCount() == 0 and pane.caption.text().startswith("Select a row")
    assert page.chart.counts == {}

    filter_by_typing(qtbot, browser, "")
    choose_type(qtbot, browser, None)
    assert sum(page.chart.counts.values()) == 4 and page.chart.chart().title() == "4 conflicts by type and outcome"


def test_the_columns_fit_the_window_and_the_differing_column_comes_first(
        browser: ConflictBrowser, qtbot: QtBot, ordering_run: Path, tmp_path: Path) -> None:
    assert browser.open_run(customers_run(ordering_run, tmp_path / "run")) is not None
    view = browser.conflicts_page.view
    header, width = view.horizontalHeader(), view.viewport().width()
    for title in ("Site", "Table", "Key", "Type", "Outcome", "Method"):  # whole, at the browser's own size
        assert header.sectionViewportPosition(section(view, title)) + header.sectionSize(section(view, title)) \
            <= width, title
    assert header.sectionPosition(section(view, "Outcome")) < header.sectionPosition(section(view, "Group"))
    assert header.sectionSize(section(view, "Group")) < width / 3  # long, so cut (whole in its tooltip)

    click_row(qtbot, view, row_of(view, "hq.CUSTOMER", "update"))
    pane = browser.conflicts_page.comparison
    assert pane is not None
    names = pane.model
    c27 = [r for r in range(names.rowCount()) if names.headerData(r, Qt.Orientation.Vertical) == "C27"][0]
    assert pane.view.verticalHeader().logicalIndex(0) == c27  # first on screen, highlighted
    assert names.index(c27, 2).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert pane.view.viewport().rect().contains(pane.view.visualRect(names.index(c27, 2)))
    click_row(qtbot, view, row_of(view, "branch.CUSTOMER", "delete"))  # the next conflict: its own order
    assert pane.view.verticalHeader().logicalIndex(0) == c27 and pane.view.verticalHeader().visualIndex(0) == 1


def test_open_run_directory_starts_in_the_runs_folder_then_beside_the_last_run(
        qtbot: QtBot, tmp_path: Path, ordering_run: Path, monkeypatch: Any) -> None:
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    runs = Path(w.launcher.out_edit.text()).parent
    assert runs == tmp_path / "runs"
    runs.mkdir()
    elsewhere = Path(shutil.copytree(ordering_run, tmp_path / "kept" / "run-1"))
    starts: list[str] = []
    answers = ["", str(elsewhere), ""]

    def ask(_parent: QWidget, _caption: str, start: str = "", *_: Any, **__: Any) -> str:
        starts.append(start)
        return answers[len(starts) - 1]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(ask))
    for _ in answers:
        w.activateWindow()  # back to the designer from the browser the last answer opened
        qtbot.waitActive(w)
        QTest.keyClick(w.windowHandle(), Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier)
        QApplication.processEvents()
    assert starts == [str(runs), str(runs), str(tmp_path / "kept")]
    [browser] = w.browsers
    qtbot.waitUntil(lambda: not browser.loading(), timeout=10_000)
    assert browser.rundir == elsewhere
    browser.close()


class StageRunner(QObject):
    """A runner whose stage events the test sends, as a run repeats them."""

    sig_stage = Signal(str, int, int)
    sig_log = Signal(str)
    sig_finished = Signal(str, str, str)

    def start(self, request: RunRequest) -> None:
        self.sig_log.emit("$ mapwright run")

    def cancel(self) -> None:
        pass

    def is_running(self) -> bool:
        return False


def test_the_run_log_says_each_stage_change_once(qtbot: QtBot, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    launcher = RunLauncher(lambda: None, lambda parent: StageRunner(parent), settings=settings)
    qtbot.addWidget(launcher)
    runner = launcher.runner
    for stage, done in (("decode", 0), ("decode", 0), ("decode", 0), ("decode", 1), ("decode", 1), ("resolve", 1)):
        runner.sig_stage.emit(stage, done, 4)
    assert launcher.log_view.toPlainText().splitlines() == ["stage decode (0/4)", "stage decode (1/4)",
                                                            "stage resolve (1/4)"]
