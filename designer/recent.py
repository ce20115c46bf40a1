"""File ▸ Open recent: the models opened or saved last, kept in the settings, newest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

from designer.labels import menu_text

MAX_RECENT = 8


class RecentFiles:
    """The recent models in `settings` ("recent"), shown in `menu`; choosing one calls `open_path`."""

    def __init__(self, settings: QSettings, menu: QMenu, open_path: Callable[[Path], object]) -> None:
        self.settings, self.menu, self.open_path = settings, menu, open_path
        self.refresh()

    def paths(self) -> list[str]:
        value = self.settings.value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def remember(self, path: Path) -> None:
        recent = [str(path.resolve())] + [p for p in self.paths() if p != str(path.resolve())]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.refresh()

    def refresh(self) -> None:
        self.menu.clear()
        for path in self.paths():
            self.menu.addAction(menu_text(path), lambda p=path: self.open_path(Path(p)))
        self.menu.setEnabled(bool(self.paths()))
