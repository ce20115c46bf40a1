"""Canvas items. They draw what they are given and report gestures; they hold no model state.

A `TableItem` is a node with one row per column (name, type, NOT NULL, key
marks); the wires between them are `wires.py`'s. The palette and the sizes
here are the canvas's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsObject,
    QGraphicsSceneHoverEvent,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

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
