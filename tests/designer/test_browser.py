"""The conflict browser on real run directories (the reference engine's), a failed one, and 100,000 conflicts."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PySide6.QtCharts import QChart
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QModelIndex, QPersistentModelIndex, QPoint, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGroupBox, QTableView
from pytestqt.qtbot import QtBot

import designer.browser.window as window_module
from designer.browser import ConflictBrowser
from designer.browser.__main__ import main as browser_main
from designer.browser.chart import ConflictChart
from designer.browser.detail import ABSENT, DIFFERS_ROLE, RowComparisonModel
from designer.browser.models import RecordTableModel
from engine.run.rundir.write import RunInfo, conflicts_arrow, write_failed_run
from engine.summary import read_run

BIG = 100_000


@pytest.fixture
def opened(browser: ConflictBrowser, ordering_run: Path, qtbot: QtBot) -> ConflictBrowser:
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(ordering_run)
    return browser


def an_event_loop_still_runs() -> bool:
    """Whether new event loops still wait for their timers: Qt's `exec` returns -1 at once when a quit has
    left `quitNow` set outside the application's own `exec`. Two loops: a Quit still queued is handled in the
    first, which it ends as if by its timer."""
    codes = []
    for _ in range(2):
        loop = QEventLoop()
        QTimer.singleShot(10, loop.quit)
        codes.append(loop.exec())
    return codes == [0, 0]


def column(view: QTableView, title: str) -> list[str]:
    model = view.model()
    [section] = [c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == title]
    return [model.index(row, section).data() for row in range(model.rowCount())]


def type_filter(browser: ConflictBrowser, qtbot: QtBot, text: str) -> None:
    # a generous wait: the filter is a behaviour here, not a speed (100,000 rows on a loaded CI worker took >5 s)
    with qtbot.waitSignal(browser.conflicts_page.proxy.sig_filter_changed, timeout=60_000):
        browser.filter_edit.clear()
        qtbot.keyClicks(browser.filter_edit, text)


def choose(qtbot: QtBot, browser: ConflictBrowser, combo_name: str, value: str | None) -> None:
    combo = getattr(browser, combo_name)
    with qtbot.waitSignal(browser.conflicts_page.proxy.sig_filter_changed, timeout=60_000):
        combo.setCurrentIndex(combo.findData(value) if value is not None else 0)


def click_row(qtbot: QtBot, view: QTableView, row: int) -> None:
    rect = view.visualRect(view.model().index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


# --- a real run: two update conflicts at C, resolved by site priority -----------------------------------

def test_the_table_shows_the_runs_two_conflicts(opened: ConflictBrowser) -> None:
    view = opened.conflicts_page.view
    assert view.model().rowCount() == 2
    assert column(view, "Origin") == ["B", "A"]  # file (delivery) order
    assert set(column(view, "Site")) == {"C"} and set(column(view, "Key")) == {"ID=1"}
    assert set(column(view, "Method")) == {"site_priority"} and set(column(view, "Outcome")) == {"remote"}
    assert opened.tabs.tabText(0) == "Conflicts (2)"
    assert "2 conflicts" in opened.banner.text() and "4 of 6 mappings diverged" in opened.banner.text()


def test_typing_a_capital_filters_case_sensitively(opened: ConflictBrowser, qtbot: QtBot) -> None:
    view = opened.conflicts_page.view
    type_filter(opened, qtbot, "A")
    assert column(view, "Origin") == ["A"]
    assert opened.conflicts_page.filter_bar.count_label.text() == "1 of 2"
    type_filter(opened, qtbot, "a")  # lower case: any case, and "update" has an a
    assert view.model().rowCount() == 2
    type_filter(opened, qtbot, "C.T site_priority B")  # every word must match
    assert column(view, "Origin") == ["B"]


def test_the_outcome_and_type_combos_filter(opened: ConflictBrowser, qtbot: QtBot) -> None:
    view = opened.conflicts_page.view
    combo = opened.outcome_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["All outcomes", "remote"]
    choose(qtbot, opened, "outcome_combo", "remote")
    assert view.model().rowCount() == 2
    type_filter(opened, qtbot, "A")
    assert column(view, "Origin") == ["A"]
    choose(qtbot, opened, "type_combo", "update")
    assert view.model().rowCount() == 1
    type_filter(opened, qtbot, "")
    choose(qtbot, opened, "outcome_combo", None)
    assert view.model().rowCount() == 2


def test_selecting_a_row_highlights_exactly_the_differing_columns(opened: ConflictBrowser, qtbot: QtBot) -> None:
    view = opened.conflicts_page.view
    with qtbot.waitSignal(opened.sig_conflict_selected) as selected:
        click_row(qtbot, view, 0)
    assert selected.args[0]["origin"] == "B"
    pane = opened.conflicts_page.comparison
    assert pane is not None
    model = pane.model
    titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    names = [model.headerData(r, Qt.Orientation.Vertical) for r in range(model.rowCount())]
    assert titles == ["Local", "Remote old", "Remote new", "Result"] and names == ["ID", "X"]
    cells = {(names[r], titles[c]): model.index(r, c) for r in range(len(names)) for c in range(len(titles))}
    assert [cells["X", t].data() for t in titles] == ["2", "5", "7", "7"]
    highlighted = {key for key, index in cells.items() if index.data(Qt.ItemDataRole.BackgroundRole) is not None}
    assert highlighted == {("X", "Remote old"), ("X", "Remote new"), ("X", "Result")}
    assert {key for key, index in cells.items() if index.data(DIFFERS_ROLE)} == highlighted
    assert model.differing_columns() == ["X"]
    assert pane.legend.text() == "differs from Local"
    assert "site_priority" in pane.caption.text() and "<b>B</b>" in pane.caption.text()


def test_clicking_a_header_sorts_and_keeps_the_selection(opened: ConflictBrowser, qtbot: QtBot) -> None:
    view = opened.conflicts_page.view
    click_row(qtbot, view, 0)  # the conflict from B
    header = view.horizontalHeader()
    centre = QPoint(header.sectionViewportPosition(1) + header.sectionSize(1) // 2, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert header.sortIndicatorSection() == 1
    expected = ["A", "B"] if header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder else ["B", "A"]
    assert column(view, "Origin") == expected
    assert view.currentIndex().siblingAtColumn(1).data() == "B"
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    assert column(view, "Origin") == ["B", "A"]


def test_convergence_lists_six_mappings_four_diverged_with_examples(opened: ConflictBrowser, qtbot: QtBot) -> None:
    page = opened.convergence_page
    assert page.view.model().rowCount() == 6 and page.caption.text() == "6 mappings, 4 diverged"
    mappings = column(page.view, "Mapping")
    proxy = page.view.model()
    highlighted = {mappings[r] for r in range(6) if proxy.index(r, 0).data(Qt.ItemDataRole.BackgroundRole)}
    assert highlighted == {"A_to_C", "B_to_C", "C_to_A", "C_to_B"}
    assert dict(zip(mappings, column(page.view, "Status"), strict=True))["A_to_B"] == "converged"
    opened.tabs.setCurrentWidget(page)
    click_row(qtbot, page.view, mappings.index("A_to_C"))
    examples = page.examples_page.view
    assert (column(examples, "Key"), column(examples, "Source"), column(examples, "Target")) == \
        (["ID=1"], ["ID=1, X=7"], ["ID=1, X=5"])
    click_row(qtbot, examples, 0)
    assert page.examples_page.comparison is not None
    assert page.examples_page.comparison.model.highlighted_cells() == [("X", "Target")]
    click_row(qtbot, page.view, mappings.index("A_to_B"))
    assert examples.model().rowCount() == 0


def test_the_chart_stacks_types_by_outcome_and_filters_on_click(opened: ConflictBrowser) -> None:
    chart = opened.conflicts_page.chart
    series = chart.series()
    assert [bars.label() for bars in series.barSets()] == ["remote"]
    assert chart.types == ["update"] and chart.counts == {("update", "remote"): 2}
    assert series.barSets()[0].at(0) == 2
    series.clicked.emit(0, series.barSets()[0])
    assert (opened.type_combo.currentData(), opened.outcome_combo.currentData()) == ("update", "remote")


def test_the_chart_is_wide_enough_to_write_every_type_and_outcome_whole(qtbot: QtBot) -> None:
    """The legend's outcomes and the types under the bars were elided ("unr...", "uniq...") in a chart as
    wide as a quarter of the browser: its size hint now makes room for them, and a type is never cut."""
    model = RecordTableModel([])
    chart = ConflictChart(model)
    qtbot.addWidget(chart)
    narrow = chart.sizeHint().width()
    model.set_records([{"type": t, "outcome": o} for t in ("delete", "uniqueness", "update")
                       for o in ("remote", "local", "merged", "unresolved")])
    assert chart.outcomes == ["remote", "local", "merged", "unresolved"]
    metrics = chart.fontMetrics()
    legend = sum(metrics.horizontalAdvance(o) for o in chart.outcomes)
    widest = max(metrics.horizontalAdvance(t) for t in chart.types)
    assert chart.sizeHint().width() > max(narrow, legend + 4 * 12, 3 * widest)
    [x_axis] = chart.chart().axes(Qt.Orientation.Horizontal)
    assert not x_axis.truncateLabels()


def test_the_summary_shows_status_counts_and_stage_seconds(opened: ConflictBrowser) -> None:
    overview = opened.overview
    assert overview.status_label.text().startswith("Run succeeded")
    assert not overview.reason_label.isVisible()
    counts = {r["name"]: r["value"] for r in overview.counts.records}
    assert counts == {"records": 2, "rejects": 0, "filtered": 0, "deliveries": 4, "applied": 2, "resolved": 2,
                      "queued": 0, "conflicts": 2}
    assert not any(box.isHidden() for box in overview.findChildren(QGroupBox))
    stages = [r["name"] for r in overview.stages.records]
    assert stages == ["decode", "net_effect", "resolve", "converge", "total"]
    assert overview.info_labels["Spark"].text() == "reference"


def test_a_new_run_keeps_the_chosen_sort_order(opened: ConflictBrowser, ordering_run: Path) -> None:
    view = opened.conflicts_page.view
    view.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    assert column(view, "Origin") == ["A", "B"]
    opened.open_run(ordering_run)
    assert column(view, "Origin") == ["A", "B"] and view.horizontalHeader().sortIndicatorSection() == 1


def test_the_chart_follows_a_dark_palette(opened: ConflictBrowser) -> None:
    chart = opened.conflicts_page.chart
    assert chart.chart().theme() == QChart.ChartTheme.ChartThemeLight
    dark = QPalette()
    for role, color in ((QPalette.ColorRole.Window, QColor(30, 30, 30)), (QPalette.ColorRole.Base, QColor(20, 20, 20)),
                        (QPalette.ColorRole.Text, QColor(230, 230, 230))):
        dark.setColor(role, color)
    chart.setPalette(dark)
    assert chart.chart().theme() == QChart.ChartTheme.ChartThemeDark
    assert chart.chart().titleBrush().color() == QColor(230, 230, 230)


def test_a_missing_image_is_shown_as_absent_and_never_highlighted(qtbot: QtBot) -> None:
    model = RowComparisonModel()
    model.set_images([("Local", None), ("Remote old", {"ID": 1, "X": 1}), ("Remote new", {"ID": 1, "X": 2}),
                      ("Result", {"ID": 1, "X": 2, "Y": None})])
    assert model.highlighted_cells() == [("X", "Remote new"), ("X", "Result"), ("Y", "Result")]
    assert [model.index(2, c).data() for c in range(4)] == [ABSENT, ABSENT, ABSENT, "NULL"]


def test_python_m_designer_browser_opens_a_run(qtbot: QtBot, ordering_run: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The run is read off the GUI thread: the event loop ends once the browser has shown it (or said why
    not; a minute at most), not at its first turn, which a read that takes a moment lost to."""
    shown: list[ConflictBrowser] = []
    app = QApplication.instance()
    assert app is not None

    def show(browser: ConflictBrowser) -> None:
        shown.append(browser)
        browser.sig_run_opened.connect(app.quit)
        browser.sig_open_failed.connect(app.quit)

    monkeypatch.setattr(ConflictBrowser, "show", show)
    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(app.quit)
    guard.start(60_000)
    # This `exec()` shares the suite's application: an earlier test's window closed inside it (none of this
    # test is visible) would post the automatic quit of a last window, and that Quit, handled after `exec()`,
    # makes every later event loop of the process return at once (Qt's `quitNow` stays set): every later
    # wait for a signal then fails at once (seen after the warm-session test, whose window closes late)
    app.setQuitOnLastWindowClosed(False)
    try:
        assert browser_main([str(ordering_run)]) == 0
    finally:
        guard.stop()  # a pending quit would end some later test's event loop
        QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
        app.setQuitOnLastWindowClosed(True)
    assert an_event_loop_still_runs()
    [browser] = shown
    assert browser.conflicts.rowCount() == 2 and browser.rundir == ordering_run
    browser.deleteLater()


