"""Saving never loses work: a write the system refuses is said and keeps the window open; Save As leaves no
autosave behind; a file changed on disk meanwhile is not overwritten without asking."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.autosave import autosave_dir, recoverable
from designer.window import MainWindow
from resources import SAMPLE_MODEL


@pytest.fixture(autouse=True)
def private_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def boxes(monkeypatch: pytest.MonkeyPatch) -> list[QMessageBox]:
    """Every message box shown (answered with its default button, else OK), and QMessageBox.question's
    answer: Save."""
    shown: list[QMessageBox] = []

    def answer(box: QMessageBox) -> int:
        shown.append(box)
        default = box.defaultButton()
        return int(box.standardButton(default).value) if default else int(QMessageBox.StandardButton.Ok.value)
    monkeypatch.setattr(QMessageBox, "exec", answer)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Save))
    return shown


def model_in_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return Path(shutil.copy(SAMPLE_MODEL, folder / "m.json"))


def edited(qtbot: QtBot, tmp_path: Path, model: Path, ask: bool = False) -> MainWindow:
    w = make_window(qtbot, tmp_path, model, ask=ask)
    w.authoring.add_server({"id": "extra", "dbms": "oracle"})
    assert w.document.dirty
    return w


def save_as_target(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))


# --- a write that fails ------------------------------------------------------------------------------------

def test_save_into_a_folder_that_is_gone_says_why_and_keeps_the_changes(
        qtbot: QtBot, tmp_path: Path, unhandled: list[BaseException], boxes: list[QMessageBox]) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model, ask=True)
    shutil.rmtree(model.parent)  # an unmounted share, a deleted checkout
    assert not w.save()
    assert not unhandled and w.document.dirty
    assert len(boxes) == 1 and str(model) in boxes[0].text() and "No such file" in boxes[0].text()
    assert boxes[0].textFormat().name == "PlainText"


def test_save_over_a_read_only_model_file_says_why_and_leaves_it(
        qtbot: QtBot, tmp_path: Path, unhandled: list[BaseException], boxes: list[QMessageBox]) -> None:
    """Saving writes a new file and renames it over the old one, which needs only the folder's permission: a
    model its owner had made read-only (0444) was silently replaced."""
    model = model_in_folder(tmp_path)
    before = model.read_bytes()
    model.chmod(0o444)
    w = edited(qtbot, tmp_path, model, ask=True)
    assert not w.save()
    assert not unhandled and w.document.dirty
    assert model.read_bytes() == before and model.stat().st_mode & 0o777 == 0o444
    assert len(boxes) == 1 and "read-only" in boxes[0].text()
    assert sorted(p.name for p in model.parent.iterdir()) == ["m.json"]  # no temporary file left


def test_save_as_onto_a_folder_says_why(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        unhandled: list[BaseException], boxes: list[QMessageBox]) -> None:
    w = edited(qtbot, tmp_path, model_in_folder(tmp_path), ask=True)
    target = tmp_path / "a_folder.json"
    target.mkdir()
    save_as_target(monkeypatch, target)
    assert not w.save_as()
    assert not unhandled and w.document.dirty and w.document.path != target
    assert len(boxes) == 1 and str(target) in boxes[0].text()


def test_save_without_dialogs_says_why_in_the_status_bar(qtbot: QtBot, tmp_path: Path,
                                                         unhandled: list[BaseException]) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model)
    shutil.rmtree(model.parent)
    assert not w.save()
    assert not unhandled and "Not saved" in w.statusBar().currentMessage()


def test_closing_keeps_the_window_open_when_the_save_asked_for_fails(
        qtbot: QtBot, tmp_path: Path, unhandled: list[BaseException], boxes: list[QMessageBox]) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model, ask=True)
    shutil.rmtree(model.parent)
    quit_action = next(a for a in w.menuBar().actions()[0].menu().actions() if a.text() == "&Quit")
    quit_action.trigger()  # File > Quit; "Save them first?" is answered Save
    qtbot.wait(20)
    assert w.isVisible() and w.document.dirty, "the window closed although its changes could not be saved"
    assert not unhandled


# --- Save As and the autosave ---------------------------------------------------------------------------------

def test_save_as_removes_the_old_file_s_autosave(qtbot: QtBot, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model)
    assert w.autosaver.save_now() is not None  # what the debounce does a few seconds after the edit
    save_as_target(monkeypatch, tmp_path / "copy.json")
    assert w.save_as() and not w.document.dirty
    assert recoverable(model) is None, "the original is offered the edits that went to copy.json"
    assert list(autosave_dir().iterdir()) == []


def test_save_as_of_a_new_model_removes_its_untitled_autosave(qtbot: QtBot, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    w = make_window(qtbot, tmp_path, model_in_folder(tmp_path))
    w.new_model()
    w.authoring.add_server({"id": "hours_of_work", "dbms": "oracle"})
    saved = w.autosaver.save_now()
    assert saved is not None and "hours_of_work" in saved.read_text()
    save_as_target(monkeypatch, tmp_path / "n.json")
    assert w.save_as()
    assert list(autosave_dir().iterdir()) == []


def test_an_autosave_folder_that_cannot_be_made_never_stops_opening_editing_saving_or_closing(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unhandled: list[BaseException]) -> None:
    """The autosave folder is the user's data folder: full, read-only or a file there must cost only the
    autosave (said once in the status bar), never the model (opening raised; every timer tick raised)."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(blocker / "autosave"))
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model)
    assert w.document.path == model
    assert w.autosaver.save_now() is None
    assert "Autosave" in w.statusBar().currentMessage() and "not-a-folder" in w.statusBar().currentMessage()
    assert w.save() and "extra" in server_ids(model)
    w.close()
    assert not w.isVisible() and not unhandled


