"""How a zoomed-out table box writes its name: whole whenever it can be read, never cut at the box's edge.

A name too wide for the box at the overview's usual size is written smaller (down to `LEAST_PIXELS` on
screen), then on two lines broken after the server's dot (`chinook.` / `InvoiceLine`); only a name that
fits in none of these is elided with "…" (hovering the box shows it whole).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

WANTED_PIXELS, LEAST_PIXELS = 13.0, 7.0  # the name's font size on screen: as drawn when it fits, the least legible

_FONT_METRICS: dict[str, QFontMetricsF] = {}


def font_metrics(font: QFont) -> QFontMetricsF:
    """`QFontMetricsF(font)`, made once per font (making them costs milliseconds)."""
    key = font.toString()
    found = _FONT_METRICS.get(key)
    if found is None:
        found = _FONT_METRICS[key] = QFontMetricsF(font)
    return found


def _sized(base: QFont, pixels: float) -> QFont:
    font = QFont(base)
    font.setBold(True)
    font.setPixelSize(max(1, int(pixels)))
    return font


def _fits(font: QFont, lines: list[str], room: QRectF) -> bool:
    metrics = font_metrics(font)
    return metrics.height() * len(lines) <= room.height() and \
        all(metrics.horizontalAdvance(line) <= room.width() for line in lines)


def overview_label(name: str, base: QFont, lod: float, room: QRectF) -> tuple[QFont, str]:
    """The font (in scene pixels at zoom `lod`, bold, from `base`) and text (lines joined by a newline) that
    write `name` in `room`: the largest size up to `WANTED_PIXELS` on screen, and also no taller than
    90% of the room's height, at which it fits on one line, else on two; else elided at `LEAST_PIXELS`."""
    choices = [[name]]
    server, dot, rest = name.partition(".")
    if dot and rest:
        choices.append([server + dot, rest])
    for lines in choices:
        pixels = min(WANTED_PIXELS / lod, room.height() * 0.9 / len(lines), 90.0)
        while pixels * lod >= LEAST_PIXELS:
            font = _sized(base, pixels)
            if _fits(font, lines, room):
                return font, "\n".join(lines)
            pixels = min(pixels * 0.92, pixels - 1)
    font = _sized(base, LEAST_PIXELS / lod)
    return font, font_metrics(font).elidedText(name, Qt.TextElideMode.ElideRight, room.width())
