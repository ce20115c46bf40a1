"""`FilterBar`: a text box and one combo per field, driving a `RecordFilterProxy`; and the shared table view."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QWidget,
)

from designer.browser.models import RecordTableModel
from designer.browser.proxy import RecordFilterProxy

TYPING_PAUSE_MS = 150
"""The text filter applies once typing pauses (or on Enter): each pass reads every record."""


SIZE_FROM_ROWS = 50
"""Columns fit their contents in at most this many rows (a hidden view would otherwise read every row)."""


class FilterBar(QWidget):
    """Filter text (smart case, all words must match) plus `All <field>s` combos filled from the records."""

    def __init__(self, proxy: RecordFilterProxy, source: RecordTableModel, fields: dict[str, str] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.proxy, self._source = proxy, source
        self.text_edit = QLineEdit()
        self.text_edit.setClearButtonEnabled(True)
        self.text_edit.setPlaceholderText("Filter: words in any column (a capital letter makes it case-sensitive)")
        self.combos: dict[str, QComboBox] = {}
        self.count_label = QLabel()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TYPING_PAUSE_MS)
        self._timer.timeout.connect(self.apply_text)
        self.text_edit.textChanged.connect(self._timer.start)
        self.text_edit.returnPressed.connect(self.apply_text)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text_edit, 1)
        for key, plural in (fields or {}).items():
            combo = QComboBox()
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.setProperty("all_label", f"All {plural}")
            combo.currentIndexChanged.connect(lambda _=0, k=key: self._field_changed(k))
            self.combos[key] = combo
            layout.addWidget(combo)
        layout.addWidget(self.count_label)
        source.modelReset.connect(self._fill_combos)
        proxy.sig_filter_changed.connect(self._show_count)
        proxy.modelReset.connect(self._show_count)
        self._fill_combos()

    def apply_text(self) -> None:
        self._timer.stop()
        self.proxy.set_text(self.text_edit.text())

    def set_field_value(self, key: str, value: str | None) -> None:
        """Choose `value` in the field's combo (None: all)."""
        combo = self.combos[key]
        combo.setCurrentIndex(max(combo.findData(value), 0) if value is not None else 0)

    def _field_changed(self, key: str) -> None:
        self.proxy.set_field(key, self.combos[key].currentData())

    def _fill_combos(self) -> None:
        for key, combo in self.combos.items():
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(str(combo.property("all_label")), None)
            for value in self._source.distinct(key):
                combo.addItem(value or "(none)", value)
            combo.setCurrentIndex(max(combo.findData(chosen), 0) if chosen is not None else 0)
            combo.blockSignals(False)
            self.proxy.set_field(key, combo.currentData())
        self._show_count()

    def _show_count(self) -> None:
        shown, total = self.proxy.rowCount(), self._source.rowCount()
        self.count_label.setText(f"{shown:,} of {total:,}" if self.proxy.is_filtering() else f"{total:,}")


MAX_COLUMN_CHARS = 28
"""A column sized to its contents is at most this many average characters wide: one long key or column
group must not push the columns after it off-screen (the whole value is in the cell's tooltip)."""


def fit_columns(view: QTableView) -> None:
    """Size every column to its contents (read from a few rows: `SIZE_FROM_ROWS`) and its title, at most
    `MAX_COLUMN_CHARS` wide; the user may still widen one by dragging."""
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    widest = view.fontMetrics().averageCharWidth() * MAX_COLUMN_CHARS
    for section in range(header.count()):
        if header.sectionSize(section) > widest:
            header.resizeSection(section, widest)


def record_table(proxy: RecordFilterProxy) -> QTableView:
    """A sortable, row-selecting view that asks only visible rows for data (fixed row height, columns sized
    from a few rows): fit for 100,000 rows."""
    view = QTableView()
    view.setModel(proxy)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    rows = view.verticalHeader()
    rows.hide()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    header = view.horizontalHeader()
    header.setResizeContentsPrecision(SIZE_FROM_ROWS)  # QTableView reads a column's rows with this precision
    header.setStretchLastSection(True)
    header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    view.setSortingEnabled(True)
    return view
