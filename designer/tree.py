"""The model tree: servers > tables > columns, and mappings > column maps. Rebuilt after each change,
keeping what was expanded."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTreeView

from designer.document import Document
from engine.reversibility import describe

REF = Qt.ItemDataRole.UserRole + 1


class ModelTree(QTreeView):
    sig_selected = Signal(tuple)
    sig_context_requested = Signal(tuple, object)  # ref (() on empty space), QPoint (screen)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.items = QStandardItemModel(self)
        self.items.setHorizontalHeaderLabels(["Model"])
        self.setModel(self.items)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.clicked.connect(self._clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context)
        document.sig_changed.connect(lambda _e: self.rebuild())
        self.rebuild()

    def rebuild(self) -> None:
        current = self.items.itemFromIndex(self.currentIndex()).data(REF) if self.currentIndex().isValid() else None
        expanded = {self.items.itemFromIndex(i).data(REF) for i in self._all() if self.isExpanded(i)}
        self.items.removeRows(0, self.items.rowCount())
        model = self.document.model
        servers = QStandardItem("Servers")
        servers.setData(("servers",), REF)
        for server in model.servers:
            s_item = QStandardItem(f"{server.id}  ({server.dbms})")
            s_item.setData(("server", server.id), REF)
            for table in (t for t in model.tables if t.server == server.id):
                t_item = QStandardItem(table.name)
                t_item.setData(("table", table.key), REF)
                for col in table.columns:
                    c_item = QStandardItem(f"{col.name}  {col.type}{'  NOT NULL' if not col.nullable else ''}")
                    c_item.setData(("column", table.key, col.name), REF)
                    t_item.appendRow(c_item)
                s_item.appendRow(t_item)
            servers.appendRow(s_item)
        mappings = QStandardItem("Mappings")
        mappings.setData(("mappings",), REF)
        for mapping in model.mappings:
            m_item = QStandardItem(f"{mapping.id}  ({mapping.source} → {mapping.target})")
            m_item.setData(("mapping", mapping.id), REF)
            for column, method in mapping.columns.items():
                c_item = QStandardItem(f"{column} = {describe(method)}")
                c_item.setData(("link", mapping.id, column), REF)
                m_item.appendRow(c_item)
            mappings.appendRow(m_item)
        for item in (servers, mappings):
            for cell in (item,):
                cell.setEditable(False)
            self.items.appendRow(item)
        for index in self._all():
            ref = self.items.itemFromIndex(index).data(REF)
            self.items.itemFromIndex(index).setEditable(False)
            if ref in expanded or ref in (("servers",), ("mappings",)):
                self.expand(index)
            if current is not None and ref == current:
                self.setCurrentIndex(index)  # the selection survives the rebuild

    def ref_at(self, index: QModelIndex) -> tuple[object, ...]:
        item = self.items.itemFromIndex(index) if index.isValid() else None
        ref = item.data(REF) if item is not None else None
        return tuple(ref) if ref else ()

    def _context(self, at: QPoint) -> None:
        self.sig_context_requested.emit(self.ref_at(self.indexAt(at)), self.viewport().mapToGlobal(at))

    def _all(self) -> list[QModelIndex]:
        out: list[QModelIndex] = []
        stack = [self.items.index(r, 0) for r in range(self.items.rowCount())]
        while stack:
            index = stack.pop()
            out.append(index)
            stack += [self.items.index(r, 0, index) for r in range(self.items.rowCount(index))]
        return out

    def _clicked(self, index: QModelIndex) -> None:
        ref = self.items.itemFromIndex(index).data(REF)
        if ref:
            self.sig_selected.emit(tuple(ref))
