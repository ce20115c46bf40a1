"""A table view whose editing keys belong to it while it has the focus.

The window's shortcuts (F2 renames the selected entity on the canvas) are window-wide: without this, F2 in a
grid renamed a table instead of editing the cell. The view claims the keys an item view edits with before
any shortcut sees them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QTableView, QTableWidget

EDITING_KEYS = (Qt.Key.Key_F2, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape, Qt.Key.Key_Tab,
                Qt.Key.Key_Backtab, Qt.Key.Key_Delete, Qt.Key.Key_Space)


def claim_editing_key(event: QEvent) -> bool:
    """Accept a ShortcutOverride for an editing key: it is then delivered to keyPressEvent as a key, not to the
    window as a shortcut. True when claimed."""
    if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
            and event.key() in EDITING_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
        event.accept()
        return True
    return False


class GridView(QTableView):
    def event(self, event: QEvent) -> bool:
        return claim_editing_key(event) or super().event(event)


class GridWidget(QTableWidget):
    """A QTableWidget (items of its own, as the conflict editor's priority map) whose editing keys are its own."""

    def event(self, event: QEvent) -> bool:
        return claim_editing_key(event) or super().event(event)
