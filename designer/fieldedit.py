"""A form's one-line field that commits on Enter or focus loss, and whose Escape gives back the value shown.

A plain QLineEdit ignores Escape, so a value typed and then abandoned with Escape was still applied when the
field lost the focus. `FieldEdit` knows the value the form shows (`shown`): Escape puts it back (selected, as a
cell editor does), and a field left as shown commits nothing. `focus_spot` and `refocus` keep the keyboard where
it was when a form is built again (a rename commits on the Tab that left the field).
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget


class FieldEdit(QLineEdit):
    """`shown`: the value the form shows; the owner sets it each time it shows one."""

    shown = ""

    def changed(self) -> bool:
        """Whether the text is an edit of the value shown (what a commit on Enter or focus loss applies)."""
        return self.text() != self.shown

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and event.modifiers() == Qt.KeyboardModifier.NoModifier \
                and self.changed() and not self.isReadOnly():
            self.setText(self.shown)  # textChanged still fires: a problem said for the typed text goes
            self.selectAll()
            event.accept()
            return
        super().keyPressEvent(event)


class FocusSpot(NamedTuple):
    """Where the keyboard was in a form: the row's label, and a line's cursor and selection."""

    label: str
    cursor: int = 0
    selection: tuple[int, int] = (-1, 0)


def focus_spot(rows: list[tuple[str, QWidget]], extra: dict[str, QWidget | None]) -> FocusSpot | None:
    """The row of `rows` (or of `extra`, whole widgets such as a grid) that holds the keyboard focus, or None."""
    focus = QApplication.focusWidget()
    if focus is None:
        return None
    for label, widget in [*rows, *extra.items()]:
        if widget is not None and (widget is focus or widget.isAncestorOf(focus)):
            if isinstance(focus, QLineEdit):
                return FocusSpot(label, focus.cursorPosition(), (focus.selectionStart(), len(focus.selectedText())))
            return FocusSpot(label)
    return None


def refocus(spot: FocusSpot | None, widgets: dict[str, QWidget | None]) -> None:
    """Give the focus back to the row `spot` names in a form built again (the old one's widgets are gone), with
    its cursor and selection, so the user's Tab or Enter goes on from where it was."""
    widget = widgets.get(spot.label) if spot is not None else None
    if spot is None or widget is None:
        return
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    if isinstance(widget, QLineEdit):
        widget.setCursorPosition(spot.cursor)
        if spot.selection[0] >= 0:
            widget.setSelection(*spot.selection)
