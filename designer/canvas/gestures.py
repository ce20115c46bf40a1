"""The canvas scene's input: mouse gestures, the context menu and the selection, turned into signals.

`GestureScene` is the base of `scene.MappingScene`: it never edits the model nor draws it; a
`CanvasController` listens to the signals declared here and pushes engine edits on the undo stack.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, Signal
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneMouseEvent

from designer.canvas.interactions import NewLinkInteraction
from designer.canvas.items import TableItem
from designer.canvas.wires import LinkItem, MethodItem, ReverseLinkItem

Ref = tuple[Any, ...]


class GestureScene(QGraphicsScene):
    """The scene's signals and the gestures that send them; `tables` is filled by the scene that draws them."""

    sig_link_requested = Signal(str, str, str, str)  # source table, source column, target table, target column
    sig_input_requested = Signal(str, str, tuple, str)  # mapping, target column, method path, source column
    sig_tables_moved = Signal(list)  # [(table key, x, y)]
    sig_context_requested = Signal(tuple, object)  # ref, QPoint (screen)
    sig_selected = Signal(tuple)  # ref of the one selected thing, or ()
    sig_empty_changed = Signal(bool)  # True when the last table went, False when the first came
    sig_refused = Signal(str)  # why a gesture changed nothing

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, TableItem] = {}
        self.interaction: NewLinkInteraction | None = None
        self._press_positions: dict[str, QPointF] = {}
        self._rebuilding = False  # True while items are (re)built: their selection changes say nothing
        self._multiple = False  # the last selection said (`sig_selected`) was of several items
        self.selectionChanged.connect(self._selection_changed)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:  # a press before the last drag's release (lost to a menu or dialog)
            self.interaction.cancel()
            self.interaction = None
        item = self.itemAt(event.scenePos(), QTransform())
        if isinstance(item, TableItem) and event.button().name == "LeftButton":
            row = item.row_at(item.mapFromScene(event.scenePos()))
            if row is not None:
                self.interaction = NewLinkInteraction(self, item, row, event.scenePos())
                event.accept()
                return
        self._press_positions = {k: t.pos() for k, t in self.tables.items()}
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            self.interaction.move(event.scenePos())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            interaction, self.interaction = self.interaction, None
            interaction.release(event.scenePos())
            event.accept()
            return
        super().mouseReleaseEvent(event)
        moved = [(k, t.pos().x(), t.pos().y()) for k, t in self.tables.items()
                 if k in self._press_positions and t.pos() != self._press_positions[k]]
        self._press_positions = {}
        if moved:
            self.sig_tables_moved.emit(moved)

    def contextMenuEvent(self, event: Any) -> None:
        item = self.itemAt(event.scenePos(), QTransform())
        ref = self.ref_of(item, event.scenePos())
        self.sig_context_requested.emit(ref or ("canvas",), event.screenPos())
        event.accept()

    def ref_of(self, item: QGraphicsItem | None, scene_pos: QPointF) -> Ref:
        if isinstance(item, TableItem):
            row = item.row_at(item.mapFromScene(scene_pos))
            return ("column", item.key, row) if row else ("table", item.key)
        if isinstance(item, MethodItem):
            return ("method", *item.ref)
        if isinstance(item, LinkItem):
            return ("link", *item.ref)
        if isinstance(item, ReverseLinkItem):
            return ("reverse", item.ref)
        return ()

    def select_tables(self) -> None:
        """Edit ▸ Select all: every table (their wires follow them)."""
        for item in self.tables.values():
            item.setSelected(True)

    def select_column(self, table: str, column: str) -> None:
        self.clearSelection()
        self.tables[table].setSelected(True)
        self.sig_selected.emit(("column", table, column))

    def _selection_changed(self) -> None:
        if getattr(self, "_rebuilding", False):
            return
        selected = self.selectedItems()
        if len(selected) != 1:
            if len(selected) > 1 and self._multiple:
                return  # a multiple selection grew or shrank (Select all, one item at a time): () was said already
            self._multiple = len(selected) > 1
            self.sig_selected.emit(())
            return
        self._multiple = False
        item = selected[0]
        self.sig_selected.emit(self.ref_of(item, item.scenePos()) if not isinstance(item, TableItem)
                               else ("table", item.key))