# --- a file changed on disk -----------------------------------------------------------------------------------

def someone_else_saves(model: Path) -> None:
    other: dict[str, Any] = json.loads(model.read_text())
    other["servers"].append({"id": "theirs", "dbms": "db2"})
    model.write_text(json.dumps(other))


def server_ids(model: Path) -> list[str]:
    return [s["id"] for s in json.loads(model.read_text())["servers"]]


def test_a_file_changed_on_disk_is_not_overwritten_when_the_user_cancels(
        qtbot: QtBot, tmp_path: Path, boxes: list[QMessageBox]) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model, ask=True)
    someone_else_saves(model)
    assert not w.save()  # the question's default answer is Cancel
    assert "theirs" in server_ids(model) and w.document.dirty
    assert len(boxes) == 1 and str(model) in boxes[0].text() and boxes[0].textFormat().name == "PlainText"


def test_a_file_changed_on_disk_is_overwritten_when_the_user_says_so(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model, ask=True)
    someone_else_saves(model)
    monkeypatch.setattr(QMessageBox, "exec", lambda _box: int(QMessageBox.StandardButton.Save.value))
    assert w.save()
    assert "theirs" not in server_ids(model) and "extra" in server_ids(model) and not w.document.dirty
    w.authoring.add_server({"id": "more", "dbms": "oracle"})
    monkeypatch.setattr(QMessageBox, "exec", lambda _box: pytest.fail("asked although nothing changed on disk"))
    assert w.save() and "more" in server_ids(model)  # its own save is no change made elsewhere


def test_a_window_that_may_not_ask_never_overwrites_a_change_made_on_disk(qtbot: QtBot, tmp_path: Path) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model)
    someone_else_saves(model)
    assert not w.save()
    assert "theirs" in server_ids(model) and "changed on disk" in w.statusBar().currentMessage()


def test_a_file_rewritten_with_the_same_bytes_is_no_change(qtbot: QtBot, tmp_path: Path) -> None:
    model = model_in_folder(tmp_path)
    w = edited(qtbot, tmp_path, model)
    model.write_bytes(model.read_bytes())  # touched (a checkout, a sync tool), not changed
    assert w.save() and "extra" in server_ids(model)
