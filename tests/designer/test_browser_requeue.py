"""The error queue's Re-execute…: the selected queued transactions executed again, by `mapwright requeue` in a
child process, with the designer's current model (unsaved edits included), into a new run beside the run,
which opens in a browser of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from windows import window_on

import designer.browser.requeue as requeue_module
from designer.browser import ConflictBrowser
from designer.browser.models import RECORD_ROLE
from designer.browser.requeue import requeue_dir
from engine.edits import set_setting
from engine.model import load_model
from engine.run.rundir.write import run_reference_to_dir

COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"}]
MODEL: dict[str, Any] = {
    "format": "mapwright/1", "name": "rq",
    "servers": [{"id": "s", "dbms": "postgresql"}, {"id": "t", "dbms": "postgresql"}],
    "tables": [{"server": srv, "name": "T", "columns": COLUMNS, "primary_key": ["ID"]} for srv in "st"],
    "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID", "NAME": "NAME"}}],
    "conflicts": []}
"""t.T has no resolution: both changes below are queued."""
CHANGES = [
    {"site": "s", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "U",
     "before": {"ID": 1, "NAME": "a"}, "after": {"ID": 1, "NAME": "b"}},  # t holds NAME x: old values differ
    {"site": "s", "txn": "t2", "seq": 1, "commit_ts": "2026-01-05T10:01:00Z", "table": "T", "op": "I",
     "after": {"ID": 2, "NAME": "n"}},  # t holds ID 2 already
]


@pytest.fixture
def queued_run(tmp_path: Path) -> Path:
    """A run directory whose error queue holds t1 and t2; its model file beside it."""
    data = tmp_path / "data"
    for site, rows in (("s", [{"ID": 1, "NAME": "a"}]), ("t", [{"ID": 1, "NAME": "x"}, {"ID": 2, "NAME": "y"}])):
        (data / "snapshots" / site).mkdir(parents=True)
        (data / "snapshots" / site / "T.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (data / "changes").mkdir()
    (data / "changes" / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CHANGES))
    (tmp_path / "run-model.json").write_text(json.dumps(MODEL))
    status, out = run_reference_to_dir(tmp_path / "run-model.json", data, tmp_path / "runs" / "run")
    assert status == "succeeded"
    return out


def _queue_row(browser: ConflictBrowser, txn: str) -> int:
    proxy = browser.queue_page.proxy
    rows = [r for r in range(proxy.rowCount()) if proxy.index(r, 0).data(RECORD_ROLE)["txn"] == txn]
    assert len(rows) == 1
    return rows[0]


def test_reexecute_the_selected_transaction_with_the_windows_model(queued_run: Path, tmp_path: Path,
                                                                   qtbot: QtBot) -> None:
    w = window_on(qtbot, tmp_path, MODEL)
    w.select(("table", "t.T"))  # t.T gains a resolution in the conflict editor, unsaved: the requeue saves it
    editor = w.conflicts
    editor.enabled.setChecked(True)
    policy = editor.policies["on_insert_exists"]
    policy.setCurrentText("overwrite")
    policy.activated.emit(policy.currentIndex())
    entry = w.document.model.conflicts_for("t.T")
    assert entry is not None and entry.on_insert_exists == "overwrite" and w.document.dirty
    (queued_run.parent / "run-requeue").write_text("a file: the new run goes beside it, never over it")

    browser = w.open_run(queued_run)
    qtbot.waitUntil(lambda: not browser.loading() and browser.summary is not None, timeout=10_000)
    requeuer = browser.requeuer
    assert requeuer.button.isEnabled() and requeuer.action.isEnabled()
    bar = browser.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())  # the Error queue tab
    assert browser.tabs.currentWidget() is browser.queue_page
    view = browser.queue_page.view
    rect = view.visualRect(browser.queue_page.proxy.index(_queue_row(browser, "t2"), 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert requeuer.selected_txns() == ["t2"]

    browser.activateWindow()
    qtbot.waitActive(browser)
    with qtbot.waitSignal(requeuer.sig_finished, timeout=20_000) as done:
        QTest.keyClick(browser.windowHandle(), Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
        assert requeuer.running() and not requeuer.button.isEnabled()  # the GUI goes on meanwhile
    out = queued_run.parent / "run-requeue-2"
    assert done.args[0] == str(out)
    assert done.args[1] == (f"executed 1 queued change(s) of {queued_run} again: 0 applied, 1 resolved, "
                            f"1 queued, 0 rejected; wrote {out}")
    assert requeuer.status.text() == done.args[1]
    qtbot.waitUntil(lambda: len(w.browsers) == 2 and not w.browsers[1].loading(), timeout=10_000)
    new = w.browsers[1]
    assert new.rundir == out and new.summary is not None and new.summary.status == "succeeded"
    assert [e["txn"] for e in new.summary.error_queue] == ["t1"]  # not selected: still queued
    assert [(c["txn"], c["outcome"]) for c in new.summary.conflicts] == [("t2", "remote")]
    assert new.requeuer.current_model is not None and new.requeuer.button.isEnabled()  # t1 can go next
    assert Path(new.summary.manifest["model"]["path"]) == w.document.path  # the file it read: saved first
    assert not w.document.dirty and load_model(w.document.path).conflicts_for("t.T") is not None
    assert requeuer.button.isEnabled()


def test_reexecute_with_unsaved_edits_asks_and_a_cancel_runs_nothing(queued_run: Path, tmp_path: Path, qtbot: QtBot,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    w = window_on(qtbot, tmp_path, MODEL)
    w.document.apply(set_setting(w.document.model, "name", "edited"), "Rename")
    assert w.document.dirty
    before = w.document.path.read_text()  # type: ignore[union-attr]
    asked: list[str] = []

    def cancel(*args: Any, **_: Any) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", cancel)
    w.ask = True
    browser = w.open_run(queued_run)
    qtbot.waitUntil(lambda: not browser.loading() and browser.summary is not None, timeout=10_000)
    browser.requeuer.button.click()
    assert asked and "unsaved" in asked[0]
    assert browser.requeuer.status.text() == ("Not re-executed: a requeue reads the model file, and the model's "
                                              "changes are not saved")
    assert not browser.requeuer.running() and not (queued_run.parent / "run-requeue").exists()
    assert w.document.dirty and w.document.path.read_text() == before  # type: ignore[union-attr]
    w.ask = False  # closing it at the end of the test discards the edit without asking
    w.document.undo_stack.setClean()
    browser.close()


def test_disabled_without_a_queue_and_on_its_own_uses_the_runs_model(browser: ConflictBrowser, ordering_run: Path,
                                                                     queued_run: Path, qtbot: QtBot) -> None:
    requeuer = browser.requeuer
    assert not requeuer.button.isEnabled() and not requeuer.action.isEnabled()  # no run shown
    browser.open_run(ordering_run)  # succeeded, but nothing queued
    assert browser.summary is not None and not browser.summary.error_queue
    assert not requeuer.button.isEnabled() and not requeuer.action.isEnabled()
    browser.open_run(queued_run)  # a browser on its own, with no window: the model file the run read
    assert requeuer.button.isEnabled()
    with qtbot.waitSignal(requeuer.sig_finished, timeout=20_000) as done:
        qtbot.mouseClick(requeuer.button, Qt.MouseButton.LeftButton)  # nothing selected: all of the queue
    out = queued_run.parent / "run-requeue"
    assert done.args == [str(out), f"executed 2 queued change(s) of {queued_run} again: 0 applied, 0 resolved, "
                                   f"2 queued, 0 rejected; wrote {out}"]  # the same model queues them again
    qtbot.waitUntil(lambda: any(isinstance(b, ConflictBrowser) and b.rundir == out and b.summary is not None
                                for b in requeue_module.OPENED), timeout=10_000)

    model = queued_run.parent.parent / "run-model.json"
    model.write_text("{")  # the child says why it cannot, in one line
    with qtbot.waitSignal(requeuer.sig_finished, timeout=20_000) as done:
        qtbot.mouseClick(requeuer.button, Qt.MouseButton.LeftButton)
    assert done.args[0] == "" and done.args[1].startswith(f"{model}:1: invalid JSON: ")
    assert requeuer.status.text() == f"Re-execute failed: {done.args[1]}"
    model.unlink()  # gone: said at once, no child started
    qtbot.mouseClick(requeuer.button, Qt.MouseButton.LeftButton)
    assert requeuer.status.text() == (f"Cannot re-execute: the model file the run read ({model}) is not there; "
                                      "open the run from the designer to use its model")
    assert not requeuer.running() and not (queued_run.parent / "run-requeue-2").exists()
    for opened in list(requeue_module.OPENED):
        opened.close()  # deleted on close: forgotten
    qtbot.waitUntil(lambda: not requeue_module.OPENED)


def test_the_new_run_never_takes_an_existing_path(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert requeue_dir(run) == tmp_path / "run-requeue"
    (tmp_path / "run-requeue").mkdir()
    (tmp_path / "run-requeue-3").symlink_to(tmp_path / "nowhere")  # a dangling link is taken too
    (tmp_path / "run-requeue-2").write_text("")
    assert requeue_dir(run) == tmp_path / "run-requeue-4"
