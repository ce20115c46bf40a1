"""File ▸ Export ▸ goldengate in the designer: what is not expressed is shown before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from designer.goldengate_export import confirm, not_expressed_text
from designer.window import MainWindow
from engine.deploy.goldengate import goldengate_files
from engine.model import load_model
from resources import SAMPLE_MODEL


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


def test_the_export_menu_offers_goldengate_and_writes_the_folder(qtbot: Any, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(w)
    w.open_path(SAMPLE_MODEL)
    export_menu = next(a.menu() for a in w.menuBar().actions()[0].menu().actions() if a.text() == "&Export")
    assert "goldengate…" in [a.text() for a in export_menu.actions()]
    out = tmp_path / "gg"
    out.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    w.export("goldengate")
    expected = goldengate_files(load_model(SAMPLE_MODEL))
    assert sorted(p.name for p in out.iterdir()) == sorted(expected.files)
    message = w.statusBar().currentMessage()
    assert "Exported 4 Replicat parameter file(s)" in message
    assert f"{len(expected.not_expressed)} construct(s) not expressed" in message


def test_a_folder_with_other_files_is_refused_and_left_as_it_was(qtbot: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(w)
    w.open_path(SAMPLE_MODEL)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "rbrahq.prm").write_text("my own parameters")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(mine))
    w.export("goldengate")
    assert [p.name for p in mine.iterdir()] == ["rbrahq.prm"]
    assert (mine / "rbrahq.prm").read_text() == "my own parameters"
    assert "Export failed" in w.statusBar().currentMessage()
    assert "is a folder with other files in it" in w.statusBar().currentMessage()
    assert "--to" not in w.statusBar().currentMessage()  # the window's words, not the command line's


def test_the_dialog_lists_every_construct_not_expressed_and_cancel_writes_nothing(qtbot: Any) -> None:
    export = goldengate_files(load_model(SAMPLE_MODEL))
    text = not_expressed_text(export)
    assert len([line for line in text.splitlines() if line.startswith("  - ")]) == len(export.not_expressed)
    assert "mapping cust_branch_to_hq:" in text and "split" in text
    parent = QWidget()
    qtbot.addWidget(parent)
    seen: dict[str, Any] = {}

    def answer(button: str) -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen["details"] = box.detailedText()
        seen["text"] = box.text()
        target = next(b for b in box.buttons() if b.text().replace("&", "") == button)
        target.click()

    QTimer.singleShot(50, lambda: answer("Cancel"))
    assert confirm(parent, export) is False
    assert seen["details"] == text and f"{len(export.not_expressed)} construct(s)" in seen["text"]
    QTimer.singleShot(50, lambda: answer("Export anyway"))
    assert confirm(parent, export) is True
