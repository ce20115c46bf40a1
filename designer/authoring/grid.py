"""The mapping grid: every target column of every mapping as a row (mapping | target column | method | inputs),
searchable and editable, for people who prefer a table to a diagram.

`MappingGridModel` is a `QAbstractTableModel` over the document's model;
edits are authoring commands. Method: a method name (empty removes the map).
Inputs: source columns separated by commas (a concat's inputs, in order),
a constant's value or an expression's SQL. A cell committed as it is shown
changes nothing: its text (a nested method's description) is never parsed back.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTableView, QVBoxLayout, QWidget

from designer.authoring import commands as cmd
from designer.document import Document
from designer.labels import plain_label, plain_tip
from designer.values import OutOfRange, parse_like, value_text
from engine import authoring as au
from engine import operations as ops
from engine.authoring.errors import refusal
from engine.edits import Edit
from engine.model.methods import METHOD_CLASSES, Column, Concat, Constant, Expression, Method
from engine.reversibility import describe

HEADERS = ("Mapping", "Target column", "Method", "Inputs")
MAPPING, TARGET, METHOD, INPUTS = range(4)
Index = QModelIndex | QPersistentModelIndex


def inputs_text(method: Method | None) -> str:
    if method is None:
        return ""
    if isinstance(method, Column):
        return method.input
    if isinstance(method, Constant):
        return value_text(method.value)
    if isinstance(method, Expression):
        return method.sql
    return ", ".join(describe(m) for m in method.inputs_of())


def _same_rows(edit: Edit) -> bool:
    """An edit of one mapping that keeps its id, target and mapped columns keeps the grid's rows; so does an
    edit of a table that keeps its key and its columns' names (a type, a default changed)."""
    before, after = edit.before, edit.after
    if before is None or after is None:
        return edit.kind not in ("table", "mapping")
    if edit.kind == "table":
        return bool(before.key == after.key and before.column_names() == after.column_names())
    return (edit.kind == "mapping" and before.id == after.id
            and before.target == after.target and list(before.columns) == list(after.columns))


