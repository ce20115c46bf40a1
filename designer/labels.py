"""Labels and tooltips that show the user's strings as they are."""

from __future__ import annotations

import html

from PySide6.QtGui import Qt  # QtCore's Qt with QtGui's functions (mightBeRichText)
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    """A label whose text is never read as rich text. A model's names, SQL and constants, and the findings
    that quote them, are the user's strings: Qt's automatic format would render `<b>x</b>` in one as bold,
    or load the file an `<img src=...>` names."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    return label


def plain_tip(text: str) -> str:
    """`text` as a tooltip to show it as it is. Qt shows a tooltip as rich text when its first line looks
    like HTML (`Qt.mightBeRichText`): such a text is escaped, in a paragraph that keeps its line breaks.
    Any other text is returned unchanged (and shown plain)."""
    if "<" not in text or not Qt.mightBeRichText(text):
        return text
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
