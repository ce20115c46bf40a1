"""The Problems panel: the engine's findings in a sortable table; double-click goes to the item."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QTableView, QVBoxLayout, QWidget

from designer.document import Document
from engine.rules import Finding

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Severity", "Code", "Message", "Mapping", "Table", "Column")
COLOURS = {"error": QColor("#d32f2f"), "warning": QColor("#b26a00")}


def where(f: Finding) -> tuple[str, str, str]:
    loc = f.location
    column = ".".join(x for x in (loc.group, loc.index, loc.column) if x)
    return loc.mapping or "", loc.table or "", column


class FindingsModel(QAbstractTableModel):
    """A table model over a plain list of findings."""

    def __init__(self, findings: list[Finding] | None = None) -> None:
        super().__init__()
        self.findings: list[Finding] = findings or []

    def set_findings(self, findings: list[Finding]) -> None:
        self.beginResetModel()
        self.findings = list(findings)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.findings)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        f = self.findings[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return (f.severity.value, f.code, f.message, *where(f))[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 0:
            return COLOURS[f.severity.value]
        if role == Qt.ItemDataRole.UserRole:
            return f
        return None


class ProblemsPanel(QWidget):
    sig_activated = Signal(object)  # Finding

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.model = FindingsModel(document.findings())
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(self._activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        document.sig_findings.connect(self.model.set_findings)

    def set_document(self, document: Document) -> None:
        self.model.set_findings(document.findings())
        document.sig_findings.connect(self.model.set_findings)

    def _activated(self, index: QModelIndex) -> None:
        self.sig_activated.emit(self.proxy.data(index, Qt.ItemDataRole.UserRole))
