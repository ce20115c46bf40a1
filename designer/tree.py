"""The model tree: servers > tables > columns, and mappings > column maps, with a filter box.

Built once; after that an edit updates only the rows of the servers, tables and mappings it names, each
once however many edits of a batch name it: an entity replaced keeps its row, which is set to show it
(a server renamed too; its tables' rows follow by their own edits), and rows are added or removed only
for what was added or removed. A model of thousands of tables stays responsive, and expanded rows and
the current row survive. The filter keeps the rows whose text contains it, with their parents.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QModelIndex, QPoint, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTreeView, QVBoxLayout, QWidget

from designer.browser.models import collector_paused
from designer.document import Document
from engine.edits import Edit
from engine.model.schema import Mapping, Model, Table
from engine.reversibility import describe

REF = Qt.ItemDataRole.UserRole + 1
EXPAND_FILTERED = 2000  # a filter with fewer hits than this shows them all expanded
CHILD_OF = {"column": "table", "link": "mapping"}  # the kinds of child rows, and their parents' kind


Line = tuple[str, tuple[object, ...]]  # a row's text and its ref
Ref = tuple[str, str]  # a server's, table's or mapping's row: ("table", "hq.CUST")


def _item(text: str, ref: tuple[object, ...]) -> QStandardItem:
    item = QStandardItem(text)  # editable, but the view starts no editor (one call less an item, of thousands)
    item.setData(ref, REF)
    return item


def table_lines(table: Table) -> tuple[Line, list[Line]]:
    """A table's row and its columns' rows."""
    return (table.name, ("table", table.key)), [
        (f"{c.name}  {c.type}{'  NOT NULL' if not c.nullable else ''}", ("column", table.key, c.name))
        for c in table.columns]


def mapping_lines(mapping: Mapping) -> tuple[Line, list[Line]]:
    """A mapping's row and its column maps' rows."""
    return (f"{mapping.id}  ({mapping.source} → {mapping.target})", ("mapping", mapping.id)), [
        (f"{column} = {describe(method)}", ("link", mapping.id, column)) for column, method in mapping.columns.items()]


def _lines(entity: Table | Mapping) -> tuple[Line, list[Line]]:
    return table_lines(entity) if isinstance(entity, Table) else mapping_lines(entity)


def _row(lines: tuple[Line, list[Line]]) -> QStandardItem:
    (text, ref), children = lines
    row = _item(text, ref)
    row.appendRows([_item(t, r) for t, r in children])
    return row


def table_row(table: Table) -> QStandardItem:
    return _row(table_lines(table))


def mapping_row(mapping: Mapping) -> QStandardItem:
    return _row(mapping_lines(mapping))


def _refresh(row: QStandardItem, lines: tuple[Line, list[Line]]) -> None:
    """Make `row` and its children show `lines`, setting only what differs (the row stays: expanded, selected)."""
    (text, ref), children = lines
    _set(row, text, ref)
    if row.rowCount() != len(children):
        row.removeRows(0, row.rowCount())
        row.appendRows([_item(t, r) for t, r in children])
        return
    for n, (child_text, child_ref) in enumerate(children):
        _set(row.child(n), child_text, child_ref)


def _set(item: QStandardItem, text: str, ref: tuple[object, ...]) -> None:
    if item.text() != text:
        item.setText(text)
    if tuple(item.data(REF) or ()) != ref:
        item.setData(ref, REF)


def _key(kind: str, entity: Table | Mapping | None) -> str | None:
    if entity is None:
        return None
    return entity.key if kind == "table" else entity.id  # type: ignore[union-attr]


def _order(model: Model) -> dict[Ref, int]:
    """Each table's and mapping's place in its list of the model: one pass, once for a batch of edits."""
    out = {("table", t.key): n for n, t in enumerate(model.tables)}
    out.update({("mapping", m.id): n for n, m in enumerate(model.mappings)})
    return out


class ModelTree(QTreeView):
    sig_selected = Signal(tuple)
    sig_context_requested = Signal(tuple, object)  # ref (() on empty space), QPoint (screen)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.items = QStandardItemModel(self)
        self.items.setHorizontalHeaderLabels(["Model"])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.items)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setModel(self.proxy)
        self.setHeaderHidden(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformRowHeights(True)
        self.filter_edit = QLineEdit(placeholderText="Filter tables, columns, mappings")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.set_filter)
        self.clicked.connect(self._clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context)
        self.rows: dict[tuple[object, ...], QStandardItem] = {}  # server, table and mapping refs -> their rows
        self.servers_row = self.mappings_row = QStandardItem()  # the two top rows (made by `rebuild`)
        self.rows_replaced = 0  # tests count the rows an edit touches
        document.sig_changed.connect(self.apply_edits)
        self.rebuild()

    def with_filter(self) -> QWidget:
        """The filter box above the tree, for the dock."""
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self)
        return box

    def set_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        if text.strip() and self._count_visible(EXPAND_FILTERED) < EXPAND_FILTERED:
            self.expandAll()

    def _count_visible(self, limit: int) -> int:
        count, stack = 0, [QModelIndex()]
        while stack and count < limit:
            parent = stack.pop()
            for r in range(self.proxy.rowCount(parent)):
                count += 1
                stack.append(self.proxy.index(r, 0, parent))
        return count

    def rebuild(self) -> None:
        with collector_paused():  # thousands of rows, no cycles among them
            self._rebuild()

    def _rebuild(self) -> None:
        current = self.ref_at(self.currentIndex()) or None
        expanded = {tuple(i.data(REF)) for i in self._all() if self.isExpanded(i)}
        self.items.removeRows(0, self.items.rowCount())
        self.rows = {}
        model = self.document.model
        servers = _item("Servers", ("servers",))
        by_server: dict[str, list[Table]] = {}
        for table in model.tables:
            by_server.setdefault(table.server, []).append(table)
        for server in model.servers:
            s_item = self.rows[("server", server.id)] = _item(f"{server.id}  ({server.dbms})", ("server", server.id))
            tables = by_server.get(server.id, [])
            rows = [table_row(t) for t in tables]
            self.rows.update({("table", t.key): row for t, row in zip(tables, rows, strict=True)})
            s_item.appendRows(rows)
            servers.appendRow(s_item)
        mappings = _item("Mappings", ("mappings",))
        rows = [mapping_row(m) for m in model.mappings]
        self.rows.update({("mapping", m.id): row for m, row in zip(model.mappings, rows, strict=True)})
        mappings.appendRows(rows)
        self.items.appendRow(servers)
        self.items.appendRow(mappings)
        self.servers_row, self.mappings_row = servers, mappings
        for ref in expanded | {("servers",), ("mappings",)}:
            self._expand(ref)
        if current is not None:
            self.select_ref(current)

    def apply_edits(self, edits: list[Edit]) -> None:
        """Update the rows of the servers, tables and mappings `edits` name, each once however many of the edits
        name it (a batch of a thousand edits is a thousand rows, not a rebuild); no other row is touched."""
        with collector_paused():
            self._apply_edits(edits)

    def _apply_edits(self, edits: list[Edit]) -> None:
        model = self.document.model
        current = self.ref_at(self.currentIndex()) or None
        touched = [e for e in edits if e.kind in ("table", "mapping")]
        naming = Counter((str(e.kind), key) for e in touched for key in e.touched())  # ref -> the edits naming it
        for edit in edits:
            if edit.kind == "server":
                self._server_edit(edit, set(naming))
        renamed: dict[Ref, Ref] = {}
        placed: set[Ref] = set()
        for edit in touched:
            old_key, new_key = _key(edit.kind, edit.before), _key(edit.kind, edit.after)
            if old_key is None or new_key is None:
                continue
            old, new = (str(edit.kind), old_key), (str(edit.kind), new_key)
            renamed[old] = new
            # a replacement by the only edit naming it: its row is set to show it, where it is
            if naming[old] == naming[new] == 1 and self._replace_in_place(edit.kind, old_key, new_key):
                placed |= {old, new}
        refs = set(naming) - placed  # added, removed, or named by several edits: their rows go, then come anew
        opened = {ref for ref in refs if self._is_expanded(ref)}
        for ref in list(opened):
            while ref in renamed and renamed[ref] not in opened:  # a renamed row stays open under its new name
                ref = renamed[ref]
                opened.add(ref)
        for ref in refs:
            self._remove_row(ref)
        added = [(kind, key) for kind, key in refs if (model.table(key) if kind == "table" else model.mapping(key))]
        if added:
            order = _order(model)
            for kind, key in sorted(added, key=lambda ref: order[ref]):
                self._add_row(kind, key, order)
                if (kind, key) in opened:
                    self._expand((kind, key))
        if current is not None and not self.currentIndex().isValid():
            self.select_ref(current)

    def _server_edit(self, edit: Edit, refs: set[Ref]) -> None:
        """A server's row: its text updated (a rename keeps the row, and its tables follow by their own edits),
        made (with the tables no edit of the batch adds) or removed (with its tables' rows)."""
        old, new = edit.before, edit.after
        row = self.rows.pop(("server", old.id), None) if old is not None else None
        if new is None:
            if row is not None:
                for r in range(row.rowCount()):
                    self.rows.pop(tuple(row.child(r).data(REF)), None)
                (row.parent() or self.items.invisibleRootItem()).removeRow(row.row())
            return
        model = self.document.model
        if row is None:
            if model.server(new.id) is None:  # added, then gone again by a later edit of the batch
                return
            ids = [s.id for s in model.servers]
            earlier = (self.rows.get(("server", i)) for i in reversed(ids[:ids.index(new.id)]))
            at = next((r.row() + 1 for r in earlier if r is not None), 0)
            row = _item("", ())
            tables = [t for t in model.tables if t.server == new.id and ("table", t.key) not in refs]
            rows = [table_row(t) for t in tables]
            self.rows.update({("table", t.key): r for t, r in zip(tables, rows, strict=True)})
            row.appendRows(rows)
            self.servers_row.insertRow(at, row)
        _set(row, f"{new.id}  ({new.dbms})", ("server", new.id))
        self.rows[("server", new.id)] = row
        self.rows_replaced += 1

    def _replace_in_place(self, kind: str, old_key: str, new_key: str) -> bool:
        """Make the row of `old_key` show `new_key`'s entity, in place (only what differs is set), when it is
        shown and the entity stays under the same parent row; False (nothing done) otherwise."""
        row = self.rows.get((kind, old_key))
        entity = self.document.model.table(new_key) if kind == "table" else self.document.model.mapping(new_key)
        if row is None or entity is None or row.parent() is not self._parent_row(kind, entity):
            return False
        _refresh(row, _lines(entity))
        del self.rows[(kind, old_key)]
        self.rows[(kind, new_key)] = row
        self.rows_replaced += 1
        return True

    def _remove_row(self, ref: Ref) -> None:
        old = self.rows.pop(ref, None)
        if old is not None:
            (old.parent() or self.items.invisibleRootItem()).removeRow(old.row())

    def _add_row(self, kind: str, key: str, order: dict[Ref, int]) -> None:
        """The row of table or mapping `key`, just after the row of the nearest entity before it in the model's
        order under the same parent (first when there is none). Rows are added in the model's order, and the
        rows shown are in it, so the search back stops at once but for rows of other servers in between."""
        model = self.document.model
        entity: Table | Mapping | None = model.table(key) if kind == "table" else model.mapping(key)
        parent = self._parent_row(kind, entity) if entity is not None else None
        if entity is None or parent is None:
            return
        items: list[Table] | list[Mapping] = model.tables if kind == "table" else model.mappings
        at = 0
        for n in range(order[(kind, key)] - 1, -1, -1):
            row = self.rows.get((kind, _key(kind, items[n])))
            if row is not None and row.parent() is parent:
                at = row.row() + 1
                break
        row = _row(_lines(entity))
        parent.insertRow(at, row)
        self.rows[(kind, key)] = row
        self.rows_replaced += 1

    def _parent_row(self, kind: str, entity: Table | Mapping) -> QStandardItem | None:
        if isinstance(entity, Table):
            return self.rows.get(("server", entity.server))
        return self.mappings_row

    def _is_expanded(self, ref: tuple[object, ...], item: QStandardItem | None = None) -> bool:
        item = item or self.rows.get(ref)
        if item is None:
            return False
        return self.isExpanded(self.proxy.mapFromSource(item.index()))

    def _expand(self, ref: tuple[object, ...]) -> None:
        item = self.rows.get(ref) or next((self.items.item(r) for r in range(self.items.rowCount())
                                           if self.items.item(r).data(REF) == ref), None)
        if item is not None:
            self.expand(self.proxy.mapFromSource(item.index()))

    def select_ref(self, ref: tuple[object, ...]) -> None:
        """Make the row of `ref` current (a column's row is looked for under its table, a column map's under
        its mapping)."""
        ref = tuple(ref)
        child = len(ref) > 2 and ref[0] in CHILD_OF
        owner = self.rows.get((CHILD_OF[str(ref[0])], ref[1]) if child else ref[:2]) if len(ref) > 1 else None
        if owner is None:
            return
        item = next((owner.child(r) for r in range(owner.rowCount()) if tuple(owner.child(r).data(REF)) == ref),
                    None) if child else owner
        if item is not None:
            self.setCurrentIndex(self.proxy.mapFromSource(item.index()))

    def ref_at(self, index: QModelIndex) -> tuple[object, ...]:
        ref = index.data(REF) if index.isValid() else None
        return tuple(ref) if ref else ()

    def _context(self, at: QPoint) -> None:
        self.sig_context_requested.emit(self.ref_at(self.indexAt(at)), self.viewport().mapToGlobal(at))

    def _all(self) -> list[QModelIndex]:
        out: list[QModelIndex] = []
        stack = [self.proxy.index(r, 0) for r in range(self.proxy.rowCount())]
        while stack:
            index = stack.pop()
            out.append(index)
            stack += [self.proxy.index(r, 0, index) for r in range(self.proxy.rowCount(index))]
        return out

    def _clicked(self, index: QModelIndex) -> None:
        ref = index.data(REF)
        if ref:
            self.sig_selected.emit(tuple(ref))
