"""One look for a finding's severity everywhere it shows (canvas marks, Problems panel, legend):
an error is red, a warning orange."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

ERROR_COLOUR = QColor("#d32f2f")
WARNING_COLOUR = QColor("#ef6c00")
SEVERITY_COLOURS = {"error": ERROR_COLOUR, "warning": WARNING_COLOUR}
FLASH_COLOUR = QColor(255, 170, 0, 90)
"""Translucent amber behind a finding that just appeared: reads on light and dark palettes."""


def dot_icon(colour: QColor, size: int = 12) -> QIcon:
    """A filled circle, as the canvas draws a finding's mark."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)
