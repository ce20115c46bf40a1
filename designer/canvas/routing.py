"""Where a wire runs: the plain curve between two ports or, when that curve would cross a third table, an
orthogonal route around it with rounded corners. Pure geometry (Qt's value types only): tested alone.

A route leaves its source port horizontally, runs vertically in a free channel between table columns,
and enters its target port horizontally; when no single channel is clear (a table of the column between
stands on the wire's rows), it crosses that column through a free gap between its tables, or above or
below them all. Routes are worked out in a frame where data flows rightward: a leftward wire (a reverse
mapping, `leftward`) is mirrored in, routed, and mirrored back.

The wires of one mapping that take a route are spread over parallel lanes (`lane`: the wire's rank by
source row, and how many share the route), ordered so that they do not cross one another; a mapping's
wires and its reverse's run a little apart (`SIDE`, `BULGE`), so that neither hides the other.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import cast

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath

CLEAR = 8.0  # the least room between a routed wire and a table
LANE = 4.0  # between the parallel legs of one mapping's routed wires, where the room allows
SIDE = 1.0  # a routed wire's legs shift by this: up and left when rightward, down and right when leftward
BULGE = 4.0  # a curve's control points shift by this, up when rightward, down when leftward
RADIUS = 8.0  # a route's corners
AWAY = 0.35  # where in a channel a route's vertical legs run: nearer the source (method nodes stand near targets)
REGION = 400.0  # how far above and below its two tables a wire may go round a third
SAMPLES = 16  # points along a curve when it is tested against the tables


def reach(start: QPointF, end: QPointF, leftward: bool = False) -> float:
    """How far a wire's curve reaches out of each end, signed: rightward out of a right edge, leftward out of
    a left edge (a mapping drawn right to left)."""
    sign = -1.0 if leftward else 1.0
    gap = (end.x() - start.x()) * sign
    return sign * (max(40.0, gap / 2) if gap > 0 else 80.0)  # a backward link loops out a little


def controls(start: QPointF, end: QPointF, leftward: bool = False, bulge: float = 0.0) -> tuple[QPointF, QPointF]:
    """The two control points of the curve from `start` to `end`, shifted down by `bulge` (up when negative)."""
    dx = reach(start, end, leftward)
    return QPointF(start.x() + dx, start.y() + bulge), QPointF(end.x() - dx, end.y() + bulge)


def curve(start: QPointF, end: QPointF, leftward: bool = False, bulge: float = 0.0) -> QPainterPath:
    """The plain wire: a cubic that leaves and enters its ports horizontally."""
    path = QPainterPath(start)
    c1, c2 = controls(start, end, leftward, bulge)
    path.cubicTo(c1, c2, end)
    return path


def curve_points(start: QPointF, end: QPointF, leftward: bool = False, bulge: float = 0.0,
                 samples: int = SAMPLES) -> list[QPointF]:
    """Points along `curve(...)`, from `start` to `end`."""
    c1, c2 = controls(start, end, leftward, bulge)
    out = []
    for i in range(samples + 1):
        t = i / samples
        a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t * t, t ** 3
        out.append(QPointF(a * start.x() + b * c1.x() + c * c2.x() + d * end.x(),
                           a * start.y() + b * c1.y() + c * c2.y() + d * end.y()))
    return out


Box = tuple[float, float, float, float]  # left, top, right, bottom


def box_of(rect: QRectF, grow: float = 0.0) -> Box:
    """`rect`'s edges, moved out by `grow`: its `getCoords()`, typed."""
    return rect.left() - grow, rect.top() - grow, rect.right() + grow, rect.bottom() + grow


def _hits(ax: float, ay: float, bx: float, by: float, box: Box) -> bool:
    """Whether the segment from (ax, ay) to (bx, by) passes through the inside of `box` (touching its edge is
    not): Liang-Barsky clipping, in plain floats (this runs for every candidate leg of every routed wire)."""
    left, top, right, bottom = box
    if max(ax, bx) <= left or min(ax, bx) >= right or max(ay, by) <= top or min(ay, by) >= bottom:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    for p, q in ((-dx, ax - left), (dx, right - ax), (-dy, ay - top), (dy, bottom - ay)):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


def segment_hits(a: QPointF, b: QPointF, rect: QRectF) -> bool:
    """Whether the segment from `a` to `b` passes through the inside of `rect` (touching its edge is not)."""
    return _hits(a.x(), a.y(), b.x(), b.y(), box_of(rect))