# --- runs that did not succeed, and folders that are not runs ------------------------------------------

@pytest.mark.parametrize("status", ["failed", "cancelled"])
def test_a_run_that_did_not_succeed_shows_its_status_and_reason(browser: ConflictBrowser, qtbot: QtBot,
                                                                   tmp_path: Path, status: str) -> None:
    reason = "changes/a.jsonl:3: unknown table NOPE"
    out = write_failed_run(tmp_path / "run", status, reason, RunInfo(model_sha256="0" * 64))
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(out)
    assert browser.tabs.currentWidget() is browser.overview
    assert [browser.tabs.isTabVisible(i) for i in range(5)] == [False, False, False, False, True]
    assert browser.overview.status_label.text().startswith(f"Run {status}")
    assert browser.overview.reason_label.isVisible() and reason in browser.overview.reason_label.text()
    assert f"run {status}" in browser.banner.text() and reason in browser.banner.text()
    assert browser.overview.icon_label.isVisible()
    assert not browser.overview.counts.rowCount() and browser.overview.findChild(QGroupBox).isHidden()


def test_a_folder_that_is_not_a_run_says_why(browser: ConflictBrowser, qtbot: QtBot, tmp_path: Path) -> None:
    with qtbot.waitSignal(browser.sig_open_failed) as failed:
        assert browser.open_run(tmp_path) is None
    assert "no manifest.json" in failed.args[0]
    assert "no manifest.json" in browser.overview.reason_label.text()
    assert browser.tabs.currentWidget() is browser.overview


