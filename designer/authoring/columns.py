"""A table's columns as an editable grid (name, type, NOT NULL, default, primary key) and its unique indexes.

`ColumnsModel` is a `QAbstractTableModel` over one table of the document:
every edit is an authoring command; a value the engine refuses is not
applied and `sig_problem` says why. The type cell is checked against the
contract's type strings as the user types (red, with the reason).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from designer.authoring import commands as cmd
from designer.document import Document
from designer.gridview import GridView
from designer.labels import plain_label, plain_tip
from designer.values import OutOfRange, parse_like, value_text
from engine import authoring as au
from engine.edits import Edit
from engine.model.schema import Table

HEADERS = ("Name", "Type", "NOT NULL", "Default", "PK")
NAME, TYPE, NOT_NULL, DEFAULT, PK = range(5)
ERROR_STYLE = "color: #d32f2f"
Index = QModelIndex | QPersistentModelIndex


class ColumnsModel(QAbstractTableModel):
    sig_problem = Signal(str)  # why the last edit was not applied ("" when it was)

    def __init__(self, document: Document, table_key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document, self.key = document, table_key
        self._rows = self.rowCount()
        document.sig_changed.connect(self._changed)

    def _changed(self, edits: list[Edit]) -> None:
        """Cells of the same rows take their new values in place, so an open editor, the current cell and the
        Tab order stay where the user is; only a change in the number of rows resets the grid. Edits of other
        tables, mappings or settings leave it alone."""
        if edits and not any(self.key in edit.touched() for edit in edits):
            return
        rows = self.rowCount()
        if rows == self._rows:
            if rows:
                self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(HEADERS) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    @property
    def table(self) -> Table | None:
        return self.document.model.table(self.key)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        table = self.table
        return 0 if parent.isValid() or table is None else len(table.columns)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (NOT_NULL, PK):
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        table = self.table
        if table is None or not index.isValid() or index.row() >= len(table.columns):
            return None
        col = table.columns[index.row()]
        c = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if c == NAME:
                return col.name
            if c == TYPE:
                return col.type
            if c == DEFAULT:
                return value_text(col.default)
        if role == Qt.ItemDataRole.CheckStateRole and c in (NOT_NULL, PK):
            on = not col.nullable if c == NOT_NULL else col.name in table.primary_key
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        table = self.table
        if table is None or not index.isValid():
            return False
        column = table.columns[index.row()]
        name, c = column.name, index.column()
        if role == Qt.ItemDataRole.EditRole and str(value) == self.data(index, role):
            return False  # committed as shown: nothing changes
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
        try:
            if c == NAME and role == Qt.ItemDataRole.EditRole:
                command: cmd.AuthoringCommand = cmd.RenameColumn(self.document, self.key, name, str(value))
            elif c == TYPE and role == Qt.ItemDataRole.EditRole:
                command = cmd.SetColumn(self.document, self.key, name, type=str(value))
            elif c == DEFAULT and role == Qt.ItemDataRole.EditRole:
                try:
                    default = parse_like(str(value), column.default) if str(value) else None
                except OutOfRange as exc:
                    raise au.AuthoringError(f"default: {exc}") from None
                command = cmd.SetColumn(self.document, self.key, name, default=default)
            elif c == NOT_NULL and role == Qt.ItemDataRole.CheckStateRole:
                command = cmd.SetColumn(self.document, self.key, name, nullable=not checked)
            elif c == PK and role == Qt.ItemDataRole.CheckStateRole:
                pk = [n for n in table.primary_key if n != name] + ([name] if checked else [])
                command = cmd.SetKeys(self.document, self.key, primary_key=pk)
            else:
                return False
        except ValueError as exc:  # an AuthoringError, or a value no model file may hold (UnloadableValue)
            self.sig_problem.emit(f"not applied: {exc}")
            return False
        self.sig_problem.emit("")
        return cmd.push(self.document, command)


class TypeDelegate(QStyledItemDelegate):
    """The type cell's editor: red, with the reason as its tooltip, while the text is not a contract type."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        editor = QLineEdit(parent)
        editor.textChanged.connect(lambda text: _mark_type(editor, text))
        return editor

    def setModelData(self, editor: QWidget, model: Any, index: Index) -> None:
        assert isinstance(editor, QLineEdit)
        if au.type_problem(editor.text()) is None:
            model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)
        else:
            model.sig_problem.emit(f"not applied: {au.type_problem(editor.text())}")


def _mark_type(editor: QLineEdit, text: str) -> None:
    problem = au.type_problem(text)
    editor.setStyleSheet("" if problem is None else "QLineEdit { color: #d32f2f; }")
    editor.setToolTip(plain_tip(problem or ""))
    editor.setProperty("problem", problem or "")