def _crosses(points: Sequence[tuple[float, float]], boxes: Sequence[Box]) -> bool:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
    boxes = [b for b in boxes if b[0] < right and b[2] > left and b[1] < bottom and b[3] > top]
    return bool(boxes) and any(_hits(a[0], a[1], b[0], b[1], box)
                               for a, b in itertools.pairwise(points) for box in boxes)


def crosses(points: Sequence[QPointF], rects: Iterable[QRectF]) -> bool:
    """Whether the polyline through `points` passes through the inside of any of `rects`."""
    return _crosses([(p.x(), p.y()) for p in points], [box_of(r) for r in rects])


def _grown(obstacles: Iterable[QRectF], memo: dict[str, object] | None) -> list[Box]:
    """`obstacles` grown by `CLEAR`, made once per `memo` (one mapping's wires share their obstacles)."""
    if memo is not None and "boxes" in memo:
        return cast(list[Box], memo["boxes"])
    boxes = [box_of(r, CLEAR) for r in obstacles]
    if memo is not None:
        memo["boxes"] = boxes
    return boxes


def curve_crosses(start: QPointF, end: QPointF, leftward: bool, obstacles: Iterable[QRectF],
                  memo: dict[str, object] | None = None) -> bool:
    """Whether the plain curve would pass through (or within `CLEAR` of) one of `obstacles`. `memo`: as
    `route`'s."""
    c1, c2 = controls(start, end, leftward)
    xs, ys = (start.x(), c1.x(), c2.x(), end.x()), (start.y(), end.y())  # the curve lies within these
    hull = (min(xs) - CLEAR, min(ys) - CLEAR, max(xs) + CLEAR, max(ys) + CLEAR)
    boxes = [b for b in _grown(obstacles, memo)
             if b[0] < hull[2] and b[2] > hull[0] and b[1] < hull[3] and b[3] > hull[1]]
    return bool(boxes) and _crosses([(p.x(), p.y()) for p in curve_points(start, end, leftward)], boxes)


def region(source: QRectF, target: QRectF) -> QRectF:
    """Where the wires between two tables may run: between them, and `REGION` above and below."""
    return source.united(target).adjusted(0, -REGION, 0, REGION)


def _gaps(intervals: list[tuple[float, float]], lo: float, hi: float) -> list[tuple[float, float]]:
    """The free stretches of [lo, hi] that none of `intervals` covers."""
    out, at = [], lo
    for a, b in sorted(intervals):
        if a > at:
            out.append((at, min(a, hi)))
        at = max(at, b)
        if at >= hi:
            break
    if at < hi:
        out.append((at, hi))
    return [(a, b) for a, b in out if b > a]


def _spacing(room: float, count: int) -> float:
    return min(LANE, room / (count + 1))


def route(start: QPointF, end: QPointF, obstacles: Iterable[QRectF], leftward: bool = False,
          lane: tuple[int, int] = (0, 1), crossing: bool = False,
          memo: dict[str, object] | None = None) -> list[QPointF] | None:
    """The corners of an orthogonal route from `start` to `end` round `obstacles`, or None where the plain
    curve is clear of them (or no route is: a backward wire, or tables that leave no gap). `crossing`: the
    caller found already that the curve crosses one (`curve_crosses`). `memo`: shared by the wires of one
    mapping, it holds the way the last one took, which the next tries first (they mostly take the same)."""
    memo = {} if memo is None else memo
    if not crossing and not curve_crosses(start, end, leftward, obstacles, memo):
        return None
    sign = -1.0 if leftward else 1.0  # a leftward wire is mirrored in, routed rightward, and mirrored back
    boxes = [(-b[2], b[1], -b[0], b[3]) if leftward else b for b in _grown(obstacles, memo)]
    found = _route((sign * start.x(), start.y()), (sign * end.x(), end.y()), boxes, lane,
                   SIDE if leftward else -SIDE, memo)
    return None if found is None else [QPointF(sign * x, y) for x, y in found]


