"""Labels that show the user's strings as they are."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    """A label whose text is never read as rich text. A model's names, SQL and constants, and the findings
    that quote them, are the user's strings: Qt's automatic format would render `<b>x</b>` in one as bold,
    or load the file an `<img src=...>` names."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    return label
