"""The Problems panel: the engine's findings in a sortable table; double-click goes to the item.

Errors come first (red), then warnings (orange). A finding that an edit just brought is scrolled to and
flashed for a moment, so it cannot be missed at the bottom of a long list.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLineEdit, QTableView, QVBoxLayout, QWidget

from designer.document import Document
from designer.labels import plain_tip
from designer.severity import FLASH_COLOUR, SEVERITY_COLOURS, dot_icon
from engine.rules import Finding

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Severity", "Code", "Message", "Mapping", "Table", "Column")
COLOURS = SEVERITY_COLOURS
FLASH_MS = 1500
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def where(f: Finding) -> tuple[str, str, str]:
    loc = f.location
    column = ".".join(x for x in (loc.group, loc.index, loc.column) if x)
    return loc.mapping or "", loc.table or "", column


def panel_order(f: Finding) -> tuple[Any, ...]:
    """Errors above warnings; then by where they are, then by code."""
    return (f.sort_key()[0], *where(f), f.code, f.message)


class FindingsModel(QAbstractTableModel):
    """A table model over a plain list of findings, errors first; `fresh` ones are flashed."""

    def __init__(self, findings: list[Finding] | None = None) -> None:
        super().__init__()
        self.findings: list[Finding] = sorted(findings or [], key=panel_order)
        self.fresh: set[Finding] = set()
        self._icons = {name: dot_icon(colour) for name, colour in COLOURS.items()}

    def set_findings(self, findings: list[Finding]) -> None:
        """Show `findings`; when an edit leaves them as they were (most do), nothing is reset or re-sorted."""
        ordered = sorted(findings, key=panel_order)
        if ordered == self.findings:
            self.clear_fresh()
            return
        before = set(self.findings)
        self.beginResetModel()
        self.findings = sorted(findings, key=panel_order)
        self.fresh = {f for f in self.findings if f not in before}
        self.endResetModel()

    def clear_fresh(self) -> None:
        if self.fresh:
            self.fresh = set()
            self.dataChanged.emit(self.index(0, 0), self.index(max(self.rowCount() - 1, 0), len(COLUMNS) - 1))

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
        if role == Qt.ItemDataRole.DisplayRole:
            return (f.severity.value, f.code, f.message, *where(f))[col]
        if role == Qt.ItemDataRole.ToolTipRole:  # a finding quotes the model's names and SQL
            return plain_tip((f.severity.value, f.code, f.message, *where(f))[col])
        if role == Qt.ItemDataRole.ForegroundRole and col == 0:
            return COLOURS[f.severity.value]
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return self._icons[f.severity.value]
        if role == Qt.ItemDataRole.BackgroundRole and f in self.fresh:
            return FLASH_COLOUR
        if role == SORT_ROLE:
            return index.row() if col == 0 else (f.severity.value, f.code, f.message, *where(f))[col]
        if role == Qt.ItemDataRole.UserRole:
            return f
        return None


class ProblemsPanel(QWidget):
    sig_activated = Signal(object)  # Finding

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.model = FindingsModel(document.findings())
        self._checking = document.checking  # its first findings are not new: they do not flash
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)  # the Severity column sorts errors first, not alphabetically
        self.proxy.setFilterKeyColumn(-1)  # the filter matches any column: code, message, mapping, table...
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_edit = QLineEdit(placeholderText="Filter problems (code, message, mapping, table, column)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(lambda text: self.proxy.setFilterFixedString(text.strip()))
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.activated.connect(self._activated)  # a double-click, or Enter on the current row
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table)
        self._flash = QTimer(self, singleShot=True, interval=FLASH_MS)
        self._flash.timeout.connect(self.model.clear_fresh)
        document.sig_findings.connect(self.show_findings)

    def set_document(self, document: Document) -> None:
        self.model.set_findings(document.findings())
        self.model.clear_fresh()
        self._checking = document.checking
        document.sig_findings.connect(self.show_findings)

    def show_findings(self, findings: list[Finding]) -> None:
        """Show the findings; scroll to the first new one (the most severe) and flash the new ones."""
        self.model.set_findings(findings)
        if self._checking:  # a large model's check ended: what it found was there when it opened
            self._checking = False
            self.model.clear_fresh()
            return
        fresh = [row for row, f in enumerate(self.model.findings) if f in self.model.fresh]
        if not fresh:
            return
        index = self.proxy.mapFromSource(self.model.index(fresh[0], 0))
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        self._flash.start()

    def _activated(self, index: QModelIndex) -> None:
        self.sig_activated.emit(self.proxy.data(index, Qt.ItemDataRole.UserRole))
