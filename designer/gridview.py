"""A table view whose editing keys belong to it while it has the focus.

The window's shortcuts (F2 renames the selected entity on the canvas) are window-wide: without this, F2 in a
grid renamed a table instead of editing the cell. The view claims the keys an item view edits with before
any shortcut sees them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QTableView

EDITING_KEYS = (Qt.Key.Key_F2, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape, Qt.Key.Key_Tab,
                Qt.Key.Key_Backtab, Qt.Key.Key_Delete, Qt.Key.Key_Space)


class GridView(QTableView):
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and event.key() in EDITING_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            event.accept()  # delivered to keyPressEvent as a key, not to the window as a shortcut
            return True
        return super().event(event)