class ColumnsEditor(QWidget):
    """The columns grid with Add, Remove, Up and Down, and the table's unique indexes as one line."""

    def __init__(self, document: Document, table_key: str, current: str | None = None) -> None:
        super().__init__()
        self.document, self.key = document, table_key
        self.model = ColumnsModel(document, table_key, self)
        self.view = GridView()
        self.view.setModel(self.model)
        self.view.setItemDelegateForColumn(TYPE, TypeDelegate(self.view))
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        header = self.view.horizontalHeader()
        for section, mode in ((NAME, QHeaderView.ResizeMode.Stretch), (TYPE, QHeaderView.ResizeMode.Stretch),
                              (NOT_NULL, QHeaderView.ResizeMode.ResizeToContents),
                              (DEFAULT, QHeaderView.ResizeMode.Stretch), (PK, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(section, mode)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.setMinimumHeight(160)
        self.problem = plain_label(wrap=True)
        self.problem.setStyleSheet(ERROR_STYLE)
        self.model.sig_problem.connect(self.problem.setText)
        self.uniques = QLineEdit(_uniques_text(self.model.table))
        self.uniques.setPlaceholderText("none; e.g. UX_NAME(NAME); UX_CODE(REGION, CODE)")
        self.uniques.editingFinished.connect(self._uniques_changed)
        buttons = QHBoxLayout()
        for text, slot in (("Add column", lambda: self.add_column()), ("Remove", self.remove_current),
                           ("Up", lambda: self.move_current(-1)), ("Down", lambda: self.move_current(1))):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addLayout(buttons)
        layout.addWidget(QLabel("Unique indexes"))
        layout.addWidget(self.uniques)
        layout.addWidget(self.problem)
        self.model.modelReset.connect(self._reset)
        self.model.dataChanged.connect(self._selection_changed)  # a renamed row is still the current one
        self._current_name = current
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.select(current)

    def _selection_changed(self, *_: object) -> None:
        self._current_name = self.current() or self._current_name

    def _reset(self) -> None:
        self.uniques.setText(_uniques_text(self.model.table))
        self.select(self._current_name)

    def current(self) -> str | None:
        table = self.model.table
        rows = self.view.selectionModel().selectedRows()
        if table is None or not rows or rows[0].row() >= len(table.columns):
            return None
        return table.columns[rows[0].row()].name

    def select(self, name: str | None) -> None:
        table = self.model.table
        if table is None or name is None or name not in table.column_names():
            return
        self.view.selectRow(table.column_names().index(name))
        self._current_name = name

    def add_column(self, name: str | None = None, type_: str = "VARCHAR(40)") -> str | None:
        table = self.model.table
        if table is None:
            return None
        if name is None:
            n = len(table.columns) + 1
            while table.column(f"COLUMN_{n}") is not None:
                n += 1
            name = f"COLUMN_{n}"
        current = self.current()
        position = table.column_names().index(current) + 1 if current else None
        if self._run(lambda: cmd.AddColumn(self.document, self.key, name, type_, position=position)):
            self.select(name)
            self.view.edit(self.model.index(table.column_names().index(current) + 1 if current else
                                            len(table.columns), NAME))
            return name
        return None

    def remove_current(self) -> None:
        name = self.current()
        if name:
            self._run(lambda: cmd.RemoveColumn(self.document, self.key, name))

    def move_current(self, delta: int) -> None:
        name = self.current()
        if name:
            self._current_name = name
            self._run(lambda: cmd.MoveColumn(self.document, self.key, name, delta))
            self.select(name)

    def _uniques_changed(self) -> None:
        try:
            indexes = parse_uniques(self.uniques.text())
        except ValueError as exc:
            self.problem.setText(f"not applied: {exc}")
            return
        self._run(lambda: cmd.SetKeys(self.document, self.key, unique_indexes=indexes))

    def _run(self, build: Any) -> bool:
        try:
            command = build()
        except ValueError as exc:  # an AuthoringError, or a value no model file may hold (UnloadableValue)
            self.problem.setText(f"not applied: {exc}")
            return False
        self.problem.setText("")
        return cmd.push(self.document, command)


def _uniques_text(table: Table | None) -> str:
    return "; ".join(f"{ux.name}({', '.join(ux.columns)})" for ux in table.unique_indexes) if table else ""


def parse_uniques(text: str) -> list[dict[str, Any]]:
    """`UX_A(A, B); UX_C(C)` as unique index entries; a ValueError names the part that is not of that form."""
    out: list[dict[str, Any]] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, open_, rest = part.partition("(")
        columns = [c.strip() for c in rest.rstrip(")").split(",") if c.strip()]
        if not open_ or not rest.endswith(")") or not name.strip() or not columns:
            raise ValueError(f"{part!r} is not NAME(COLUMN, …)")
        out.append({"name": name.strip(), "columns": columns})
    return out