def _spans(rows: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for row, (mapping_id, _column) in enumerate(rows):
        first, _last = out.get(mapping_id, (row, row))
        out[mapping_id] = (first, row)
    return out


class MappingGridModel(QAbstractTableModel):
    sig_problem = Signal(str)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.rows: list[tuple[str, str]] = []
        self.spans: dict[str, tuple[int, int]] = {}  # mapping id -> its first and last row
        document.sig_changed.connect(self.reload)
        self.reload()

    def reload(self, edits: list[Edit] | None = None) -> None:
        """Rows from the model: the same rows only repaint (selection and scroll stay); others reset.

        With `edits`, only their mappings' rows repaint, and an edit that keeps every mapping's rows (a method,
        `where` or flag changed) does not recompute them: a large model's grid costs nothing per edit.
        """
        if edits is not None and not any(e.kind in ("table", "mapping") for e in edits):
            return
        touched = {k for e in edits or [] for k in e.touched() if e.kind == "mapping"}
        tables = {k for e in edits or [] if e.kind == "table" for k in e.touched()}  # once, not once a mapping
        touched |= {m.id for m in self.document.model.mappings if m.target in tables}
        if edits is None or not all(_same_rows(e) for e in edits):
            rows = self._rows()
            if rows != self.rows:
                self.beginResetModel()
                self.rows = rows
                self.spans = _spans(rows)
                self.endResetModel()
                return
        if edits is None:
            if self.rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(HEADERS) - 1))
            return
        for mapping_id in sorted(touched):
            if mapping_id in self.spans:
                first, last = self.spans[mapping_id]
                self.dataChanged.emit(self.index(first, 0), self.index(last, len(HEADERS) - 1))

    def _rows(self) -> list[tuple[str, str]]:
        model = self.document.model
        rows: list[tuple[str, str]] = []
        for mapping in model.mappings:
            target = model.table(mapping.target)
            names = target.column_names() if target else []
            rows += [(mapping.id, c) for c in names + [c for c in mapping.columns if c not in names]]
        return rows

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if index.column() in (METHOD, INPUTS) else base

    def method_at(self, row: int) -> Method | None:
        mapping_id, column = self.rows[row]
        mapping = self.document.model.mapping(mapping_id)
        return mapping.columns.get(column) if mapping else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        mapping_id, column = self.rows[index.row()]
        method = self.method_at(index.row())
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return (mapping_id, column, method.method if method else "", inputs_text(method))[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and method is not None:
            return plain_tip(f"{column} = {describe(method)}")
        if role == Qt.ItemDataRole.ForegroundRole and method is None and index.column() == METHOD:
            return Qt.GlobalColor.gray
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        mapping_id, column = self.rows[index.row()]
        text = str(value).strip()
        if text == str(self.data(index, Qt.ItemDataRole.EditRole)).strip():
            return False  # committed as shown (Enter in a cell, a click away): nothing changes
        try:
            if index.column() == METHOD:
                command = self._method_command(mapping_id, column, text)
            elif index.column() == INPUTS:
                command = self._inputs_command(mapping_id, column, self.method_at(index.row()), text)
            else:
                return False
        except (au.AuthoringError, ValueError) as exc:
            self.sig_problem.emit(f"not applied: {exc}")
            return False
        self.sig_problem.emit("")
        return cmd.push(self.document, command)

    def _method_command(self, mapping_id: str, column: str, kind: str) -> cmd.AuthoringCommand:
        if not kind:
            return cmd.SetMethod(self.document, mapping_id, column, None)
        if kind not in METHOD_CLASSES:
            raise au.AuthoringError(f"unknown method {kind!r} (methods: {', '.join(METHOD_CLASSES)})")
        if kind == "column":
            current = self.document.model.mapping(mapping_id)
            method = current.columns.get(column) if current else None
            first = (method.source_columns() or [column])[0] if method else column
            return cmd.SetMethod(self.document, mapping_id, column, first)
        return cmd.AuthoringCommand(self.document, ops.insert_method(self.document.model, mapping_id, column, kind),
                                    f"Insert {kind} on {column}")

    def _inputs_command(self, mapping_id: str, column: str, method: Method | None,
                        text: str) -> cmd.AuthoringCommand:
        names = [n.strip() for n in text.split(",") if n.strip()]
        if method is None or isinstance(method, Column):
            return cmd.SetMethod(self.document, mapping_id, column, names[0] if names else None)
        if isinstance(method, Constant):
            try:
                fields: dict[str, Any] = {"value": parse_like(text, method.value)}  # a number stays a number
            except OutOfRange as exc:
                raise au.AuthoringError(f"columns.{column}.value: {exc}") from None
        elif isinstance(method, Expression):
            fields = {"sql": text}
        elif any(not isinstance(m, Column) for m in method.inputs_of()):
            # its text describes nested methods (`upper(REGION)`), which no list of column names can say
            raise au.AuthoringError(f"the inputs of {column} include methods: edit them in the properties panel "
                                    "or on the canvas")
        elif isinstance(method, Concat):
            fields = {"inputs": names}
        elif "input" not in type(method).model_fields:
            raise au.AuthoringError(f"{method.method} has no inputs: set its parameters in the properties panel")
        elif len(names) == 1:
            fields = {"input": names[0]}
        else:
            raise au.AuthoringError(f"{method.method} takes one input")
        try:
            edits = ops.set_method_fields(self.document.model, mapping_id, column, (), **fields)
        except ValidationError as exc:
            raise refusal(exc) from None
        return cmd.AuthoringCommand(self.document, edits, f"Inputs of {column}")


class MappingGrid(QWidget):
    """The grid with a search line over every cell."""

    sig_selected = Signal(tuple)  # ("link", mapping, column)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.model = MappingGridModel(document)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search mappings, columns, methods…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.proxy.setFilterFixedString)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        # rows start in the model's order; sorting all of them on open would read every cell (seconds on a
        # large model): a click on a header sorts
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.clicked.connect(self._clicked)
        self.problem = plain_label()
        self.problem.setStyleSheet("color: #d32f2f")
        self.model.sig_problem.connect(self.problem.setText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.view)
        layout.addWidget(self.problem)

    def _clicked(self, index: QModelIndex) -> None:
        mapping_id, column = self.model.rows[self.proxy.mapToSource(index).row()]
        self.sig_selected.emit(("link", mapping_id, column))
