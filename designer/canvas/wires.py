"""The canvas's wires: what joins tables. They draw what they are given and hold no model state.

A `LinkItem` joins a source column (or method node) to what it feeds; a
`MethodItem` is a small node for a method; a `MappingGroup` holds one
mapping's wires and nodes; a `ReverseLinkItem` joins the two tables of a
mapping pair and shows whether its key is reversible; a `DragLine` follows
the mouse while a link is drawn.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsObject,
    QGraphicsPathItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from designer.canvas import routing
from designer.canvas.items import BAD_COLOUR, BOX_LOD, OK_COLOUR, OVERVIEW_LOD, colour, palette
from designer.labels import plain_tip


class MethodItem(QGraphicsObject):
    """A method node (`concat`, `split[1]`...) of one target column's map."""

    def __init__(self, mapping: str, column: str, path: tuple[int, ...], label: str, tip: str) -> None:
        super().__init__()
        self.ref = (mapping, column, path)
        self.label = label
        width = max(60, _metrics().horizontalAdvance(label) + 18)
        self.SIZE = QRectF(-width / 2, -11, width, 22)
        self.setToolTip(plain_tip(tip))
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(2)

    def boundingRect(self) -> QRectF:
        return self.SIZE.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pal = palette()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Highlight) if self.isSelected()
                            else pal.color(QPalette.ColorRole.Mid), 1.5))
        painter.setBrush(pal.color(QPalette.ColorRole.ToolTipBase))
        painter.drawRoundedRect(self.SIZE, 10, 10)
        painter.setPen(pal.color(QPalette.ColorRole.ToolTipText))
        painter.drawText(self.SIZE, Qt.AlignmentFlag.AlignCenter, self.label)

    def port(self, side: str) -> QPointF:
        return self.mapToScene(QPointF(self.SIZE.right() if side == "out" else self.SIZE.left(), 0))


_METRICS: list[QFontMetrics] = []


def _metrics() -> QFontMetrics:
    """The application font's metrics, made once (making them costs milliseconds)."""
    if not _METRICS:
        _METRICS.append(QFontMetrics(QApplication.font()))
    return _METRICS[0]


class MappingGroup(QGraphicsItem):
    """Holds one mapping's wires and method nodes: one top-level item per mapping, not one per wire, so the
    scene's per-change walk over its top-level items stays short on a large model. Draws nothing itself."""

    def __init__(self, mapping: str) -> None:
        super().__init__()
        self.mapping = mapping
        self.bounds = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks go to its wires, or through to the canvas

    def hold(self, items: list[QGraphicsItem]) -> None:
        """Take `items` as children and span them (so the scene's index skips the group when it is off screen)."""
        for item in items:
            item.setParentItem(self)
        self.prepareGeometryChange()
        self.bounds = self.childrenBoundingRect()

    def boundingRect(self) -> QRectF:
        return self.bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never hit itself: only its wires and nodes are

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass


def _reach(start: QPointF, end: QPointF, leftward: bool = False) -> float:
    """How far a wire's curve reaches out of each end (`routing.reach`)."""
    return routing.reach(start, end, leftward)


def curve(start: QPointF, end: QPointF, leftward: bool = False) -> QPainterPath:
    """The plain wire from `start` to `end` (`routing.curve`)."""
    return routing.curve(start, end, leftward)


