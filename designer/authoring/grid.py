"""The mapping grid: every target column of every mapping as a row (mapping | target column | method | inputs),
searchable and editable, for people who prefer a table to a diagram.

`MappingGridModel` is a `QAbstractTableModel` over the document's model;
edits are authoring commands. Method: a method name (empty removes the map).
Inputs: source columns separated by commas (a concat's inputs, in order),
a constant's value or an expression's SQL. A cell committed as it is shown
changes nothing: its text (a nested method's description) is never parsed back.

On a model of thousands of mappings the grid stays quick: each row's texts are worked out once and kept
until an edit of its mapping (a cell's `data()` is a lookup), a header click sorts in one Python pass over
the rows (`MappingGridModel.sort`; the proxy's own sort would call `data()` twice per comparison), and the
search reads each row's kept text once (`GridFilterProxy`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import ValidationError
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QStyle, QVBoxLayout, QWidget

from designer.authoring import commands as cmd
from designer.browser.models import collector_paused
from designer.document import Document
from designer.gridview import GridView
from designer.labels import plain_label, plain_tip
from designer.values import OutOfRange, parse_like, value_text
from engine import authoring as au
from engine.authoring.errors import refusal
from engine.edits import Edit
from engine.methods import kind_of
from engine.model.methods import METHOD_CLASSES, Column, Concat, Constant, Expression, Method
from engine.model.schema import Mapping
from engine.reversibility import describe

HEADERS = ("Mapping", "Target column", "Method", "Inputs")
MAPPING, TARGET, METHOD, INPUTS = range(4)
MAX_FIT = 480  # px: a longer mapping id or column name is elided (the column can still be widened)
SEARCH_ROLE = int(Qt.ItemDataRole.UserRole) + 1  # a row's cells' text, joined by a character no one types
# the roles `data()` answers, as plain ints: it is called for every role of every cell painted, and comparing an
# int with an enum member costs several times more
TEXT_ROLES = frozenset({int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.EditRole)})
TOOLTIP_ROLE, FOREGROUND_ROLE = int(Qt.ItemDataRole.ToolTipRole), int(Qt.ItemDataRole.ForegroundRole)
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


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) runs of consecutive rows."""
    out: list[tuple[int, int]] = []
    for row in rows:
        if out and out[-1][1] == row - 1:
            out[-1] = (out[-1][0], row)
        else:
            out.append((row, row))
    return out


class Cells(NamedTuple):
    """What one row shows, worked out once: its method, the four cells' text and their text to search."""

    method: Method | None
    texts: tuple[str, str, str, str]
    search: str


def _cells(mapping_id: str, column: str, method: Method | None) -> Cells:
    texts = (mapping_id, column, method.method if method else "", inputs_text(method))
    return Cells(method, texts, "\x1f".join(texts))


