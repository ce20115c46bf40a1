"""The mapping scene: maps the document's model to canvas items and turns mouse gestures into signals.

It never edits the model: a `CanvasController` listens to its `sig_*`
signals and pushes engine edits on the document's undo stack. On every
change the scene is refreshed from the model (table nodes keep their
positions; links and method nodes are redrawn).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, Signal
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneMouseEvent

from designer.canvas.interactions import NewLinkInteraction
from designer.canvas.items import (
    HEADER,
    ROW,
    WIDTH,
    ColumnRow,
    LinkItem,
    MethodItem,
    ReverseLinkItem,
    TableItem,
    TableLook,
)
from designer.document import Document
from engine.keys import distribution_key
from engine.model.methods import Column, Method
from engine.model.schema import Model
from engine.reversibility import describe
from engine.rules import Finding, Location

Ref = tuple[Any, ...]
COLUMN_GAP, TABLE_GAP = 420.0, 40.0


class MappingScene(QGraphicsScene):
    sig_link_requested = Signal(str, str, str, str)  # source table, source column, target table, target column
    sig_input_requested = Signal(str, str, tuple, str)  # mapping, target column, method path, source column
    sig_tables_moved = Signal(list)  # [(table key, x, y)]
    sig_context_requested = Signal(tuple, object)  # ref, QPoint (screen)
    sig_selected = Signal(tuple)  # ref of the one selected thing, or ()

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.tables: dict[str, TableItem] = {}
        self.decorations: list[QGraphicsItem] = []
        self.interaction: NewLinkInteraction | None = None
        self._press_positions: dict[str, QPointF] = {}
        self.selectionChanged.connect(self._selection_changed)
        document.sig_changed.connect(lambda _edits: self.refresh())
        document.sig_findings.connect(self.show_findings)
        self.refresh()
        self.show_findings(document.findings())

    @property
    def model(self) -> Model:
        return self.document.model

    # --- building ------------------------------------------------------------

    def refresh(self) -> None:
        model = self.model
        dkeys: dict[str, set[str]] = {}
        for m in model.mappings:
            key = distribution_key(model, m)
            dkeys.setdefault(m.target, set()).update(key.columns if key else ())
        for key in [k for k in self.tables if model.table(k) is None]:
            self.removeItem(self.tables.pop(key))
        for table in model.tables:
            server = model.server(table.server)
            look = TableLook(table.key, server.dbms if server else "?", [
                ColumnRow(c.name, str(c.sql_type), not c.nullable, c.name in table.primary_key,
                          c.name in dkeys.get(table.key, set())) for c in table.columns])
            item = self.tables.get(table.key)
            if item is None:
                item = self.tables[table.key] = TableItem(look)
                self.addItem(item)
                item.setPos(self._position_of(table.key))
            else:
                item.set_look(look)
                saved = model.layout.get(table.key)
                if saved is not None and (item.pos().x(), item.pos().y()) != tuple(saved):
                    item.setPos(QPointF(*saved))
        self.redraw_links()

    def _position_of(self, key: str) -> QPointF:
        saved = self.model.layout.get(key)
        if saved is not None:
            return QPointF(*saved)
        return self.auto_positions()[key]

    def auto_positions(self) -> dict[str, QPointF]:
        """Servers side by side, each server's tables stacked; mapped tables first."""
        out: dict[str, QPointF] = {}
        servers = [s.id for s in self.model.servers]
        heights = dict.fromkeys(servers, 0.0)
        for table in self.model.tables:
            column = servers.index(table.server) if table.server in servers else 0
            out[table.key] = QPointF(column * COLUMN_GAP, heights.get(table.server, 0.0))
            heights[table.server] = heights.get(table.server, 0.0) + HEADER + ROW * len(table.columns) + TABLE_GAP
        return out

    def redraw_links(self) -> None:
        self._rebuilding = True  # removing a selected link is not the user deselecting it
        try:
            self._redraw_links()
        finally:
            self._rebuilding = False

    def _redraw_links(self) -> None:
        for item in self.decorations:
            self.removeItem(item)
        self.decorations = []
        by_code = {(f.code, f.location.mapping) for f in self.document.findings()}
        messages = {f.location.mapping: f.message for f in self.document.findings() if f.code in ("BI001", "BI002")}
        for mapping in self.model.mappings:
            source, target = self.tables.get(mapping.source), self.tables.get(mapping.target)
            if source is None or target is None:
                continue
            for column, method in mapping.columns.items():
                self._draw_method(mapping.id, column, method, (), source, target.port(column, "in"), depth=0)
            if mapping.reverse and self.model.mapping(mapping.reverse) and mapping.id < mapping.reverse:
                bad = any((code, m) in by_code for code in ("BI001", "BI002") for m in (mapping.id, mapping.reverse))
                tip = messages.get(mapping.id) or messages.get(mapping.reverse) or "reversible: the key comes back"
                start = source.mapToScene(QPointF(WIDTH / 2, 0))
                end = target.mapToScene(QPointF(WIDTH / 2, 0))
                self._add(ReverseLinkItem(mapping.id, start, end, not bad,
                                          f"{mapping.id} ⇄ {mapping.reverse}: {tip}"))

    def _draw_method(self, mapping: str, column: str, method: Method, path: tuple[int, ...], source: TableItem,
                     end: QPointF, depth: int) -> None:
        tip = f"{mapping}: {column} = {describe(method)}"
        if isinstance(method, Column):
            self._add(LinkItem(mapping, column, source.port(method.input, "out"), end, tip))
            return
        node = MethodItem(mapping, column, path, _label(method), tip)
        left = source.port(source.look.rows[0].name, "out") if source.look.rows else source.pos()
        x = left.x() + (end.x() - left.x()) * (0.62 - 0.18 * depth)
        node.setPos(QPointF(x, end.y() + 14 * depth))
        self._add(node)
        self._add(LinkItem(mapping, column, node.port("out"), end, tip))
        for i, child in enumerate(method.inputs_of()):
            self._draw_method(mapping, column, child, (*path, i), source, node.port("in"), depth + 1)

    def _add(self, item: QGraphicsItem) -> None:
        self.addItem(item)
        self.decorations.append(item)

    # --- findings ------------------------------------------------------------

    def show_findings(self, findings: list[Finding]) -> None:
        marks: dict[str, dict[str | None, tuple[str, str]]] = {}
        for f in findings:
            table, column = self.item_location(f.location)
            if table is None:
                continue
            row = column if column and self.tables[table].has_row(column) else None
            current = marks.setdefault(table, {}).get(row)
            severity = "error" if f.severity.value == "error" or (current and current[0] == "error") else "warning"
            tip = (current[1] + "\n" if current else "") + f"{f.code}: {f.message}"
            marks[table][row] = (severity, tip)
        for key, item in self.tables.items():
            item.look.marks = marks.get(key, {})
            item.update()
        self.redraw_links()

    def item_location(self, loc: Location) -> tuple[str | None, str | None]:
        """The table node and row a finding points at."""
        if loc.mapping and (m := self.model.mapping(loc.mapping)) is not None:
            table = loc.table if loc.table in self.tables else m.target
            return (table if table in self.tables else None), loc.column
        if loc.table in self.tables:
            return loc.table, loc.column
        return None, None

    def focus(self, loc: Location) -> TableItem | None:
        """Select the item a finding points at; the view centres on it."""
        table, column = self.item_location(loc)
        if table is None:
            return None
        self.clearSelection()
        item = self.tables[table]
        item.setSelected(True)
        if column and item.has_row(column):
            self.sig_selected.emit(("column", table, column))
        return item

    # --- gestures ------------------------------------------------------------

    def table_moved(self, item: TableItem) -> None:
        if self.interaction is None:
            self.redraw_links()

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
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

    def select_column(self, table: str, column: str) -> None:
        self.clearSelection()
        self.tables[table].setSelected(True)
        self.sig_selected.emit(("column", table, column))

    def _selection_changed(self) -> None:
        if getattr(self, "_rebuilding", False):
            return
        selected = self.selectedItems()
        if len(selected) != 1:
            self.sig_selected.emit(())
            return
        item = selected[0]
        self.sig_selected.emit(self.ref_of(item, item.scenePos()) if not isinstance(item, TableItem)
                               else ("table", item.key))


def _label(method: Method) -> str:
    extra = {"split": lambda m: f"[{m.index}]", "cast": lambda m: f" {m.type}", "system": lambda m: f" {m.name}",
             "constant": lambda m: f" {str(m.value)[:12]!r}"}.get(method.method)
    return method.method + (extra(method) if extra else "")
