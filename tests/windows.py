"""The designer's main window as the GUI tests open it: private settings, a model, shown and exposed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from designer.window import MainWindow


def make_window(qtbot: QtBot, tmp_path: Path, model: Path, ask: bool = False) -> MainWindow:
    """A window on `model`, 1400 x 900, with its settings in `tmp_path` (never the user's). `ask`: the window
    may show dialogs (the test answers them)."""
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=ask)
    w.open_path(model)
    w.resize(1400, 900)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w
