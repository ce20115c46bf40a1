"""Row images side by side: one row per column name, one column per image, differing cells highlighted.

Used for a conflict (local / remote old / remote new / result), an error-queue entry (before / after)
and a convergence example (source / target). The first image present is the reference: a cell whose
value differs from it is highlighted, and so is that column's name.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from designer.browser.models import HIGHLIGHT, cell_text, highlight_brush
from designer.labels import plain_label, plain_tip

Image = tuple[str, Mapping[str, Any] | None]
DIFFERS_ROLE = Qt.ItemDataRole.UserRole + 2
"""`data(index, DIFFERS_ROLE)`: True where the cell differs from the reference image."""

ABSENT = "—"
_MISSING = object()


def value_text(value: Any) -> str:
    return "NULL" if value is None else cell_text(value)


class RowComparisonModel(QAbstractTableModel):
    """Rows are column names (in order of first appearance), columns are the row images."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._images: list[Image] = []
        self._names: list[str] = []
        self._differs: list[list[bool]] = []

    def set_images(self, images: Sequence[Image]) -> None:
        self.beginResetModel()
        self._images = list(images)
        names: dict[str, None] = {}
        for _, row in self._images:
            names.update(dict.fromkeys(row or ()))
        self._names = list(names)
        present = [row for _, row in self._images if row is not None]
        reference = present[0] if present else None
        self._differs = [[row is not None and reference is not None
                          and row.get(name, _MISSING) != reference.get(name, _MISSING)
                          for _, row in self._images] for name in self._names]
        self.endResetModel()

    def differing_columns(self) -> list[str]:
        """Column names where some image differs from the reference."""
        return [name for name, flags in zip(self._names, self._differs, strict=True) if any(flags)]

    def differing_rows(self) -> list[int]:
        """Rows (column names) where some image differs from the reference, in model order."""
        return [row for row, flags in enumerate(self._differs) if any(flags)]

    def highlighted_cells(self) -> list[tuple[str, str]]:
        """(column name, image title) of every highlighted cell."""
        return [(name, title) for name, flags in zip(self._names, self._differs, strict=True)
                for (title, _), flag in zip(self._images, flags, strict=True) if flag]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._images)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        name, (title, row) = self._names[index.row()], self._images[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return ABSENT if row is None or name not in row else value_text(row[name])
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(f"no {title} image" if row is None else (
                f"{title} has no column {name}" if name not in row else f"{name} ({title}): {value_text(row[name])}"))
        differs = self._differs[index.row()][index.column()]
        if role == DIFFERS_ROLE:
            return differs
        if role == Qt.ItemDataRole.BackgroundRole and differs:
            return highlight_brush()
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            return self._images[section][0] if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._names[section]
        if role == Qt.ItemDataRole.FontRole and any(self._differs[section]):
            font = QFont()
            font.setBold(True)
            return font
        return None


class ComparisonPane(QWidget):
    """A caption, the comparison table and a legend for the highlight."""

    def __init__(self, placeholder: str = "Select a row to compare its images.", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RowComparisonModel(self)
        self._placeholder = placeholder
        self.caption = QLabel(placeholder)
        self.caption.setTextFormat(Qt.TextFormat.RichText)  # captions are escaped rich text: never guessed
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.swatch = QLabel()
        self.swatch.setFixedSize(14, 14)
        c = HIGHLIGHT
        self.swatch.setStyleSheet(f"background: rgba({c.red()}, {c.green()}, {c.blue()}, {c.alpha()});"
                                  " border: 1px solid palette(mid);")
        self.legend = plain_label("differs from the first image")  # names a site or a table of the run
        legend = QHBoxLayout()
        legend.addWidget(self.swatch)
        legend.addWidget(self.legend)
        legend.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        layout.addLayout(legend)

    def show_images(self, caption: str, images: Sequence[Image]) -> None:
        self.caption.setText(caption)
        self.model.set_images(images)
        self._differing_first()
        reference = next((title for title, row in images if row is not None), None)
        self.legend.setText(f"differs from {reference}" if reference else "no images")

    def _differing_first(self) -> None:
        """Move the differing columns' rows to the top (the view's order; the model keeps the images'), so a
        wide table's difference is never below the fold."""
        header = self.view.verticalHeader()
        for target, row in enumerate(self.model.differing_rows()):
            header.moveSection(header.visualIndex(row), target)
        self.view.scrollToTop()

    def shown_names(self) -> list[str]:
        """The column names in the order the table shows them, top to bottom."""
        header = self.view.verticalHeader()
        return [str(self.model.headerData(header.logicalIndex(v), Qt.Orientation.Vertical))
                for v in range(header.count())]

    def clear(self) -> None:
        self.caption.setText(self._placeholder)
        self.model.set_images([])


def conflict_images(conflict: Mapping[str, Any]) -> list[Image]:
    return [("Local", conflict.get("local")), ("Remote old", conflict.get("remote_old")),
            ("Remote new", conflict.get("remote_new")), ("Result", conflict.get("result"))]


def describe_conflict(conflict: Mapping[str, Any]) -> str:
    """One sentence of rich text: what conflicted where, and how it ended."""
    def esc(key: str) -> str:
        return html.escape(cell_text(conflict.get(key)) or "?")
    # any field but the four the reader checks may hold any JSON value: shown as text, never assumed text
    group = cell_text(conflict.get("column_group") or conflict.get("index"))
    tried = html.escape(cell_text(conflict.get("methods_tried")) or "none")
    method = html.escape(cell_text(conflict.get("method")) or "nothing")
    text = (f"<b>{esc('type')}</b> conflict at <b>{esc('site')}</b> from <b>{esc('origin')}</b> on {esc('table')}"
            f" key {esc('dkey')} (txn {esc('txn')}{f', group {html.escape(group)}' if group else ''},"
            f" delivered {esc('delivered_at')}): methods tried {tried}; decided by {method}, outcome "
            f"<b>{esc('outcome')}</b>")
    if conflict.get("reason"):
        text += f"; {esc('reason')}"
    return text + "."