class LinkItem(QGraphicsItem):
    """A wire of a column map: from a source column or method node to a method node or target column.

    A plain curve, bowed a little up when it runs rightward and down when leftward (a mapping's wires and
    its reverse's never coincide), or, where that curve would cross a third table, a route round it
    (`route_links`). The curve is made only when it is first painted or hit (its bounds come from its
    control points, which hold it): opening a model of thousands of wires makes none of the off-screen ones.
    """

    def __init__(self, mapping: str, column: str, start: QPointF, end: QPointF, tip: str,
                 leftward: bool = False) -> None:
        super().__init__()
        self.ref = (mapping, column)
        self.start, self.end, self.leftward = QPointF(start), QPointF(end), leftward
        self.bulge = routing.BULGE if leftward else -routing.BULGE
        self.route: list[QPointF] | None = None  # the corners of a route round other tables, or None
        self.obstacles: dict[str, QRectF] = {}  # the tables it was routed round (or found clear of)
        self._path: QPainterPath | None = None
        self._bounds = self._spanned()
        self.setToolTip(plain_tip(tip))
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)

    def _spanned(self) -> QRectF:
        if self.route is not None:
            points = self.route
        else:
            points = [self.start, *routing.controls(self.start, self.end, self.leftward, self.bulge), self.end]
        xs, ys = [p.x() for p in points], [p.y() for p in points]
        return QRectF(min(xs) - 3, min(ys) - 3, max(xs) - min(xs) + 6, max(ys) - min(ys) + 6)

    def set_route(self, route: list[QPointF] | None) -> None:
        """Take a route round other tables (None: the plain curve); nothing changes if it is the same."""
        if route == self.route:
            return
        self.prepareGeometryChange()
        self.route, self._path = route, None
        self._bounds = self._spanned()
        self.update()

    def path(self) -> QPainterPath:
        if self._path is None:
            self._path = routing.rounded(self.route) if self.route is not None else \
                routing.curve(self.start, self.end, self.leftward, self.bulge)
        return self._path

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(6)  # easy to hit
        return stroker.createStroke(self.path())

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < BOX_LOD:
            return  # a wire under a pixel long: the overview shows the tables alone
        pen = QPen(colour(QPalette.ColorRole.Highlight if self.isSelected() else QPalette.ColorRole.Link))
        if lod < OVERVIEW_LOD:
            pen.setCosmetic(True)  # the overview: one hairline, no antialiasing
            pen.setWidthF(1.0)
            painter.setPen(pen)
            painter.drawPath(self.path())
            return
        pen.setWidthF(2.6 if self.isSelected() else 1.6)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())


def route_links(links: list[LinkItem], obstacles: dict[str, QRectF]) -> None:
    """Route one mapping's wires round `obstacles` (table key -> rectangle: the tables between its two, not
    those two): a wire whose curve would cross one goes round it, on its own lane among the others that do
    (ranked by their rows, so that they do not cross one another); the rest keep their curves."""
    memo: dict[str, object] = {}  # what the wires share: their obstacles, grown, and the way the last took
    crossing = sorted((link for link in links if routing.curve_crosses(link.start, link.end, link.leftward,
                                                                          obstacles.values(), memo)),
                      key=lambda link: (link.start.y(), link.end.y()))
    routed = {id(link): routing.route(link.start, link.end, obstacles.values(), link.leftward,
                                      (rank, len(crossing)), crossing=True, memo=memo)
              for rank, link in enumerate(crossing)}
    for link in links:
        link.obstacles = obstacles
        link.set_route(routed.get(id(link)))


class ReverseLinkItem(QGraphicsPathItem):
    """The link of a bidirectional pair, green when the key is reversible, red (with why) when not."""

    def __init__(self, mapping: str, start: QPointF, end: QPointF, ok: bool, tip: str) -> None:
        path = QPainterPath(start)
        mid = (start + end) / 2
        path.quadTo(QPointF(mid.x(), mid.y() - 60), end)
        super().__init__(path)
        self.ref = mapping
        self.ok = ok
        self.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0.5)
        self.set_state(ok, tip)

    def set_state(self, ok: bool, tip: str) -> None:
        """Green or red, and why: changed in place when the findings change."""
        self.ok = ok
        self.setToolTip(plain_tip(tip))
        self.setPen(QPen(OK_COLOUR if ok else BAD_COLOUR, 2, Qt.PenStyle.DashLine))


class DragLine(QGraphicsPathItem):
    """The wire that follows the mouse while a new link is drawn, from the edge of its row that faces the
    pointer (`left` once the pointer is past the row's left edge, else `right`), as the link will be drawn."""

    def __init__(self, left: QPointF, right: QPointF) -> None:
        super().__init__()
        self.left, self.right = QPointF(left), QPointF(right)
        self.setPen(QPen(colour(QPalette.ColorRole.Highlight), 2, Qt.PenStyle.DashLine))
        self.setZValue(3)

    def follow(self, end: QPointF) -> None:
        leftward = end.x() < self.left.x()
        self.setPath(curve(self.left if leftward else self.right, end, leftward))
