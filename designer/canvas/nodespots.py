"""Where a mapping's method nodes stand on the canvas: the spot on a node's row between its two tables
(`method_x`, `room_back`) and the spots already taken (`NodeSpots`), so that no node hides another."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF

from designer.canvas.items import WIDTH

COLUMN_GAP = 520.0  # 250 px between server columns: a method node each way on a row


def method_x(edge: float, end: float, width: float, depth: int) -> float:
    """Where a method node's centre stands on its row, between its source's edge `edge` and its target end
    `end`: a quarter of the way back from the target (a reverse mapping's nodes on the same rows stay
    clear of these), at most 90 px back however far apart the two tables are (a mapping that skips a
    server column keeps its nodes out of that column), never closer than its own half width and 10 px (a
    long label never reaches under the target); a nested input's node stands further back."""
    span = end - edge
    back = max(min(abs(span) * 0.26, 90.0), width / 2 + 10) + depth * min(abs(span) * 0.18, 70.0)
    return end - math.copysign(back, span)


def room_back(edge: float, end: float, width: float) -> float:
    """How far back from its target end `end` a node's centre may stand and keep clear of the tables: within
    the gap between the target and its source's edge `edge`, and within one gap of the automatic layout (a
    mapping that skips a server column keeps its nodes out of that column)."""
    return min(abs(end - edge), COLUMN_GAP - WIDTH) - width / 2 - 10


NODE_MARGIN = 4.0
"""The least room between two method nodes."""


class NodeSpots:
    """Where the method nodes stand, by mapping. A node stands where it wants to (`method_x`) if that is
    clear of every node already placed, else at the nearest clear spot further back along its row, or just
    below or above the row. So two mappings into one column (a constant from each of two sites) and a
    nested node wider than its step back never hide one another.

    Placing a node reads the others and never moves them: a redrawn mapping finds its own spots and the
    rest of the canvas stays as it is. A grid of cells keeps each look-up to the few nodes near the spot."""

    CELL = 128.0

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[tuple[str, QRectF]]] = {}
        self._of: dict[str, list[tuple[tuple[int, int], QRectF]]] = {}

    def take(self, mapping: str, wanted: QPointF, size: QRectF, back: float, room: float) -> QPointF:
        """The spot for a node of `size` (centred on its position) that wants to stand at `wanted`; a step
        back moves it by `back`'s sign, at most `room` further; the spot is held for `mapping` until
        `forget`. Where nothing near is clear, the node stands where it wanted."""
        step = size.width() + NODE_MARGIN
        beside = size.height() + NODE_MARGIN
        spots = (QPointF(wanted.x() + math.copysign(k * step, back), wanted.y() + dy)
                 for dy in (0.0, beside, -beside) for k in range(4) if k * step <= room)
        spot = next((c for c in spots if self._clear(size.translated(c))), wanted)
        self._hold(mapping, size.translated(spot))
        return spot

    def forget(self, mapping: str) -> None:
        """Free the spots of `mapping`'s nodes (it is redrawn or gone)."""
        for cell, rect in self._of.pop(mapping, ()):
            held = self._cells[cell]
            held.remove((mapping, rect))
            if not held:
                del self._cells[cell]

    def _clear(self, rect: QRectF) -> bool:
        wide = rect.adjusted(-NODE_MARGIN, -NODE_MARGIN, NODE_MARGIN, NODE_MARGIN)
        return not any(wide.intersects(other) for cell in self._cells_of(rect)
                       for _, other in self._cells.get(cell, ()))

    def _hold(self, mapping: str, rect: QRectF) -> None:
        held = self._of.setdefault(mapping, [])
        for cell in self._cells_of(rect):
            self._cells.setdefault(cell, []).append((mapping, rect))
            held.append((cell, rect))

    def _cells_of(self, rect: QRectF) -> list[tuple[int, int]]:
        grown = rect.adjusted(-NODE_MARGIN, -NODE_MARGIN, NODE_MARGIN, NODE_MARGIN)
        return [(x, y) for x in range(math.floor(grown.left() / self.CELL), math.floor(grown.right() / self.CELL) + 1)
                for y in range(math.floor(grown.top() / self.CELL), math.floor(grown.bottom() / self.CELL) + 1)]