class MappingGridModel(QAbstractTableModel):
    """One row per target column of each mapping. `rows` are (mapping id, column) in the order shown (the model's
    order, or sorted by a column); each row's `Cells` are kept until an edit of its mapping."""

    sig_problem = Signal(str)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.rows: list[tuple[str, str]] = []  # as shown
        self.row_of: dict[tuple[str, str], int] = {}  # (mapping id, column) -> its row in `rows`
        self.sorted_by: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)  # -1: the model's order
        self._model_rows: list[tuple[str, str]] = []  # in the model's order
        self._rank: dict[tuple[str, str], int] = {}  # a row's place in the model's order (ties of a sort)
        self._spans: dict[str, tuple[int, int]] = {}  # mapping id -> its first and last row of `_model_rows`
        self._cells: dict[str, dict[str, Cells]] = {}  # mapping id -> column -> what its row shows
        document.sig_changed.connect(self.reload)
        self.reload()

    def reload(self, edits: list[Edit] | None = None) -> None:
        """Rows from the model: the same rows only repaint (selection and scroll stay); others reset.

        With `edits`, only their mappings' rows repaint (and are worked out again), and an edit that keeps every
        mapping's rows (a method, `where` or flag changed) does not recompute them: a large model's grid costs
        nothing per edit. A sorted grid moves rows only when an edit changed what they are sorted by.
        """
        if edits is not None and not any(e.kind in ("table", "mapping") for e in edits):
            return
        mappings = {k for e in edits or [] if e.kind == "mapping" for k in e.touched()}
        if edits is None:
            self._cells.clear()
        for mapping_id in mappings:
            self._cells.pop(mapping_id, None)
        if edits is None or not all(_same_rows(e) or self._same_mapping_rows(e) for e in edits):
            rows = self._rows()
            if rows != self._model_rows:
                self.beginResetModel()
                self._set_model_rows(rows)
                self.endResetModel()
                return
        if edits is None:
            if self.rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(HEADERS) - 1))
            return
        tables = {k for e in edits if e.kind == "table" for k in e.touched()}  # once, not once a mapping
        touched = mappings | {m.id for m in self.document.model.mappings if m.target in tables}
        changed = sorted(self.row_of[key] for m in touched if m in self._spans
                         for key in self._model_rows[self._spans[m][0]:self._spans[m][1] + 1])
        if self.sorted_by[0] >= 0 and not all(self._in_place(row) for row in changed):
            self._show_sorted()  # an edit changed what the rows are sorted by: they move
            return
        for first, last in _runs(changed):
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(HEADERS) - 1))

    def _rows(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        for mapping in self.document.model.mappings:
            rows += self._mapping_rows(mapping)
        return rows

    def _mapping_rows(self, mapping: Mapping) -> list[tuple[str, str]]:
        """The target's columns, then any column the mapping maps that its target lacks."""
        target = self.document.model.table(mapping.target)
        names = target.column_names() if target else []
        return [(mapping.id, c) for c in names + [c for c in mapping.columns if c not in names]]

    def _same_mapping_rows(self, edit: Edit) -> bool:
        """An edit of a mapping that keeps its id and target (a column map added or removed) keeps the grid's
        rows when the mapping's rows are the same: worked out for that mapping alone, not for every one."""
        if edit.kind != "mapping" or edit.before is None or edit.after is None or edit.before.id != edit.after.id \
                or edit.before.target != edit.after.target:
            return False
        mapping, span = self.document.model.mapping(edit.after.id), self._spans.get(edit.after.id)
        return mapping is not None and span is not None \
            and self._model_rows[span[0]:span[1] + 1] == self._mapping_rows(mapping)

    def _set_model_rows(self, rows: list[tuple[str, str]]) -> None:
        self._model_rows = rows
        self._rank = {key: n for n, key in enumerate(rows)}
        self._spans = _spans(rows)
        self._cells = {m: cells for m, cells in self._cells.items() if m in self._spans}
        self.rows = self._sorted_rows()
        self.row_of = {key: n for n, key in enumerate(self.rows)}

    def cells(self, row: int) -> Cells:
        """What row `row` shows (worked out on first use, kept until an edit of its mapping)."""
        return self._cells_of(self.rows[row])

    def _cells_of(self, key: tuple[str, str]) -> Cells:
        mapping_id, column = key
        by_column = self._cells.get(mapping_id)
        if by_column is None:  # every row of the mapping at once: one lookup of it
            mapping = self.document.model.mapping(mapping_id)
            first, last = self._spans.get(mapping_id, (0, -1))
            by_column = self._cells[mapping_id] = {
                c: _cells(mapping_id, c, mapping.columns.get(c) if mapping else None)
                for _m, c in self._model_rows[first:last + 1]}
        found = by_column.get(column)
        if found is None:  # a row the mapping gained since (a column added to its target)
            mapping = self.document.model.mapping(mapping_id)
            found = by_column[column] = _cells(mapping_id, column, mapping.columns.get(column) if mapping else None)
        return found

    # --- sorting ---------------------------------------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by `column` (-1: the model's order), stably (equal cells keep the model's order), as a header
        click asks; rows selected stay selected. One key per row, so thousands of rows sort in milliseconds."""
        if (column, order) == self.sorted_by:  # QTableView.sortByColumn asks twice
            return
        self.sorted_by = (column, order)
        self._show_sorted()

    def _show_sorted(self) -> None:
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        held = [self.rows[i.row()] if i.row() < len(self.rows) else None for i in persistent]
        self.rows = self._sorted_rows()
        self.row_of = {key: n for n, key in enumerate(self.rows)}
        if persistent:
            self.changePersistentIndexList(persistent, [
                self.index(self.row_of[key], i.column()) if key in self.row_of else QModelIndex()
                for i, key in zip(persistent, held, strict=True)])
        self.layoutChanged.emit()

    def _sorted_rows(self) -> list[tuple[str, str]]:
        column, order = self.sorted_by
        if not 0 <= column < len(HEADERS):
            return list(self._model_rows)
        with collector_paused():  # the first sort by method or inputs works out every row's cells
            texts = [key[column] for key in self._model_rows] if column in (MAPPING, TARGET) \
                else [self._cells_of(key).texts[column] for key in self._model_rows]
        at = sorted(range(len(texts)), key=texts.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        return [self._model_rows[n] for n in at]

    def _in_place(self, row: int) -> bool:
        """Whether row `row` still sorts between its neighbours."""
        return (row == 0 or self._before(row - 1, row)) and (row == len(self.rows) - 1 or self._before(row, row + 1))

    def _before(self, a: int, b: int) -> bool:
        column, order = self.sorted_by
        text_a, text_b = self.cells(a).texts[column], self.cells(b).texts[column]
        if text_a != text_b:
            return (text_a < text_b) != (order == Qt.SortOrder.DescendingOrder)
        return self._rank[self.rows[a]] < self._rank[self.rows[b]]

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
        return self.cells(row).method

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not index.isValid() or row >= len(self.rows):
            return None
        if role in TEXT_ROLES:
            return self.cells(row).texts[index.column()]
        if role == SEARCH_ROLE:
            return self.cells(row).search
        if role == TOOLTIP_ROLE:
            method = self.cells(row).method
            return plain_tip(f"{self.rows[row][1]} = {describe(method)}") if method is not None else None
        if role == FOREGROUND_ROLE and index.column() == METHOD:
            return Qt.GlobalColor.gray if self.cells(row).method is None else None
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
        return cmd.AuthoringCommand(self.document, au.insert_method(self.document.model, mapping_id, column, kind),
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
        elif kind_of(method).inputs == "none":
            raise au.AuthoringError(f"{method.method} has no inputs: set its parameters in the properties panel")
        elif len(names) == 1:
            fields = {"input": names[0]}
        else:
            raise au.AuthoringError(f"{method.method} takes one input")
        try:
            edits = au.set_method_fields(self.document.model, mapping_id, column, (), **fields)
        except ValidationError as exc:
            raise refusal(exc) from None
        return cmd.AuthoringCommand(self.document, edits, f"Inputs of {column}")


class GridFilterProxy(QSortFilterProxyModel):
    """The grid's search (rows with a cell containing the text, ignoring case: one read of the row's kept text,
    none while the search is empty) and its sorting, which is the grid model's."""

    def __init__(self, source: MappingGridModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self.setSourceModel(source)
        self.setFilterRole(SEARCH_ROLE)
        self.setFilterKeyColumn(MAPPING)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def set_text(self, text: str) -> None:
        with collector_paused():  # the first search works out every row's cells
            self.setFilterFixedString(text)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._source.sort(column, order)


class MappingGrid(QWidget):
    """The grid with a search line over every cell."""

    sig_selected = Signal(tuple)  # ("link", mapping, column)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.model = MappingGridModel(document)
        self.proxy = GridFilterProxy(self.model, self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search mappings, columns, methods…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.proxy.set_text)
        self.view = GridView()
        self.view.setModel(self.proxy)
        # rows start in the model's order: a click on a header sorts
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.clicked.connect(self._clicked)
        self.model.modelReset.connect(self._fit_columns)
        self._fit_columns()
        self.problem = plain_label()
        self.problem.setStyleSheet("color: #d32f2f")
        self.model.sig_problem.connect(self.problem.setText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.view)
        layout.addWidget(self.problem)

    def _fit_columns(self) -> None:
        """The Mapping and Target column as wide as their longest text (a mapping's id is never elided), up to
        `MAX_FIT` pixels: measured once per distinct text when the rows change, not per row painted."""
        metrics = self.view.fontMetrics()
        margin = 2 * (self.view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.view) + 1) + 8
        header = self.view.horizontalHeader()
        for column, texts in ((MAPPING, {m for m, _c in self.model.rows}), (TARGET, {c for _m, c in self.model.rows})):
            widest = max((metrics.horizontalAdvance(t) for t in texts), default=0) + margin
            self.view.setColumnWidth(column, min(MAX_FIT, max(widest, header.sectionSizeHint(column))))

    def _clicked(self, index: QModelIndex) -> None:
        mapping_id, column = self.model.rows[self.proxy.mapToSource(index).row()]
        self.sig_selected.emit(("link", mapping_id, column))
