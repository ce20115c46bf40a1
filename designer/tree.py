"""The model tree: servers > tables > columns, and mappings > column maps, with a filter box.

Built once; after that an edit replaces only the rows of the tables and mappings it names (a server
edit rebuilds, as it moves tables), so a model of thousands of tables stays responsive. Expanded rows
and the current row survive. The filter keeps the rows whose text contains it, with their parents.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QLineEdit, QTreeView, QVBoxLayout, QWidget

from designer.document import Document
from engine.edits import Edit
from engine.model.schema import Mapping, Table
from engine.reversibility import describe

REF = Qt.ItemDataRole.UserRole + 1
EXPAND_FILTERED = 2000  # a filter with fewer hits than this shows them all expanded


def _item(text: str, ref: tuple[object, ...]) -> QStandardItem:
    item = QStandardItem(text)
    item.setData(ref, REF)
    item.setEditable(False)
    return item


def table_row(table: Table) -> QStandardItem:
    row = _item(table.name, ("table", table.key))
    row.appendRows([_item(f"{c.name}  {c.type}{'  NOT NULL' if not c.nullable else ''}",
                          ("column", table.key, c.name)) for c in table.columns])
    return row


def mapping_row(mapping: Mapping) -> QStandardItem:
    row = _item(f"{mapping.id}  ({mapping.source} → {mapping.target})", ("mapping", mapping.id))
    row.appendRows([_item(f"{column} = {describe(method)}", ("link", mapping.id, column))
                    for column, method in mapping.columns.items()])
    return row


def _key(kind: str, entity: Table | Mapping | None) -> str | None:
    if entity is None:
        return None
    return entity.key if kind == "table" else entity.id  # type: ignore[union-attr]


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
        self.setUniformRowHeights(True)
        self.filter_edit = QLineEdit(placeholderText="Filter tables, columns, mappings")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.set_filter)
        self.clicked.connect(self._clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context)
        self.rows: dict[tuple[object, ...], QStandardItem] = {}  # server, table and mapping refs -> their rows
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
        for ref in expanded | {("servers",), ("mappings",)}:
            self._expand(ref)
        if current is not None:
            self.select_ref(current)

    def apply_edits(self, edits: list[Edit]) -> None:
        """Replace the rows of the tables and mappings `edits` name; a server edit rebuilds."""
        if any(e.kind == "server" for e in edits):
            self.rebuild()
            return
        current = self.ref_at(self.currentIndex()) or None
        for edit in edits:
            if edit.kind not in ("table", "mapping"):
                continue
            old_key, new_key = (_key(edit.kind, e) for e in (edit.before, edit.after))
            renamed_open = old_key != new_key and self._is_expanded((edit.kind, old_key))
            for key in sorted(edit.touched()):
                self._replace(edit.kind, key)
            if renamed_open and new_key:
                self._expand((edit.kind, new_key))
        if current is not None and not self.currentIndex().isValid():
            self.select_ref(current)

    def _replace(self, kind: str, key: str) -> None:
        """The row of table or mapping `key` made anew from the model (added, replaced or removed)."""
        ref = (kind, key)
        old = self.rows.pop(ref, None)
        expanded = old is not None and self._is_expanded(ref, old)
        position: int | None = None
        if old is not None:
            parent = old.parent() or self.items.invisibleRootItem()
            position = old.row()
            parent.removeRow(position)
        model = self.document.model
        if kind == "table":
            table = model.table(key)
            parent_row = self.rows.get(("server", table.server)) if table else None
            if table is None or parent_row is None:
                return
            siblings = [t.key for t in model.tables if t.server == table.server]
            row = table_row(table)
        else:
            mapping = model.mapping(key)
            parent_row = self.items.item(1)
            if mapping is None or parent_row is None:
                return
            siblings = [m.id for m in model.mappings]
            row = mapping_row(mapping)
        parent_row.insertRow(self._insert_at(kind, key, siblings, parent_row), row)
        self.rows[ref] = row
        self.rows_replaced += 1
        if expanded:
            self._expand(ref)

    def _insert_at(self, kind: str, key: str, siblings: list[str], parent_row: QStandardItem) -> int:
        """Where the row of `key` goes under `parent_row`: just after the row of the nearest entity before it in
        the model's order that the tree shows (first when there is none). Not a count of the rows shown before
        it: while a batch of edits is replayed the tree may still show a row the model no longer has (a mapping
        removed by a later edit of the batch, after this one edited another's `reverse`), and undoing a removal
        puts rows back one by one, later ones first."""
        for earlier in reversed(siblings[:siblings.index(key)]):
            row = self.rows.get((kind, earlier))
            if row is not None and row.parent() is parent_row:
                return row.row() + 1
        return 0

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
        """Make the row of `ref` current (a column's row is looked for under its table)."""
        owner = self.rows.get(tuple(ref[:2])) if ref else None
        if owner is None:
            return
        item = owner if tuple(ref) == tuple(ref[:2]) else next(
            (owner.child(r) for r in range(owner.rowCount()) if owner.child(r).data(REF) == ref), None)
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
