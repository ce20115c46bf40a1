"""File ▸ Open recent: the models opened or saved last, kept in the settings, newest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

from designer.labels import menu_text
from designer.slots import bound

MAX_RECENT = 8


class RecentFiles:
    """The recent models in `settings` ("recent"), shown in `menu`; choosing one calls `open_path`."""

    def __init__(self, settings: QSettings, menu: QMenu, open_path: Callable[[Path], object]) -> None:
        self.settings, self.menu, self.open_path = settings, menu, open_path
        self.refresh()

    def paths(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):  # a list of one path is read back as the path
            return [value]
        return [str(p) for p in value] if isinstance(value, list) else []

    def remember(self, path: Path) -> None:
        recent = [str(path.resolve())] + [p for p in self.paths() if p != str(path.resolve())]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.refresh()

    def refresh(self) -> None:
        self.menu.clear()
        for path in self.paths():
            self.menu.addAction(menu_text(path), bound(self.open_path, Path(path)))
        self.menu.setEnabled(bool(self.paths()))
