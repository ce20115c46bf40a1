"""A hostile user in the editors: undo of a removal, renames the conflict editor must follow, Find and the
Problems panel after edits, refusals said in one clear line (pytest-qt, on the bundled sample)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.authoring import commands as cmd
from designer.window import MainWindow
from engine.model import dump_model, save_model
from resources import SAMPLE_MODEL


@pytest.fixture(autouse=True)
def private_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return make_window(qtbot, tmp_path, SAMPLE_MODEL)


def tree_lines(w: MainWindow) -> list[str]:
    """Every row of the model tree, indented by depth, in the order shown."""
    out: list[str] = []

    def walk(item: Any, depth: int) -> None:
        for r in range(item.rowCount()):
            child = item.child(r)
            out.append("  " * depth + child.text())
            walk(child, depth + 1)
    walk(w.tree.items.invisibleRootItem(), 0)
    return out


def test_undoing_a_table_removal_puts_its_mappings_back_in_their_places_in_the_tree(
        window: MainWindow, qtbot: QtBot, tmp_path: Path, unhandled: list[BaseException]) -> None:
    before, shown = dump_model(window.document.model), tree_lines(window)
    cmd.push(window.document, cmd.RemoveTable(window.document, "hq.CUSTOMER"))  # four mappings use it
    removed, shown_removed = dump_model(window.document.model), tree_lines(window)
    for _ in range(3):
        window.document.undo_stack.undo()
        assert dump_model(window.document.model) == before and tree_lines(window) == shown
        window.document.undo_stack.redo()
        assert dump_model(window.document.model) == removed and tree_lines(window) == shown_removed
    window.document.undo_stack.undo()
    save_model(window.document.model, tmp_path / "now.json")
    assert tree_lines(window) == tree_lines(make_window(qtbot, tmp_path, tmp_path / "now.json"))
    assert not unhandled
