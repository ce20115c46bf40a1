"""The conflict browser on run directories with hostile content: values of every type, fields of the wrong
type, markup after a newline, a manifest naming a path no file system holds. Each run is the reference
engine's run of the ordering example, its records rewritten (counts and `conflicts.parquet` kept whole)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from PySide6.QtCore import QPoint
from PySide6.QtGui import Qt, QTextDocument  # QtCore's Qt with QtGui's functions (mightBeRichText)
from PySide6.QtWidgets import QLabel, QTableView
from pytestqt.qtbot import QtBot

from designer.browser import ConflictBrowser
from engine.run.rundir.write import conflicts_arrow


def rewritten_run(base: Path, out: Path, conflicts: Sequence[dict[str, Any]] | None = None,
                  rejects: Sequence[dict[str, Any]] = (), **manifest: Any) -> Path:
    """A copy of the run at `base` holding `conflicts` (else its own) and `rejects`, its counts to match."""
    shutil.copytree(base, out)
    if conflicts is None:
        conflicts = [json.loads(line) for line in (out / "conflicts.jsonl").read_text().splitlines()]
    doc = json.loads((out / "manifest.json").read_text())
    doc["counts"].update(conflicts=len(conflicts), rejects=len(rejects),
                         records=max(doc["counts"]["records"], len(rejects)))
    doc.update(manifest)
    (out / "manifest.json").write_text(json.dumps(doc))
    (out / "conflicts.jsonl").write_text("".join(json.dumps(c) + "\n" for c in conflicts))
    (out / "rejects.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rejects))
    first = json.loads((base / "conflicts.jsonl").read_text().splitlines()[0])
    pq.write_table(conflicts_arrow([first] * len(conflicts)), out / "conflicts.parquet")  # only its rows counted
    return out


def first_conflict(run: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((run / "conflicts.jsonl").read_text().splitlines()[0])
    return doc


def column(view: QTableView, title: str) -> list[str]:
    model = view.model()
    [section] = [c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == title]
    return [model.index(row, section).data() for row in range(model.rowCount())]


def click_header(qtbot: QtBot, view: QTableView, title: str) -> None:
    header = view.horizontalHeader()
    model = view.model()
    [section] = [c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == title]
    x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2))


def shown(label: QLabel) -> str:
    """The text a label shows: its text rendered as Qt renders it (as rich text when Qt takes it for that)."""
    doc = QTextDocument()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and Qt.mightBeRichText(label.text()))
    if rich:
        doc.setHtml(label.text())
    else:
        doc.setPlainText(label.text())
    return doc.toPlainText()


# --- sorting compares typed values, not their text --------------------------------------------------------

def test_sorting_orders_decimals_by_value_and_instants_by_time(browser: ConflictBrowser, qtbot: QtBot,
                                                               ordering_run: Path, tmp_path: Path) -> None:
    # a run writes a DECIMAL as exact text and leaves out a timestamp's zero microseconds
    base = first_conflict(ordering_run)
    values = [("10.50", "2026-01-05T10:00:00.500000Z"), ("9.25", "2026-01-05T10:00:00Z"),
              ("100", "2026-01-05T10:00:01Z"), ("-3", "2026-01-05T11:00:00+02:00")]
    conflicts = [{**base, "dkey": {"ID": key}, "txn": f"t{n}", "delivered_at": when}
                 for n, (key, when) in enumerate(values)]
    browser.open_run(rewritten_run(ordering_run, tmp_path / "run", conflicts))
    view = browser.conflicts_page.view
    click_header(qtbot, view, "Key")
    assert view.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert column(view, "Key") == ["ID=-3", "ID=9.25", "ID=10.50", "ID=100"]
    click_header(qtbot, view, "Delivered")
    assert column(view, "Delivered") == ["2026-01-05T11:00:00+02:00", "2026-01-05T10:00:00Z",
                                         "2026-01-05T10:00:00.500000Z", "2026-01-05T10:00:01Z"]


def test_sorting_a_column_of_numbers_nan_and_nulls_is_a_total_order(browser: ConflictBrowser,
                                                                    ordering_run: Path, tmp_path: Path) -> None:
    # JSON lines may hold NaN (Python writes it for a float); a NaN key made the order depend on file order
    base = first_conflict(ordering_run)
    keys = [3, float("nan"), 1, None, 2]
    conflicts = [{**base, "dkey": {"ID": key}, "txn": f"t{n}"} for n, key in enumerate(keys)]
    browser.open_run(rewritten_run(ordering_run, tmp_path / "run", conflicts))
    view = browser.conflicts_page.view
    view.sortByColumn(3, Qt.SortOrder.AscendingOrder)
    assert column(view, "Key") == ["ID=1", "ID=2", "ID=3", "ID=NaN", "ID=NULL"]


# --- any JSON value where text is expected ------------------------------------------------------------------

def test_a_conflict_whose_methods_are_not_text_is_described(browser: ConflictBrowser, qtbot: QtBot,
                                                            ordering_run: Path, tmp_path: Path,
                                                            unhandled: list[BaseException]) -> None:
    base = first_conflict(ordering_run)
    conflicts = [{**base, "methods_tried": [1, None, "<b>m</b>"], "method": 5, "column_group": ["g1", "g2"]}]
    browser.open_run(rewritten_run(ordering_run, tmp_path / "run", conflicts))
    view = browser.conflicts_page.view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Down)  # the first row becomes current: its comparison is shown
    qtbot.wait(0)
    assert not unhandled
    assert browser.conflicts_page.comparison is not None
    caption = browser.conflicts_page.comparison.caption
    assert "methods tried 1, NULL, <b>m</b>; decided by 5" in shown(caption)
    assert "group g1, g2" in shown(caption)


def test_a_reject_whose_file_holds_a_newline_is_not_shown_as_markup(browser: ConflictBrowser, qtbot: QtBot,
                                                                   ordering_run: Path, tmp_path: Path) -> None:
    # Qt guesses rich text from a label's first line only: the escaped `<b>` after the newline showed as is
    reject = {"file": "changes/a\nb.jsonl", "line": 2, "reason": "bad & <worse>", "raw": "{}"}
    browser.open_run(rewritten_run(ordering_run, tmp_path / "run", rejects=[reject]))
    page = browser.rejects_page
    browser.tabs.setCurrentWidget(page)
    page.view.selectRow(0)
    text = shown(page.description)
    assert "bad & <worse>" in text and "<b>" not in text and "&amp;" not in text


def test_a_manifest_naming_a_model_path_with_a_nul_byte_opens(browser: ConflictBrowser, ordering_run: Path,
                                                             tmp_path: Path) -> None:
    out = rewritten_run(ordering_run, tmp_path / "run", model={"path": "a\x00b.json", "sha256": "0" * 64})
    assert browser.open_run(out) is not None
    assert browser.conflicts.rowCount() == 2 and "succeeded" in shown(browser.banner)