def _route(start: tuple[float, float], end: tuple[float, float], boxes: list[Box], lane: tuple[int, int],
           side: float, memo: dict[str, object]) -> list[tuple[float, float]] | None:
    """`route` in the rightward frame, round `boxes` (the tables grown by `CLEAR`). The vertical legs shift
    left by `SIDE` here, so a mirrored (leftward) wire's shift right in the scene; `side` shifts the
    horizontal legs down (up when negative). The shortest clear candidate wins."""
    (lo, sy), (hi, ey) = start, end
    if hi - lo < 4 * CLEAR:
        return None
    between = [b for b in boxes if b[2] > lo and b[0] < hi]
    if any(b[0] < x < b[2] and b[1] < y < b[3] for b in between for x, y in (start, end)):
        return None  # an end stands in (or by) a table: no route is clear of it
    channels = _gaps([(b[0], b[2]) for b in between], lo, hi)
    rank, count = lane
    k = rank - (count - 1) // 2
    candidates: list[tuple[float, list[tuple[float, float]], object]] = []
    for a, b in channels:  # one channel: three legs
        x = (a + b) / 2 + (-k if ey > sy else k) * _spacing(b - a, count) - SIDE
        candidates.append((abs(ey - sy), [start, (x, sy + side), (x, ey + side), end], (a, b)))
    for (a1, b1), (a2, b2) in [(channels[0], channels[-1])] if len(channels) > 1 else []:  # five legs:
        # out by the first channel, across every column between through a gap they share, in by the last
        x1, x2 = a1 + (b1 - a1) * AWAY, a2 + (b2 - a2) * AWAY  # away from the nodes that stand by targets
        spanned = [b for b in boxes if b[2] > x1 and b[0] < x2]
        top = min((b[1] for b in spanned), default=min(sy, ey)) - LANE * count / 2 - CLEAR
        bottom = max((b[3] for b in spanned), default=max(sy, ey)) + LANE * count / 2 + CLEAR
        for c, d in _gaps([(b[1], b[3]) for b in spanned], top, bottom):
            y = (c + d) / 2 + k * _spacing(d - c, count) + side
            up = y < sy
            px1 = x1 + (k if up else -k) * _spacing(b1 - a1, count) - SIDE
            px2 = x2 + (-k if up else k) * _spacing(b2 - a2, count) - SIDE
            candidates.append((abs(y - sy) + abs(ey - y) + 1.0,
                               [start, (px1, sy + side), (px1, y), (px2, y), (px2, ey + side), end], (a1, b2, c, d)))
    last = memo.get("way")
    candidates.sort(key=lambda c: (c[2] != last, c[0]))
    found = next((c for c in candidates if not _crosses(c[1], between)), None)
    if found is None:
        return None
    memo["way"] = found[2]
    return found[1]


def rounded(points: Sequence[QPointF], radius: float = RADIUS) -> QPainterPath:
    """The polyline through `points` with its corners rounded (each by at most half its shorter leg)."""
    path = QPainterPath(points[0])
    for before, corner, after in zip(points, points[1:], points[2:], strict=False):
        back, ahead = _toward(corner, before), _toward(corner, after)
        r = min(radius, _length(corner, before) / 2, _length(corner, after) / 2)
        path.lineTo(corner + back * r)
        path.quadTo(corner, corner + ahead * r)
    path.lineTo(points[-1])
    return path


def _length(a: QPointF, b: QPointF) -> float:
    return float(((b.x() - a.x()) ** 2 + (b.y() - a.y()) ** 2) ** 0.5)


def _toward(a: QPointF, b: QPointF) -> QPointF:
    """The unit vector from `a` to `b` (zero where they coincide)."""
    n = _length(a, b)
    return QPointF(0, 0) if n == 0 else (b - a) / n


class RectIndex:
    """Tables' rectangles in square buckets of `CELL` scene pixels, so that the rectangles meeting a wire's
    region are found among a few neighbours, not by a scan of every table (800 wires over 1,200 tables:
    a million comparisons)."""

    CELL = 512.0

    def __init__(self, rects: dict[str, Box]) -> None:
        self.rects = rects
        self._rank = {key: i for i, key in enumerate(rects)}
        self._cells: dict[tuple[int, int], list[str]] = {}
        for key, box in rects.items():
            for cell in self._cells_of(box):
                self._cells.setdefault(cell, []).append(key)

    def _cells_of(self, box: Box) -> Iterator[tuple[int, int]]:
        x1, y1, x2, y2 = (int(v // self.CELL) for v in box)
        return ((i, j) for i in range(x1, x2 + 1) for j in range(y1, y2 + 1))

    def meeting(self, box: Box, limit: int) -> list[str] | None:
        """The keys of the rectangles that overlap `box` (open edges), in the order they were given; None as
        soon as there are more than `limit`."""
        x1, y1, x2, y2 = box
        seen: set[str] = set()
        for cell in self._cells_of(box):
            for key in self._cells.get(cell, ()):
                a1, b1, a2, b2 = self.rects[key]
                if key not in seen and a1 < x2 and x1 < a2 and b1 < y2 and y1 < b2:
                    seen.add(key)
                    if len(seen) > limit:
                        return None
        return sorted(seen, key=self._rank.__getitem__)
