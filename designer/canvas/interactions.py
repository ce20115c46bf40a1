"""Mouse tools as small objects (orange-canvas `interactions.py`): drawing a new link."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QPointF, SignalInstance
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsItem

from designer.canvas.items import TableItem
from designer.canvas.wires import DragLine, MethodItem


class LinkScene(Protocol):
    """What a drag needs of the canvas's scene (`scene.MappingScene`): its items, its tables, and the signals
    a release sends. A protocol, so this module does not import the scene that imports it."""

    @property
    def tables(self) -> dict[str, TableItem]: ...

    @property
    def sig_refused(self) -> SignalInstance: ...

    @property
    def sig_link_requested(self) -> SignalInstance: ...

    @property
    def sig_input_requested(self) -> SignalInstance: ...

    def addItem(self, item: QGraphicsItem, /) -> None: ...

    def removeItem(self, item: QGraphicsItem, /) -> None: ...

    def items(self, pos: QPointF, /, *, deviceTransform: QTransform) -> list[QGraphicsItem]: ...

    def select_column(self, table: str, column: str) -> None: ...


class NewLinkInteraction:
    """Press on a column row, drag, release on another table's row (a copy map) or on a method node
    (a new input). Released where it started, it selects the column."""

    def __init__(self, scene: LinkScene, table: TableItem, column: str, at: QPointF) -> None:
        self.scene, self.table, self.column = scene, table, column
        self.line: DragLine | None = None
        self.start = at

    def move(self, at: QPointF) -> None:
        if self.line is None:
            if (at - self.start).manhattanLength() < 6:
                return
            self.line = DragLine(self.table.port(self.column, "in"), self.table.port(self.column, "out"))
            self.scene.addItem(self.line)
        self.line.follow(at)

    def cancel(self) -> None:
        """Take the drag line away (its release never came: a menu or dialog took the mouse meanwhile)."""
        if self.line is not None:
            self.scene.removeItem(self.line)

    def release(self, at: QPointF) -> None:
        self.cancel()
        target = next((i for i in self.scene.items(at, deviceTransform=QTransform())
                       if isinstance(i, TableItem | MethodItem)), None)
        if self.scene.tables.get(self.table.key) is not self.table or not self.table.has_row(self.column):
            # an undo or a Delete while the mouse was down took the source away
            self.scene.sig_refused.emit(f"Not mapped: {self.table.key}.{self.column} is no longer in the model")
        elif self.line is None or target is self.table:
            self.scene.select_column(self.table.key, self.column)
        elif isinstance(target, TableItem):
            row = target.row_at(target.mapFromScene(at))
            if row is not None:
                self.scene.sig_link_requested.emit(self.table.key, self.column, target.key, row)
        elif isinstance(target, MethodItem):
            mapping, column, path = target.ref
            self.scene.sig_input_requested.emit(mapping, column, path, self.column)
