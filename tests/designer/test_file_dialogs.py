"""File dialogs as a user meets them: a name typed without its suffix gets the filter's (after asking before it
replaces a file), the DDL export asks its dialect and tables, a folder export takes a folder not made yet.

The platform's file dialogs are answered by replacing `QFileDialog`'s static functions (as the other designer
tests do); the designer's own dialogs and message boxes are answered with real key and mouse events."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, make_window

from designer.export_dialogs import DdlOptionsDialog, FolderDialog
from designer.postgresql_export import deployment_findings
from designer.window import MainWindow
from engine.ddl import model_ddl
from engine.model import load_model

Step = tuple[type, Callable[[Any], None]]


def answer(*steps: Step) -> list[str]:
    """Answer the modal dialogs the next call opens, in order: each must be of its step's type (else it is
    closed, and named in the list returned, so a test never hangs on a dialog it did not expect)."""
    pending, seen = list(steps), []

    def poll() -> None:
        widget = QApplication.activeModalWidget()
        if widget is not None and widget.isVisible():
            kind, act = pending.pop(0) if pending else (type(None), lambda _w: None)
            seen.append(type(widget).__name__)
            if not isinstance(widget, kind):
                widget.close()
                return
            act(widget)
        if pending:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)
    return seen


def keys(widget: QWidget, *typed: str | Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """Keys as a keyboard delivers them: to the widget's window, which gives them to its focus widget."""
    window = widget.window().windowHandle()
    for key in typed:
        if isinstance(key, Qt.Key):
            QTest.keyClick(window, key, modifier)
        else:
            for char in key:
                QTest.keyClick(window, ord(char), modifier)  # a character, as QTest::keyClick(window, char)


def click(box: QMessageBox, button: QMessageBox.StandardButton) -> None:
    target = box.button(button)
    QTest.mouseClick(target, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target.rect().center())


def save_dialog_returns(monkeypatch: pytest.MonkeyPatch, path: Path, name_filter: str) -> list[str]:
    """The platform's save dialog answers `path` (as typed) and the filter chosen; returns the titles asked."""
    asked: list[str] = []

    def dialog(_parent: Any, title: str, *_: Any, **__: Any) -> tuple[str, str]:
        asked.append(title)
        return str(path), name_filter
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    return asked


def window(qtbot: QtBot, tmp_path: Path, doc: dict[str, Any]) -> MainWindow:
    (tmp_path / "model.json").write_text(json.dumps(doc))
    made: MainWindow = make_window(qtbot, tmp_path, tmp_path / "model.json", ask=True)
    return made


def test_save_as_adds_json_and_asks_before_replacing_the_file_it_then_names(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window(qtbot, tmp_path, TWO_TABLES)
    save_dialog_returns(monkeypatch, tmp_path / "hqbranch", "Mapwright models (*.json)")
    assert w.save_as()
    assert not (tmp_path / "hqbranch").exists() and load_model(tmp_path / "hqbranch.json").name == "two"
    assert w.document.path == tmp_path / "hqbranch.json"
    # `other` typed, other.json there: the dialog asked about `other` only, so the window asks about other.json
    (tmp_path / "other.json").write_text("keep me")
    save_dialog_returns(monkeypatch, tmp_path / "other", "Mapwright models (*.json)")
    seen = answer((QMessageBox, lambda box: click(box, QMessageBox.StandardButton.No)))
    assert not w.save_as()
    assert seen == ["QMessageBox"] and (tmp_path / "other.json").read_text() == "keep me"
    seen = answer((QMessageBox, lambda box: click(box, QMessageBox.StandardButton.Yes)))
    assert w.save_as() and seen == ["QMessageBox"]
    assert load_model(tmp_path / "other.json").name == "two" and w.document.path == tmp_path / "other.json"
    # a name with a dot is the user's choice (Qt's rule), kept as typed
    save_dialog_returns(monkeypatch, tmp_path / "hq.v2", "Mapwright models (*.json)")
    assert w.save_as() and (tmp_path / "hq.v2").is_file()


def test_ddl_export_asks_dialect_and_server_and_adds_sql(qtbot: QtBot, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    w = window(qtbot, tmp_path, TWO_TABLES)
    asked = save_dialog_returns(monkeypatch, tmp_path / "tables", "SQL DDL (*.sql)")

    def oracle_for_br(dialog: DdlOptionsDialog) -> None:
        keys(dialog, Qt.Key.Key_Down, Qt.Key.Key_Down)  # each server's own -> PostgreSQL -> Oracle
        keys(dialog, Qt.Key.Key_Tab, Qt.Key.Key_Down, Qt.Key.Key_Down)  # every mapped table -> hq -> br
        keys(dialog, Qt.Key.Key_Return)

    seen = answer((DdlOptionsDialog, oracle_for_br))
    w.export("ddl")
    assert seen == ["DdlOptionsDialog"] and asked == ["Export ddl"]
    text = (tmp_path / "tables.sql").read_text()
    assert text == model_ddl(w.document.model, "oracle", "br") != model_ddl(w.document.model, None, "br")
    assert "Exported" in w.statusBar().currentMessage() and not (tmp_path / "tables").exists()
    # Escape: no file asked for, nothing written
    seen = answer((DdlOptionsDialog, lambda dialog: keys(dialog, Qt.Key.Key_Escape)))
    w.export("ddl")
    assert seen == ["DdlOptionsDialog"] and asked == ["Export ddl"]


def test_postgresql_export_creates_a_folder_typed_in_its_dialog(qtbot: QtBot, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    doc: dict[str, Any] = json.loads(json.dumps(TWO_TABLES))
    doc["servers"][0]["dbms"] = "postgresql"
    doc["mappings"] = [{"id": "m", "source": "hq.CUST", "target": "br.CUST", "columns": {"NAME": "NAME"}}]
    w = window(qtbot, tmp_path, doc)
    (tmp_path / "a_file").write_text("x")
    new = tmp_path / "exports" / "pg"
    offered: list[str] = []

    def type_folder(dialog: FolderDialog) -> None:
        offered.append(dialog.line.text())
        keys(dialog, Qt.Key.Key_A, modifier=Qt.KeyboardModifier.ControlModifier)
        keys(dialog, str(tmp_path / "a_file"), Qt.Key.Key_Return)  # a file: refused in the dialog
        assert dialog.isVisible() and "is a file" in dialog.problem.text()
        keys(dialog, Qt.Key.Key_A, modifier=Qt.KeyboardModifier.ControlModifier)
        keys(dialog, "exports/pg", Qt.Key.Key_Return)  # relative: beside the model

    assert deployment_findings(w.document.model)  # what PostgreSQL cannot express is said first: Ok
    seen = answer((QMessageBox, lambda box: click(box, QMessageBox.StandardButton.Ok)), (FolderDialog, type_folder))
    w.export("postgresql")
    assert seen == ["QMessageBox", "FolderDialog"]
    assert offered == [str(tmp_path / "model_postgresql")]
    assert (new / "README.txt").is_file() and (new / "report.txt").is_file()
    assert "Exported the PostgreSQL deployment" in w.statusBar().currentMessage()
