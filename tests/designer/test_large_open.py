"""A large model paints first and is checked on another thread (issue 37, item 11).

A model of more than `CHECK_LATER_OVER` tables and mappings opens unchecked: the canvas shows every table,
the status bar says the model is being checked, and once the canvas has painted the whole check runs off the
GUI thread and its findings arrive (the Problems panel, the counts) exactly as a full validation gives them.
An edit made before they arrive waits for them. A small model is checked before its first paint, as before.
The designer does not load what only its dialogs need (SQLAlchemy's dialects, pyarrow) to open a window.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from many_tables import many_tables
from PySide6.QtCore import QSettings
from windows import make_window

from designer.document import CHECK_LATER_OVER
from designer.window import MainWindow
from engine.edits import evolve, replace
from engine.model import save_model
from engine.rules import count, validate
from resources import SAMPLE_MODEL


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def large(tmp_path: Path) -> Path:
    model = many_tables(70)  # 210 tables, 140 mappings, conflict settings
    model.mappings[0] = evolve(model.mappings[0], where="NOT A COLUMN =")  # something to find
    assert len(model.tables) + len(model.mappings) > CHECK_LATER_OVER
    path = tmp_path / "large.json"
    save_model(model, path)
    return path


def private_window(qtbot: Any, tmp_path: Path) -> MainWindow:
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(w)
    return w


def shown_codes(w: MainWindow) -> list[str]:
    model = w.problems.model
    return sorted(model.index(r, 1).data() for r in range(model.rowCount()))


def test_a_large_model_paints_unchecked_then_its_findings_arrive_from_another_thread(
        qtbot: Any, tmp_path: Path, large: Path) -> None:
    w = private_window(qtbot, tmp_path)
    w.open_path(large)
    assert w.document.checking and w.document.findings() == []
    assert w.status.text() == "Checking the model…"
    assert len(w.scene.tables) == len(w.document.model.tables)  # the canvas does not wait for the check
    assert w.document._checker is None  # nothing is checked before the canvas paints
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: not w.document.checking, timeout=20000)
    checker = w.document._checker
    assert checker is not None and checker.name == "mapwright-check"
    expected = validate(w.document.model)
    assert expected, "the model has findings to show"
    assert w.document.findings() == expected
    assert shown_codes(w) == sorted(f.code for f in expected)
    errors, warnings = count(expected)
    assert w.status.text().startswith(f"{errors} error")
    assert not w.problems.model.fresh  # what was there at open does not flash as new


def test_an_edit_before_the_check_ends_waits_for_it_and_findings_stay_whole(
        qtbot: Any, tmp_path: Path, large: Path) -> None:
    w = private_window(qtbot, tmp_path)
    w.check_when_painted = False  # nothing starts the check: the edit must
    w.open_path(large)
    doc = w.document
    assert doc.checking
    before = validate(doc.model)
    mapping = doc.model.mappings[1]
    doc.apply(replace(doc.model, "mapping", mapping, evolve(mapping, where="NOT A COLUMN =")), "Bad where")
    assert not doc.checking
    assert len(doc.findings()) > len(before)
    assert doc.findings() == validate(doc.model)
    assert shown_codes(w) == sorted(f.code for f in doc.findings())
    doc.undo_stack.undo()
    assert doc.findings() == before


def test_a_small_model_is_checked_before_its_first_paint(qtbot: Any, tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, SAMPLE_MODEL)
    assert not w.document.checking
    assert w.document.findings() == validate(w.document.model)
    assert "Checking" not in w.status.text()


def test_the_designer_opens_without_loading_what_only_its_dialogs_need() -> None:
    probe = ("import sys, designer.app, designer.window, engine.cli; "
             "print(sorted(m for m in ('pyarrow', 'sqlalchemy', 'networkx', 'engine.dbimport', "
             "'engine.ddl', 'designer.browser.window', 'engine.run.semantics.reference') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})
    assert out.stdout.strip() == "[]"