def test_error_queue_and_rejects_tabs(browser: ConflictBrowser, qtbot: QtBot, tmp_path: Path,
                                     ordering_run: Path) -> None:
    entry = {"site": "C", "txn": "t9", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "U",
             "before": {"ID": 1, "X": 1}, "after": {"ID": 1, "X": 2}, "origin": "A", "mapping": "A_to_C",
             "delivered_at": "2026-01-05T10:00:00Z", "reason": "unresolved update conflict in the shadow group"}
    reject = {"file": "changes/c.jsonl", "line": 2, "reason": "column NOPE is not in T", "raw": '{"NOPE": 1}'}
    out = Path(shutil.copytree(ordering_run, tmp_path / "run"))  # a whole run, with one queued change and one reject
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["counts"]
    counts.update(queued=1, deliveries=counts["deliveries"] + 1, rejects=1, records=counts["records"] + 1)
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "error_queue.jsonl").write_text(json.dumps(entry) + "\n")
    (out / "rejects.jsonl").write_text(json.dumps(reject) + "\n")
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(out)
    assert browser.tabs.tabText(1) == "Error queue (1)" and browser.tabs.tabText(2) == "Rejects (1)"
    queue = browser.queue_page
    browser.tabs.setCurrentWidget(queue)
    assert column(queue.view, "Reason") == [entry["reason"]] and column(queue.view, "Op") == ["U"]
    click_row(qtbot, queue.view, 0)
    assert queue.comparison is not None and queue.comparison.model.highlighted_cells() == [("X", "After")]
    assert "shadow group" in queue.comparison.caption.text()
    rejects = browser.rejects_page
    browser.tabs.setCurrentWidget(rejects)
    assert [column(rejects.view, t) for t in ("File", "Line", "Reason", "Raw")] == \
        [["changes/c.jsonl"], ["2"], [reject["reason"]], [reject["raw"]]]
    click_row(qtbot, rejects.view, 0)
    assert "NOPE" in rejects.description.text()


