"""The mapping scene: draws the document's model as canvas items and keeps them in step with its edits.

It never edits the model: its gestures (`gestures.GestureScene`, its base) become `sig_*` signals that a
`CanvasController` turns into engine edits on the document's undo stack. Updates are by
item (orange-canvas-core's `CanvasScene`): an edit re-draws only the tables
and mappings it names (`Document.sig_changed` carries the edits), a moved
table re-draws only its own links, and findings re-mark only the tables whose
marks changed. Nothing re-draws the whole scene after the first build.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from designer.canvas import routing
from designer.canvas.autolayout import layout as auto_layout
from designer.canvas.gestures import GestureScene
from designer.canvas.items import HEADER, ROW, WIDTH, ColumnRow, TableItem, TableLook
from designer.canvas.nodespots import NodeSpots, method_x, room_back
from designer.canvas.wires import LinkItem, MappingGroup, MethodItem, ReverseLinkItem, route_links
from designer.document import Document
from engine.edits import Edit
from engine.keys import distribution_key
from engine.model.methods import Column, Method
from engine.model.schema import Mapping, Model, Table
from engine.reversibility import describe
from engine.rules import Finding, Location

MARGIN = 400.0  # room around the tables, to drop one beside them
GROWTH = 4000.0  # how much more room a table moved out of the scene's rectangle makes
MAX_OBSTACLES = 24  # tables a wire may go round; beyond, it keeps its curve (see `_obstacles`)
REVERSIBLE = "reversible: the key comes back"


class MappingScene(GestureScene):
    """The model drawn: a table item per table, a group of wires and method nodes per mapping."""

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.mapping_items: dict[str, list[QGraphicsItem]] = {}  # mapping id -> its wires and method nodes
        self.groups: dict[str, MappingGroup] = {}  # mapping id -> the one top-level item holding them
        self.reverse_items: dict[str, ReverseLinkItem] = {}  # the lower id of a pair -> its dashed link
        self.links_of_table: dict[str, set[str]] = {}  # table key -> ids of the mappings drawn to or from it
        self._ends: dict[str, tuple[str, str]] = {}  # mapping id -> (source, target) as drawn
        self._following = True  # False while a batch of moves is applied: links are re-drawn once at the end
        self._auto: dict[str, QPointF] | None = None
        self._marked: set[str] = set()  # the tables that show marks
        self._bi_messages: dict[str, str] = {}  # mapping id -> its BI001/BI002 message
        self._spots = NodeSpots()  # where method nodes stand, so that a new one stands clear of them
        self._rects: routing.RectIndex | None = None  # tables' rectangles (obstacles)
        document.sig_changed.connect(self.apply_edits)
        document.sig_findings.connect(self.show_findings)
        self.refresh()
        self.show_findings(document.findings())

    @property
    def model(self) -> Model:
        return self.document.model

    @property
    def decorations(self) -> list[QGraphicsItem]:
        """Every wire, method node and reverse link now drawn."""
        return [i for items in self.mapping_items.values() for i in items] + list(self.reverse_items.values())

    # --- building ------------------------------------------------------------

    def refresh(self) -> None:
        """Build every item from the model (on open); later edits go through `apply_edits`."""
        self._rebuilding = True
        try:
            for item in [*self.groups.values(), *self.reverse_items.values(), *self.tables.values()]:
                self.removeItem(item)
            self.tables, self.mapping_items, self.reverse_items, self.links_of_table = {}, {}, {}, {}
            self._ends, self.groups, self._marked = {}, {}, set()
            self._spots = NodeSpots()
            self._rects = None
            self._following = False
            positions = self.auto_positions() if any(t.key not in self.model.layout for t in self.model.tables) \
                else {}
            dkeys = self._dkeys(self.model.mappings)
            for table in self.model.tables:
                item = self.tables[table.key] = TableItem(self._look(table, dkeys))
                saved = self.model.layout.get(table.key)
                item.setPos(QPointF(*saved) if saved is not None else positions[table.key])
                self.addItem(item)
            for mapping in self.model.mappings:
                self._draw_mapping(mapping.id)
                self._draw_reverse(mapping.id)
            self.setSceneRect(self.tables_rect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))
        finally:
            self._following, self._rebuilding = True, False

    def tables_rect(self) -> QRectF:
        """The rectangle the tables take (the wires and method nodes lie between them)."""
        rects = [t.sceneBoundingRect() for t in self.tables.values()]
        if not rects:
            return QRectF(0, 0, 1, 1)
        left, top = min(r.left() for r in rects), min(r.top() for r in rects)
        return QRectF(left, top, max(r.right() for r in rects) - left, max(r.bottom() for r in rects) - top)

    def _grow_to(self, item: QGraphicsItem) -> None:
        """Keep a moved or added table inside the scene's rectangle (set by us: Qt's own growing rectangle
        walks every item after each change)."""
        rect = item.sceneBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
        if not self.sceneRect().contains(rect):  # grow by a lot at once: each growth re-indexes every item
            self.setSceneRect(self.sceneRect().united(rect.adjusted(-GROWTH, -GROWTH, GROWTH, GROWTH)))

    def apply_edits(self, edits: list[Edit]) -> None:
        """Update only what `edits` name: their tables, mappings, servers' tables and moved tables."""
        model = self.model
        tables: set[str] = set()
        mappings: set[str] = set()
        moved: set[str] = set()
        for edit in edits:
            if edit.kind == "table":
                tables |= edit.touched()
            elif edit.kind == "mapping":
                mappings |= edit.touched()
                tables |= {m.target for m in (edit.before, edit.after) if m is not None}  # its DK badges
                mappings |= {m.reverse for m in (edit.before, edit.after) if m is not None and m.reverse}
            elif edit.kind == "server":
                servers = edit.touched()
                tables |= {t.key for t in model.tables if t.server in servers}
        layouts = [edit for edit in edits if edit.kind == "settings" and edit.key == "layout"]
        if layouts:  # each move holds the whole layout: compare the batch's first and last, not every move's
            before, after = layouts[0].before or {}, layouts[-1].after or {}
            moved = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        if not (tables or mappings or moved):
            return
        edited = set(tables)
        tables |= {m.target for m in model.mappings if m.source in edited}  # their DK badges read the source too
        changed_tables = {k for k in tables if self._table_changed(k, model.table(k))}
        mappings |= {m for k in changed_tables for m in self.links_of_table.get(k, set())}
        mappings |= {m.id for m in model.mappings
                     if m.source in changed_tables or m.target in changed_tables or m.reverse in mappings}
        self._rebuilding, self._following, self._auto = True, False, None
        was_empty = not self.tables
        try:
            dkeys = self._dkeys(m for m in model.mappings if m.target in tables)
            for key in sorted(tables):
                self._sync_table(key, model.table(key), dkeys)
            for key in sorted(moved - tables):
                self._sync_table(key, model.table(key), None, moved=True)
            mappings |= {m for k in moved for m in self.links_of_table.get(k, set())}
            for mapping_id in sorted(mappings):
                self._draw_mapping(mapping_id)
            for mapping_id in sorted(mappings):
                self._draw_reverse(mapping_id)
        finally:
            self._following, self._rebuilding, self._auto = True, False, None
        if was_empty != (not self.tables):
            self.sig_empty_changed.emit(not self.tables)

    def _table_changed(self, key: str, table: Table | None) -> bool:
        """A table added, removed or whose columns' geometry (and so its links' ends) may have moved."""
        item = self.tables.get(key)
        if item is None or table is None:
            return True
        return [r.name for r in item.look.rows] != table.column_names()

    def _sync_table(self, key: str, table: Table | None, dkeys: dict[str, set[str]] | None,
                    moved: bool = False) -> None:
        self._rects = None
        item = self.tables.get(key)
        if table is None:
            if item is not None:
                self.removeItem(self.tables.pop(key))
            return
        if item is None:
            item = self.tables[key] = TableItem(self._look(table, dkeys or {}))
            item.setPos(self._position_of(key))
            self.addItem(item)
            self._grow_to(item)
        elif dkeys is not None:
            look = self._look(table, dkeys)
            look.marks = item.look.marks
            if look != item.look:
                item.set_look(look)
        saved = self.model.layout.get(key)
        if saved is not None and (item.pos().x(), item.pos().y()) != tuple(saved):
            item.setPos(QPointF(*saved))
        elif saved is None and moved:  # its saved place was taken away (an undone move): back to the automatic one
            item.setPos(self._auto_position(key))

    def _dkeys(self, mappings: Iterable[Mapping]) -> dict[str, set[str]]:
        """Target table -> its distribution-key columns, from `mappings`."""
        out: dict[str, set[str]] = {}
        for m in mappings:
            key = distribution_key(self.model, m)
            out.setdefault(m.target, set()).update(key.columns if key else ())
        return out

    def _look(self, table: Table, dkeys: dict[str, set[str]]) -> TableLook:
        server = self.model.server(table.server)
        keys = dkeys.get(table.key, set())
        return TableLook(table.key, server.dbms if server else "?", [
            ColumnRow(c.name, str(c.sql_type), not c.nullable, c.name in table.primary_key, c.name in keys)
            for c in table.columns])

    def _position_of(self, key: str) -> QPointF:
        saved = self.model.layout.get(key)
        if saved is not None:
            return QPointF(*saved)
        return self._auto_position(key)

    def _auto_position(self, key: str) -> QPointF:
        """`auto_positions()[key]`, computed once per batch of edits (`apply_edits` forgets it): a batch that
        adds or un-moves a thousand tables lays the model out once, not once per table."""
        if self._auto is None:
            self._auto = self.auto_positions()
        return self._auto[key]

    def auto_positions(self) -> dict[str, QPointF]:
        """A band per server, side by side, each a grid of a few columns (one for a handful of tables), related
        tables near each other (`auto_layout`): Fit shows an imported database's tables with their rows."""
        sizes = {t.key: (WIDTH, HEADER + ROW * len(t.columns)) for t in self.model.tables}
        return {key: QPointF(x, y) for key, (x, y) in auto_layout(self.model, sizes).items()}

    def redraw_links(self) -> None:
        """Re-draw every mapping (kept for callers that change positions behind the scene's back)."""
        self._rebuilding = True
        try:
            for mapping_id in list(self.mapping_items.keys() | {m.id for m in self.model.mappings}):
                self._draw_mapping(mapping_id)
                self._draw_reverse(mapping_id)
        finally:
            self._rebuilding = False

    def _undraw_mapping(self, mapping_id: str) -> None:
        self.mapping_items.pop(mapping_id, None)
        self._spots.forget(mapping_id)
        group = self.groups.pop(mapping_id, None)
        if group is not None:
            self.removeItem(group)  # and its wires and nodes with it
        for table in self._ends.pop(mapping_id, ()):
            self.links_of_table.get(table, set()).discard(mapping_id)

    def _draw_mapping(self, mapping_id: str) -> None:
        """(Re-)draw one mapping's wires and method nodes, between its two tables' current positions."""
        self._undraw_mapping(mapping_id)
        mapping = self.model.mapping(mapping_id)
        if mapping is None:
            return
        source, target = self.tables.get(mapping.source), self.tables.get(mapping.target)
        if source is None or target is None:
            return
        items: list[QGraphicsItem] = []
        leftward = _leftward(source, target)
        for column, method in mapping.columns.items():
            end = target.port(column, "out" if leftward else "in")
            self._draw_method(items, mapping.id, column, method, (), source, end, 0, leftward)
        route_links([i for i in items if isinstance(i, LinkItem)], self._obstacles(source, target))
        group = self.groups[mapping_id] = MappingGroup(mapping_id)
        group.hold(items)
        self.addItem(group)
        self.mapping_items[mapping_id] = items
        self._ends[mapping_id] = (mapping.source, mapping.target)
        self.links_of_table.setdefault(mapping.source, set()).add(mapping_id)
        self.links_of_table.setdefault(mapping.target, set()).add(mapping_id)

    def _draw_reverse(self, mapping_id: str) -> None:
        """The dashed link of a pair, kept under the pair's lower id."""
        old = self.reverse_items.pop(mapping_id, None)
        if old is not None:
            self.removeItem(old)
        mapping = self.model.mapping(mapping_id)
        if mapping is None or not mapping.reverse or mapping.id >= mapping.reverse \
                or self.model.mapping(mapping.reverse) is None:
            return
        source, target = self.tables.get(mapping.source), self.tables.get(mapping.target)
        if source is None or target is None:
            return
        ok, tip = self._reverse_state(mapping)
        item = ReverseLinkItem(mapping.id, source.mapToScene(QPointF(WIDTH / 2, 0)),
                               target.mapToScene(QPointF(WIDTH / 2, 0)), ok, tip)
        self.addItem(item)
        self.reverse_items[mapping_id] = item
        self.links_of_table.setdefault(mapping.source, set()).add(mapping_id)
        self.links_of_table.setdefault(mapping.target, set()).add(mapping_id)

    def _reverse_state(self, mapping: Mapping) -> tuple[bool, str]:
        message = self._bi_messages.get(mapping.id) or self._bi_messages.get(mapping.reverse or "")
        return message is None, f"{mapping.id} ⇄ {mapping.reverse}: {message or REVERSIBLE}"

    def _draw_method(self, items: list[QGraphicsItem], mapping: str, column: str, method: Method,
                     path: tuple[int, ...], source: TableItem, end: QPointF, depth: int, leftward: bool) -> None:
        """A column's map, from its target end back to its source columns: wires, and a node per method.
        A leftward mapping (`_leftward`) leaves its source's left edge and its nodes face left."""
        tip = f"{mapping}: {column} = {describe(method)}"
        out, into = ("in", "out") if leftward else ("out", "in")  # the sides data leaves and enters by
        if isinstance(method, Column):
            items.append(LinkItem(mapping, column, source.port(method.input, out), end, tip, leftward))
            return
        node = MethodItem(mapping, column, path, _label(method), tip)
        edge = source.port(source.look.rows[0].name, out) if source.look.rows else source.pos()
        width = node.SIZE.width()
        wanted = QPointF(method_x(edge.x(), end.x(), width, depth), end.y() + 14 * depth)
        room = room_back(edge.x(), end.x(), width) - abs(end.x() - wanted.x())
        node.setPos(self._spots.take(mapping, wanted, node.SIZE, edge.x() - end.x(), room))
        items.append(node)
        items.append(LinkItem(mapping, column, node.port(out), end, tip, leftward))
        for i, child in enumerate(method.inputs_of()):
            self._draw_method(items, mapping, column, child, (*path, i), source, node.port(into), depth + 1,
                              leftward)

    def _obstacles(self, source: TableItem, target: TableItem) -> dict[str, QRectF]:
        """The tables a wire between `source` and `target` may have to go round (those in `routing.region`),
        read from plain rectangles kept until a table is added, moved or removed. More than `MAX_OBSTACLES`:
        none, and the wires keep their curves — a crowd that large is seen in the overview, and routing round
        it cost minutes on a 1,200-table model."""
        if self._rects is None:
            self._rects = routing.RectIndex({key: routing.box_of(t.sceneBoundingRect())
                                             for key, t in self.tables.items()})
        box = routing.box_of(routing.region(source.sceneBoundingRect(), target.sceneBoundingRect()))
        keys = [key for key in self._rects.meeting(box, MAX_OBSTACLES + 2) or () if key not in (source.key, target.key)]
        if len(keys) > MAX_OBSTACLES:
            return {}
        return {key: QRectF(a1, b1, a2 - a1, b2 - b1) for key in keys for a1, b1, a2, b2 in [self._rects.rects[key]]}

    def _detour(self, moved: TableItem) -> None:
        """Re-route, in place, the wires of the other mappings that `moved` stood in the way of, or now may."""
        rect = moved.sceneBoundingRect()
        for mapping_id, (source_key, target_key) in self._ends.items():
            links = [i for i in self.mapping_items.get(mapping_id, ()) if isinstance(i, LinkItem)]
            source, target = self.tables.get(source_key), self.tables.get(target_key)
            if not links or moved.key in (source_key, target_key) or source is None or target is None:
                continue
            if moved.key in links[0].obstacles or \
                    routing.region(source.sceneBoundingRect(), target.sceneBoundingRect()).intersects(rect):
                route_links(links, self._obstacles(source, target))
                self.groups[mapping_id].hold([])  # its bounds follow its wires

    def items_drawn(self) -> Iterator[QGraphicsItem]:
        """Every item the scene maps from the model (tables, wires, method nodes, reverse links)."""
        yield from self.tables.values()
        yield from self.decorations

    # --- findings ------------------------------------------------------------

    def show_findings(self, findings: list[Finding]) -> None:
        """Mark tables and rows with their findings; only tables whose marks changed repaint."""
        marks: dict[str, dict[str | None, tuple[str, str]]] = {}
        bi: dict[str, str] = {}
        for f in findings:
            if f.code in ("BI001", "BI002") and f.location.mapping:
                bi.setdefault(f.location.mapping, f.message)
            table, column = self.item_location(f.location)
            if table is None:
                continue
            row = column if column and self.tables[table].has_row(column) else None
            current = marks.setdefault(table, {}).get(row)
            severity = "error" if f.severity.value == "error" or (current and current[0] == "error") else "warning"
            tip = (current[1] + "\n" if current else "") + f"{f.code}: {f.message}"
            marks[table][row] = (severity, tip)
        for key in self._marked | marks.keys():
            if key in self.tables:
                self.tables[key].set_marks(marks.get(key, {}))
        self._marked = set(marks)
        if bi != self._bi_messages:
            self._bi_messages = bi
            for item in self.reverse_items.values():
                mapping = self.model.mapping(item.ref)
                if mapping is not None:
                    ok, tip = self._reverse_state(mapping)
                    if (ok, tip) != (item.ok, item.toolTip()):
                        item.set_state(ok, tip)

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

    # --- a table moved -------------------------------------------------------

    def table_moved(self, item: TableItem) -> None:
        """A table's own links follow it; wires it stood or stands in the way of are re-routed in place."""
        self._rects = None
        self._grow_to(item)
        if self.interaction is None and self._following:
            self._rebuilding = True
            try:
                for mapping_id in sorted(self.links_of_table.get(item.key, set())):
                    self._draw_mapping(mapping_id)
                    self._draw_reverse(mapping_id)
            finally:
                self._rebuilding = False
        self._detour(item)  # and the wires of others that it stood, or now stands, in the way of


def _leftward(source: TableItem, target: TableItem) -> bool:
    """Whether a mapping is drawn right to left: its target stands wholly left of its source (a reverse
    mapping, in the automatic layout). Its wires then join the two facing edges instead of looping across
    both tables, and a move that changes it redraws the mapping (`table_moved`)."""
    return target.pos().x() + WIDTH < source.pos().x()


def _label(method: Method) -> str:
    extra = {"split": lambda m: f"[{m.index}]", "cast": lambda m: f" {m.type}", "system": lambda m: f" {m.name}",
             "constant": lambda m: f" {str(m.value)[:12]!r}"}.get(method.method)
    return method.method + (extra(method) if extra else "")
