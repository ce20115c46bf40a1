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


# --- a never-saved model's autosave after a crash ------------------------------------------------------------

_KEEPER = """
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from designer.autosave import Autosaver
from designer.document import Document, EditCommand
from engine.model import Model
app = QApplication([])
document = Document(Model.model_validate({"format": "mapwright/1", "name": "draft",
                                          "servers": [{"id": "left_behind", "dbms": "oracle"}]}))
document.undo_stack.push(EditCommand(document, [], "an edit"))  # unsaved work
print(Autosaver(document).save_now(), flush=True)
time.sleep(600)
"""


def test_a_never_saved_model_of_a_killed_designer_is_offered_back_once(
        qtbot: QtBot, tmp_path: Path, boxes: list[QMessageBox], monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's promise: an autosave is offered back after a crash, also a model that never had a file.
    A designer killed with unsaved work leaves its autosave; the next one offers it (and only the gone
    process's, not a running one's), opens it unsaved, and removes the file so it is not offered again."""
    import os
    import signal
    import subprocess
    import sys

    keeper = subprocess.Popen([sys.executable, "-c", _KEEPER], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "MAPWRIGHT_AUTOSAVE_DIR": str(tmp_path / "autosave")})
    try:
        left = Path(keeper.stdout.readline().strip())  # type: ignore[union-attr]
        assert left.is_file() and "left_behind" in left.read_text()
        w = make_window(qtbot, tmp_path, model_in_folder(tmp_path), ask=True)
        assert not w.offer_orphaned_autosaves() and boxes == []  # its designer still runs: not an orphan
    finally:
        keeper.send_signal(signal.SIGKILL)
        keeper.wait()
        keeper.stdout.close()  # type: ignore[union-attr]
    w.new_model()
    w.authoring.add_server({"id": "mine", "dbms": "oracle"})
    assert w.autosaver.save_now() is not None  # this running designer's own: never offered
    w.document.undo_stack.setClean()
    boxes.clear()
    yes = int(QMessageBox.StandardButton.Yes.value)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: (boxes.append(box), yes)[1])
    assert w.offer_orphaned_autosaves()
    assert [b.windowTitle() for b in boxes] == ["Recover autosave"] and "never saved" in boxes[0].text()
    assert w.document.path is None and w.document.dirty
    assert [s.id for s in w.document.model.servers] == ["left_behind"]
    assert not left.exists()
    assert not w.offer_orphaned_autosaves()
    w.document.undo_stack.setClean()  # closing asks nothing (a Save there would open a real file dialog)


def test_a_failed_open_s_message_goes_once_another_model_opens(qtbot: QtBot, tmp_path: Path) -> None:
    """The status bar said `bad.json:1: invalid JSON` with no timeout, still there over the good model."""
    w = make_window(qtbot, tmp_path, model_in_folder(tmp_path))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert not w.open_path(bad) and "bad.json" in w.statusBar().currentMessage()
    (tmp_path / "again").mkdir()
    assert w.open_path(model_in_folder(tmp_path / "again"))
    assert w.statusBar().currentMessage() == ""