# --- 100,000 conflicts ------------------------------------------------------------------------------

class CountingModel(RecordTableModel):
    """Records which rows the views ask for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rows_asked: set[int] = set()

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        self.rows_asked.add(index.row())
        return super().data(index, role)


def write_big_run(out: Path) -> None:
    """A whole run directory (every file of the contract, consistent counts) with 100,000 conflicts."""
    out.mkdir()
    types, outcomes = ("update", "uniqueness", "delete"), ("remote", "local", "merged", "unresolved")
    conflicts = []
    with (out / "conflicts.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(BIG):
            row = {"ID": i, "NAME": f"n{i}", "X": i % 7}
            conflicts.append({
                "site": f"S{i % 5}", "origin": f"S{(i + 1) % 5}", "table": f"S{i % 5}.T{i % 10}", "dkey": {"ID": i},
                "txn": f"t{i}", "type": types[i % 3], "column_group": "g", "methods_tried": ["maximum"],
                "method": "maximum", "outcome": outcomes[i % 4], "local": row, "remote_old": row,
                "remote_new": {**row, "X": i % 7 + 1}, "result": row,
                "delivered_at": f"2026-01-05T10:{i % 60:02d}:00Z"})
            fh.write(json.dumps(conflicts[-1]) + "\n")
    pq.write_table(conflicts_arrow(conflicts), out / "conflicts.parquet")
    for key in {c["table"] for c in conflicts}:
        server, name = key.split(".")
        (out / "tables" / server).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"ID": pa.array([], pa.int64())}), out / "tables" / server / f"{name}.parquet")
    for name in ("error_queue.jsonl", "rejects.jsonl"):
        (out / name).write_text("")
    (out / "convergence.json").write_text(json.dumps({"mappings": []}))
    counts = dict.fromkeys(("records", "rejects", "filtered", "deliveries", "applied", "resolved", "queued"), 0)
    (out / "manifest.json").write_text(json.dumps({"status": "succeeded", "engine": "mapwright test",
                                                   "counts": {**counts, "conflicts": BIG}}))


def test_a_hundred_thousand_conflicts_load_filter_and_sort_lazily(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Any) -> None:
    write_big_run(tmp_path / "big")
    monkeypatch.setattr(window_module, "RecordTableModel", CountingModel)
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    browser.show()
    qtbot.waitExposed(browser)
    model = browser.conflicts
    assert isinstance(model, CountingModel)
    view = browser.conflicts_page.view

    started = time.perf_counter()
    browser.open_run(tmp_path / "big")
    qtbot.wait(0)  # let the view paint
    load_seconds = time.perf_counter() - started
    assert model.rowCount() == BIG and view.model().rowCount() == BIG
    assert 0 < len(model.rows_asked) < 100 and max(model.rows_asked) < 100  # only the visible rows

    model.rows_asked.clear()
    started = time.perf_counter()
    type_filter(browser, qtbot, "S1")  # site or table S1 (i % 5 == 1), or origin S1 (i % 5 == 0)
    choose(qtbot, browser, "outcome_combo", "unresolved")  # i % 4 == 3
    filter_seconds = time.perf_counter() - started
    assert view.model().rowCount() == BIG // 20 * 2

    started = time.perf_counter()
    view.sortByColumn(3, Qt.SortOrder.DescendingOrder)  # the key, numerically
    sort_seconds = time.perf_counter() - started
    assert view.model().index(0, 3).data() == "ID=99995"
    qtbot.wait(0)
    assert len(model.rows_asked) < 100
    chart = browser.conflicts_page.chart
    # the chart counts what the filter shows, of all the run holds
    assert sum(chart.counts.values()) == view.model().rowCount() == BIG // 20 * 2 and chart.total == BIG

    record_property("load_seconds", round(load_seconds, 2))
    print(f"\n100,000 conflicts: open {load_seconds:.2f} s, filter {filter_seconds:.2f} s, sort {sort_seconds:.2f} s")


def readers_alive() -> bool:
    return any(t.name == "mapwright-read-run" and t.is_alive() for t in threading.enumerate())


def test_the_window_reads_a_run_off_the_gui_thread_and_shows_only_the_latest_it_opened(
        qtbot: QtBot, tmp_path: Path, ordering_run: Path, unhandled: list[BaseException]) -> None:
    """`load_run` returns before the run is read (the GUI thread goes on painting while 100,000 conflicts
    load); a run opened meanwhile supersedes it, whichever read ends first; a folder that is no run is said
    in the banner; closing the browser mid-read leaves nothing to crash."""
    write_big_run(tmp_path / "big")
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    browser.show()

    browser.load_run(tmp_path / "big")
    assert browser.summary is None and browser.loading() and "Loading" in browser.banner.text()
    with qtbot.waitSignal(browser.sig_run_opened, timeout=60_000) as opened:
        pass
    assert not browser.loading() and opened.args[0].conflicts and browser.conflicts.rowCount() == BIG

    browser.load_run(tmp_path / "big")  # the slow read first...
    browser.load_run(ordering_run)  # ...then the quick one: it is the one shown, at the end too
    qtbot.waitUntil(lambda: not readers_alive() and not browser.loading(), timeout=60_000)
    qtbot.wait(50)  # whatever the big read queued is delivered, and ignored
    assert browser.rundir == ordering_run and browser.conflicts.rowCount() == len(read_run(ordering_run).conflicts)

    (tmp_path / "plain").mkdir()
    with qtbot.waitSignal(browser.sig_open_failed, timeout=30_000) as failed:
        browser.load_run(tmp_path / "plain")
    assert "manifest.json" in failed.args[0] and "Cannot open" in browser.banner.text()
    assert browser.summary is None and browser.conflicts.rowCount() == 0

    browser.load_run(tmp_path / "big")
    browser.close()
    browser.deleteLater()
    qtbot.waitUntil(lambda: not readers_alive(), timeout=60_000)
    qtbot.wait(50)
    assert unhandled == []
