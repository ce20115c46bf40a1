"""Parts of the conflict editor (`designer.conflict_editor`): the column-group tree, and the helpers it fills its
widgets with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QFormLayout, QMenu, QSizePolicy, QTreeWidget, QWidget

from designer.labels import menu_text
from designer.slots import bound
from engine.core.types import TypeFamily
from engine.model.schema import DESIGNATED_COLUMN_METHODS, TIMESTAMP_METHODS


class GroupTree(QTreeWidget):
    """Groups with their columns; a column dropped on a group moves there. `move_column(column, group)` is the
    editor's (passed in, so this module does not import the editor that imports it)."""

    def __init__(self, move_column: Callable[[str, str], None]) -> None:
        super().__init__()
        self.move_column = move_column
        self.setHeaderHidden(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def dropEvent(self, event: Any) -> None:
        target = self.itemAt(event.position().toPoint())
        moving = [i.text(0) for i in self.selectedItems() if i.parent() is not None]
        group = target.parent() or target if target else None
        event.ignore()
        if group is not None and moving:
            for column in moving:
                self.move_column(column, group.text(0))

    def _menu(self, at: Any) -> None:
        item = self.itemAt(at)
        if item is None or item.parent() is None:
            return
        menu = QMenu(self)
        move = menu.addMenu("Move to group")
        column = item.text(0)
        for group in filter(None, map(self.topLevelItem, range(self.topLevelItemCount()))):
            move.addAction(menu_text(group.text(0)), bound(self.move_column, column, group.text(0)))
        menu.exec(self.viewport().mapToGlobal(at))


def proposed_column(table: Any, columns: list[str], method: str) -> str | None:
    """The designated column a new chain step starts with: for a timestamp method the group's first datetime
    column (CR004 wants one), for the other designating methods its first column; None when none fits."""
    if method not in DESIGNATED_COLUMN_METHODS:
        return None
    if method in TIMESTAMP_METHODS:
        return next((c for c in columns if table is not None and (col := table.column(c)) is not None
                     and col.sql_type.family == TypeFamily.DATETIME), None)
    return next(iter(columns), None)


def quiet(widget: QWidget, action: Callable[[], object]) -> None:
    """Fill a widget without its change signals firing edits."""
    blocked = widget.blockSignals(True)
    try:
        action()
    finally:
        widget.blockSignals(blocked)


def reason(exc: ValueError) -> str:
    """The first reason pydantic gives (where and why), or the error's text."""
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"])
        return f"{where}: {err['msg']}" if where else str(err["msg"])
    return str(exc)


def shrinking_combo() -> QComboBox:
    """A choice that takes the width it is given rather than its longest entry's (a column or method name), so
    the editor fits a narrow dock without scrolling sideways; the open list still shows each entry whole."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return combo


def narrow_form() -> QFormLayout:
    """A form whose rows put the field under its label when the two do not fit side by side."""
    form = QFormLayout()
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    return form
