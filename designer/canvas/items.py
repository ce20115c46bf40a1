"""Canvas items. They draw what they are given and report gestures; they hold no model state.

A `TableItem` is a node with one row per column (name, type, NOT NULL, key
marks); `LinkItem` joins a source column (or method node) to what it feeds;
`MethodItem` is a small node for a method; `ReverseLinkItem` joins the two
tables of a mapping pair and shows whether its key is reversible.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
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
    QGraphicsSceneHoverEvent,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from designer.canvas import routing
from designer.canvas.overview import font_metrics, overview_label
from designer.labels import plain_tip
from designer.severity import SEVERITY_COLOURS
from engine.model.io import one_line

WIDTH, HEADER, ROW = 270.0, 28.0, 20.0
OVERVIEW_LOD = 0.45  # below this zoom a table is a box with its name: its rows would be unreadable
BOX_LOD = 0.08  # below this, a plain box (the name would be a few pixels)
OK_COLOUR, BAD_COLOUR = QColor("#2e7d32"), QColor("#d32f2f")
PK_COLOUR, DK_COLOUR = QColor("#8d6e00"), QColor("#1565c0")


def palette() -> QPalette:
    return QApplication.palette()


def colour(role: QPalette.ColorRole) -> QColor:
    """A copy of a palette colour (never a reference into a temporary palette)."""
    pal = QApplication.palette()
    return QColor(pal.color(role).rgba())


@dataclass
class ColumnRow:
    """What one row shows."""

    name: str
    type: str
    not_null: bool
    primary_key: bool
    dkey: bool


@dataclass
class TableLook:
    """What a table node shows: a snapshot, replaced on every change."""

    key: str
    dbms: str
    rows: list[ColumnRow]
    marks: dict[str | None, tuple[str, str]] = field(default_factory=dict)  # row (None: header) -> (severity, tip)

    def row_index(self, column: str) -> int | None:
        """The row of `column` (looked up in a dict made once: links ask for it for every wire)."""
        index = self.__dict__.get("_rows_by_name")
        if index is None:
            index = self.__dict__["_rows_by_name"] = {r.name: i for i, r in enumerate(self.rows)}
        return index.get(column)


@dataclass(frozen=True)
class Header:
    """Where a table node's header puts its parts: the name (elided with "…" when it is too long for its room),
    the findings dot's centre and the DBMS label. The name never runs under the dot or the label."""

    name: str
    name_rect: QRectF
    dot: QPointF
    dbms_rect: QRectF


def header_fonts(base: QFont) -> tuple[QFont, QFont]:
    """The header's fonts from the canvas's: the name in bold, the DBMS smaller (legible at 100%)."""
    bold = QFont(base)
    bold.setBold(True)
    small = QFont(base)
    small.setBold(False)
    small.setPointSizeF(max(8.0, base.pointSizeF() * 0.9))
    return bold, small


HEADER_PAD, DOT_RADIUS, DOT_GAP = 8.0, 5.0, 6.0
DOT_X = WIDTH - 70  # where the findings dot stands, unless a long DBMS label needs the room


class TableItem(QGraphicsObject):
    """A table: header `server.TABLE (dbms)`, then a row per column. Moved by its header."""

    def __init__(self, look: TableLook) -> None:
        super().__init__()
        self.look = look
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        # painted once into a device pixmap, then blitted: panning and repaints of other items cost nothing here
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.hover_row: str | None = None
        self.looks_set = 0  # how many times the look was replaced (tests count the items an edit touches)
        self._header: tuple[tuple[str, str, str, bool], Header] | None = None  # the last header laid out, by input

    @property
    def key(self) -> str:
        return self.look.key

    def set_look(self, look: TableLook) -> None:
        if len(look.rows) != len(self.look.rows):
            self.prepareGeometryChange()
        self.look = look
        self.looks_set += 1
        self._tip_follows()
        self.update()

    def set_marks(self, marks: dict[str | None, tuple[str, str]]) -> None:
        if marks != self.look.marks:
            self.look.marks = marks
            self.looks_set += 1
            self._tip_follows()
            self.update()

    def header(self, base: QFont | None = None) -> Header:
        """The header's layout in the canvas's font `base` (the application's when None): the DBMS label at
        the right, the findings dot left of it, and the name in the room left of the dot (when the header has
        a finding) or of the label, elided with "…" when it does not fit (the tooltip shows it whole)."""
        base = base or QApplication.font()
        marked = None in self.look.marks
        wanted = (base.toString(), self.look.key, self.look.dbms, marked)
        if self._header is not None and self._header[0] == wanted:
            return self._header[1]
        bold, small = header_fonts(base)
        dbms_width = font_metrics(small).horizontalAdvance(self.look.dbms)
        dbms_rect = QRectF(WIDTH - HEADER_PAD - dbms_width, 0, dbms_width, HEADER)
        dot = QPointF(min(DOT_X, dbms_rect.left() - DOT_GAP - DOT_RADIUS), HEADER / 2)
        right = dot.x() - DOT_RADIUS - DOT_GAP if marked else dbms_rect.left() - DOT_GAP
        name_rect = QRectF(HEADER_PAD, 0, max(0.0, right - HEADER_PAD), HEADER)
        name = font_metrics(bold).elidedText(one_line(self.look.key), Qt.TextElideMode.ElideRight,
                                              name_rect.width())
        header = Header(name, name_rect, dot, dbms_rect)
        self._header = (wanted, header)
        return header

    def tip_at(self, row: str | None) -> str:
        """The tooltip over a row (its findings), or over the header (`row` None): the table's whole name,
        which the header may show elided, then the header's findings. Plain text, whatever the names hold."""
        mark = self.look.marks.get(row)
        if row is None:
            name = f"{one_line(self.look.key)} ({one_line(self.look.dbms)})"
            return plain_tip(f"{name}\n{mark[1]}" if mark else name)
        return plain_tip(mark[1]) if mark else ""

    def _tip_follows(self) -> None:
        """A new look or new findings while the pointer rests on the item: its tooltip says them."""
        if self.isUnderMouse():
            self.setToolTip(self.tip_at(self.hover_row))

    def boundingRect(self) -> QRectF:
        return QRectF(-2, -2, WIDTH + 4, HEADER + ROW * len(self.look.rows) + 4)

    def row_at(self, local: QPointF) -> str | None:
        """The column under a point in item coordinates (None over the header)."""
        index = int((local.y() - HEADER) // ROW)
        if local.y() < HEADER or not 0 <= index < len(self.look.rows):
            return None
        return self.look.rows[index].name

    def row_rect(self, column: str) -> QRectF:
        index = self.look.row_index(column)
        if index is None:
            raise KeyError(column)
        return QRectF(0, HEADER + index * ROW, WIDTH, ROW)

    def has_row(self, column: str) -> bool:
        return self.look.row_index(column) is not None

    def port(self, column: str, side: str) -> QPointF:
        """Scene point where links attach: `out` on the right edge, `in` on the left. (A table is a top-level
        item moved, never scaled or turned: its scene point is its position plus the row's place, computed
        here for the thousands of wires a large model opens with.)"""
        at = self.pos()
        index = self.look.row_index(column)
        if index is None:
            return QPointF(at.x() + WIDTH / 2, at.y() + HEADER / 2)
        return QPointF(at.x() + (WIDTH if side == "out" else 0), at.y() + HEADER + index * ROW + ROW / 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < OVERVIEW_LOD:
            self._paint_overview(painter, lod)
            return
        pal = palette()
        body = QRectF(0, 0, WIDTH, HEADER + ROW * len(self.look.rows))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = pal.color(QPalette.ColorRole.Highlight) if self.isSelected() else pal.color(QPalette.ColorRole.Mid)
        painter.setPen(QPen(border, 2 if self.isSelected() else 1))
        painter.setBrush(pal.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(body, 5, 5)
        header = QRectF(0, 0, WIDTH, HEADER)
        painter.setBrush(pal.color(QPalette.ColorRole.Button))
        painter.drawRoundedRect(header, 5, 5)
        base = QFont(painter.font())
        parts = self.header(base)
        bold, small = header_fonts(base)
        painter.setFont(bold)
        painter.setPen(pal.color(QPalette.ColorRole.ButtonText))
        painter.drawText(parts.name_rect, Qt.AlignmentFlag.AlignVCenter, parts.name)
        painter.setFont(small)
        painter.drawText(parts.dbms_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                         self.look.dbms)
        self._paint_mark(painter, None, parts.dot)
        for i, row in enumerate(self.look.rows):
            rect = QRectF(0, HEADER + i * ROW, WIDTH, ROW)
            if row.name == self.hover_row:
                painter.fillRect(rect.adjusted(1, 0, -1, 0), pal.color(QPalette.ColorRole.AlternateBase))
            self._paint_badges(painter, rect, row)
            painter.setPen(pal.color(QPalette.ColorRole.Text))
            painter.drawText(rect.adjusted(44, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, one_line(row.name))
            painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(rect.adjusted(0, 0, -8, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                             row.type + (" NN" if row.not_null else ""))
            self._paint_mark(painter, row.name, QPointF(WIDTH + 8, rect.center().y()))

    def _paint_overview(self, painter: QPainter, lod: float) -> None:
        """Zoomed out: a box in the header's colour with the table's name, large enough to read."""
        pal = palette()
        body = QRectF(0, 0, WIDTH, HEADER + ROW * len(self.look.rows))
        selected = self.isSelected()
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Highlight), 3 / lod) if selected
                       else QPen(pal.color(QPalette.ColorRole.Mid), 0))
        painter.setBrush(pal.color(QPalette.ColorRole.Button))
        painter.drawRect(body)
        if self.look.marks:
            severity = "error" if any(m[0] == "error" for m in self.look.marks.values()) else "warning"
            painter.fillRect(QRectF(0, 0, 10 / lod, body.height()), SEVERITY_COLOURS[severity])
        if lod < BOX_LOD:
            return
        room = body.adjusted((14 if self.look.marks else 5) / lod, 0, -5 / lod, 0)  # clear of the marks' bar
        font, text = overview_label(one_line(self.look.key), painter.font(), lod, room)
        painter.setFont(font)
        painter.setPen(pal.color(QPalette.ColorRole.ButtonText))
        painter.drawText(room, Qt.AlignmentFlag.AlignVCenter, text)

    def _paint_badges(self, painter: QPainter, rect: QRectF, row: ColumnRow) -> None:
        """`PK` for a primary-key column, `DK` for a distribution-key column."""
        font = QFont(painter.font())
        font.setPointSizeF(max(5.0, font.pointSizeF() * 0.8))
        font.setBold(True)
        painter.save()
        painter.setFont(font)
        for i, (on, text, colour) in enumerate(((row.primary_key, "PK", PK_COLOUR), (row.dkey, "DK", DK_COLOUR))):
            if on:
                badge = QRectF(rect.left() + 4 + i * 19, rect.top() + 3, 17, rect.height() - 6)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawRoundedRect(badge, 3, 3)
                painter.setPen(QColor("white"))
                painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def _paint_mark(self, painter: QPainter, row: str | None, at: QPointF) -> None:
        mark = self.look.marks.get(row)
        if mark:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(SEVERITY_COLOURS[mark[0]])
            painter.drawEllipse(at, DOT_RADIUS, DOT_RADIUS)

    def _zoomed_out(self, event: QGraphicsSceneHoverEvent) -> bool:
        """Whether the view the pointer is in draws this table as an overview box (no rows to point at)."""
        viewport = event.widget()
        view = viewport.parentWidget() if viewport is not None else None
        if not isinstance(view, QGraphicsView):
            return False
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(self.deviceTransform(view.viewportTransform()))
        return lod < OVERVIEW_LOD

    def _hover_tip(self, event: QGraphicsSceneHoverEvent) -> str:
        """The row under the pointer becomes `hover_row`; the tooltip says it. On an overview box: the table's
        whole name (the box may show it elided) and all its findings."""
        if not self._zoomed_out(event):
            self.hover_row = self.row_at(event.pos())
            return self.tip_at(self.hover_row)
        self.hover_row = None
        rows = [mark[1] for row, mark in self.look.marks.items() if row is not None]
        return "\n".join([self.tip_at(None), *(plain_tip(tip) for tip in rows)])

    def hoverEnterEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.setToolTip(self._hover_tip(event))  # the header's too: the pointer may come in over it
        self.update()

    def hoverMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        row = self.hover_row
        tip = self._hover_tip(event)
        if row != self.hover_row or tip != self.toolTip():
            self.setToolTip(tip)
            self.update()

    def hoverLeaveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.hover_row = None
        self.update()

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object) -> object:
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and self.scene() is not None:
            # only this table's links follow (MappingScene.table_moved); nothing else is redrawn
            self.scene().table_moved(self)  # type: ignore[attr-defined]
        return super().itemChange(change, value)


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
