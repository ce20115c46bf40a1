"""The property inspector: the selected table, column, mapping or method node, as a form.

Each field commits on Enter or focus loss as one undoable edit; a value the
engine refuses (an unknown type, a bad number) is shown in red and not applied.
An edit of the entity shown updates its fields where they are (what has the
focus, the cursor and the scroll stay); only a form whose rows change is built
again. So every field's commit names its entity by key and reads it at commit
time, never a copy taken when the form was built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from designer.authoring import commands as cmd
from designer.authoring.columns import ColumnsEditor
from designer.authoring.dialogs import DBMS_CHOICES
from designer.authoring.selection import follow_ref
from designer.document import Document
from designer.fieldedit import FieldEdit, focus_spot, refocus
from designer.labels import form_row, plain_label, plain_tip
from designer.values import OutOfRange, optional_number, parse_integer, parse_like, parse_number, value_text
from engine import authoring as au
from engine.edits import Edit, evolve, replace
from engine.keys import distribution_key
from engine.model.methods import METHOD_CLASSES, MethodSpec
from engine.reversibility import describe

Ref = tuple[Any, ...]
SKIP_FIELDS = {"method", "input", "inputs"}
W = TypeVar("W", bound=QWidget)
COLUMNS = "columns grid"  # the focus spot of a table's columns editor
REFRESHED = {"server", "table", "column", "mapping", "method"}
"""The forms an edit of their entity updates in place."""


class _Misfit(Exception):
    """A form refreshed in place would have other rows than it has: it is built again."""


class Inspector(QScrollArea):
    sig_edit_where = Signal(str)  # a mapping id: open the multi-line where editor

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.ref: Ref = ()
        self.input_focus: int | None = None
        self.setWidgetResizable(True)
        self.error = plain_label(wrap=True)
        self.error.setStyleSheet("color: #d32f2f")
        self.fields: dict[str, QWidget] = {}
        self._rows: list[tuple[str, QWidget]] = []  # the form's rows, in order
        self._reuse: list[tuple[str, QWidget]] | None = None  # while refreshing: the rows to update
        self.rebuilds = 0  # forms built, for the tests and the curious
        self.columns: ColumnsEditor | None = None  # a table's columns grid, kept while the same table is shown
        document.sig_changed.connect(self._changed)
        self.show_ref(())

    def _changed(self, edits: list[Edit]) -> None:
        """Touch the form only when an edit names what it shows (or what that hangs on)."""
        ref = follow_ref(self.ref, edits)
        if ref != self.ref:
            self.show_ref(ref)
        elif any(self._shows(edit) for edit in edits):
            self.refresh()

    def refresh(self) -> None:
        """The entity shown was edited: its fields take their new values in place. A form whose rows would
        change (a mapping added into the column's table) is built again."""
        kind = self.ref[0] if self.ref else None
        builder = self._builder(kind)
        if kind not in REFRESHED or builder is None or not self._rows:
            self.show_ref(self.ref)
            return
        old = self._rows
        self._reuse, self._rows = old, []
        try:
            fits = builder(QFormLayout()) and len(self._rows) == len(old)
        except _Misfit:
            fits = False
        finally:
            self._reuse = None
        if fits:
            self.error.setText("")
        else:
            self.show_ref(self.ref)

    def _builder(self, kind: str | None) -> Callable[[QFormLayout], bool] | None:
        return {"table": self._table, "column": self._column, "mapping": self._mapping, "link": self._link,
                "reverse": self._mapping, "method": self._method, "server": self._server}.get(kind or "")

    def _shows(self, edit: Edit) -> bool:
        if not self.ref or edit.kind == "conflicts" or (edit.kind == "settings" and edit.key == "layout"):
            return False
        touched = edit.touched()
        if str(self.ref[1]) in touched or edit.kind == "settings":
            return True
        model = self.document.model
        if self.ref[0] in ("table", "column"):  # its distribution key comes from the mappings into it
            return edit.kind in ("mapping", "server") and any(
                getattr(e, "target", None) == self.ref[1] or getattr(e, "id", None) == self.ref[1].split(".")[0]
                for e in (edit.before, edit.after) if e is not None)
        mapping = model.mapping(str(self.ref[1]))
        return mapping is not None and edit.kind in ("table", "server") and bool(
            touched & {mapping.source, mapping.target, *(k.split(".")[0] for k in (mapping.source, mapping.target))})

    def show_ref(self, ref: Ref) -> None:
        spot = focus_spot(self._rows, {COLUMNS: self.columns})  # a rename builds the form again: the focus stays
        self.ref = tuple(ref)
        self.fields, self._rows = {}, []
        self.rebuilds += 1
        if self.columns is not None:
            self.columns.setParent(None)  # taken out of the old page, which is deleted below
        page = QWidget()
        outer = QVBoxLayout(page)
        self.title = plain_label(wrap=True)  # names a model's entity; the hint fits a narrow panel
        self.title.setStyleSheet("font-weight: bold")
        outer.addWidget(self.title)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addWidget(self.error)
        outer.addStretch(1)
        self.error.setText("")
        builder = self._builder(self.ref[0] if self.ref else None)
        if builder is None or not builder(form):
            self.title.setText("Select a table, column, mapping or method to see its properties.")
        if self.columns is not None and self.columns.parent() is None:
            self._drop_columns()
        old = self.takeWidget()
        self.setWidget(page)
        if old is not None:  # deleted once control is back in the event loop: a field of it may be the one whose
            old.hide()  # commit (on the focus loss of a Tab) rebuilt the form, still in its focusOutEvent
            old.deleteLater()
        refocus(spot, {**self.fields, COLUMNS: self.columns.view if self.columns is not None else None})

    def _drop_columns(self) -> None:
        if self.columns is not None:
            self.columns.deleteLater()
            self.columns = None

    def _server(self, form: QFormLayout) -> bool:
        server = self.document.model.server(self.ref[1])
        if server is None:
            return False
        self.title.setText(f"Server {server.id}")
        self._line(form, "id", server.id, lambda text: self._command(
            lambda: cmd.RenameServer(self.document, server.id, text)))
        self._combo(form, "DBMS", list(DBMS_CHOICES), server.dbms, lambda text: self._command(
            lambda: cmd.EditServer(self.document, server.id, dbms=text)))
        self._line(form, "priority", value_text(server.priority),
                   lambda text: self._command(lambda: cmd.EditServer(self.document, server.id,
                                                                     priority=_number(text, "priority"))))
        self._line(form, "float format", server.float_format or "", lambda text: self._command(
            lambda: cmd.EditServer(self.document, server.id, float_format=text.strip() or None)))
        tables = [t.name for t in self.document.model.tables if t.server == server.id]
        self._info(form, "tables", ", ".join(tables) or "none yet (right-click: Add table…)")
        return True

    # --- forms ---------------------------------------------------------------

    def _table(self, form: QFormLayout) -> bool:
        table = self.document.model.table(self.ref[1])
        if table is None:
            return False
        self.title.setText(f"Table {table.key}")
        self._line(form, "name", table.name, lambda text: self._command(
            lambda: cmd.RenameTable(self.document, table.key, text)))
        if self.columns is None or self.columns.key != table.key:
            self._drop_columns()
            self.columns = ColumnsEditor(self.document, table.key)
            self.columns.model.sig_problem.connect(self.error.setText)
        if self._reuse is None:
            form.addRow(self.columns)  # the same editor across edits: its selected row and scroll stay
        key = table.key
        self._line(form, "primary key", ", ".join(table.primary_key),
                   lambda text: self._replace("table", key, primary_key=_names(text)))
        self._line(form, "parent", table.parent or "",
                   lambda text: self._replace("table", key, parent=text.strip() or None))
        self._info(form, "columns", str(len(table.columns)))
        into = [m.id for m in self.document.model.mappings if m.target == table.key]
        self._info(form, "mapped from", ", ".join(into) or "nothing")
        return True

    def _column(self, form: QFormLayout) -> bool:
        _, key, name = self.ref
        table = self.document.model.table(key)
        col = table.column(name) if table else None
        if table is None or col is None:
            return False
        self.title.setText(f"Column {key}.{name}")
        self._line(form, "name", name, lambda text: self._command(
            lambda: cmd.RenameColumn(self.document, key, name, text)))

        def set_column(**changes: Any) -> None:
            now = self.document.model.table(key)
            if now is not None:
                columns = [c.model_dump() | (changes if c.name == name else {}) for c in now.columns]
                self._replace("table", key, columns=columns)

        fresh = self._reuse is None
        type_line = self._line(form, "type", col.type, lambda text: set_column(type=text.strip()))
        if fresh:
            type_line.textChanged.connect(lambda text: self.error.setText(
                f"{au.type_problem(text)}" if au.type_problem(text) else ""))
        self._check(form, "NOT NULL", not col.nullable, lambda on: set_column(nullable=not on))
        def set_default(text: str) -> None:
            now = self.document.model.table(key)
            column = now.column(name) if now else None
            try:
                default = parse_like(text, column.default if column else None) if text else None
            except OutOfRange as exc:
                self.error.setText(f"not applied: default: {exc}")
                return
            set_column(default=default)
        self._line(form, "default", value_text(col.default), set_default)

        def dkey_toggle(mapping_id: str) -> Callable[[bool], None]:
            return lambda _on: self.document.apply(au.toggle_dkey(self.document.model, mapping_id, name),
                                                   f"Toggle distribution key {name}")

        for mapping in (m for m in self.document.model.mappings if m.target == key):
            method = mapping.columns.get(name)
            self._info(form, mapping.id, describe(method) if method else "not mapped")
            dkey = distribution_key(self.document.model, mapping)
            self._check(form, "  distribution key", bool(dkey and name in dkey.columns), dkey_toggle(mapping.id))
        return True

    def _mapping(self, form: QFormLayout) -> bool:
        mapping = self.document.model.mapping(self.ref[1])
        if mapping is None:
            return False
        self.title.setText(f"Mapping {mapping.id}")
        self._info(form, "from → to", f"{mapping.source} → {mapping.target}")
        dkey = distribution_key(self.document.model, mapping)
        mid = mapping.id
        self._line(form, "distribution key", ", ".join(mapping.distribution_key or []),
                   lambda text: self._replace("mapping", mid, distribution_key=_names(text) or None),
                   placeholder=f"default: {', '.join(dkey.columns)}" if dkey else "none")
        self._line(form, "id", mapping.id, lambda text: self._command(
            lambda: cmd.RenameMapping(self.document, mapping.id, text)))
        where = self._line(form, "where", mapping.where or "",
                           lambda text: self._command(lambda: cmd.SetWhere(self.document, mapping.id, text)))
        multi_line = bool(mapping.where and "\n" in mapping.where)
        if self._reuse is None:
            where.textChanged.connect(lambda text: self.error.setText(
                "; ".join(f"MP003: {p}" for p in au.where_problems(self.document.model, mid, text))))
            edit_where = QPushButton("Edit where…")
            edit_where.clicked.connect(lambda: self.sig_edit_where.emit(mid))
            form.addRow("", edit_where)
        if multi_line:
            with QSignalBlocker(where):
                where.setText(" ".join((mapping.where or "").split()))
            where.shown = where.text()  # read-only: shown flattened, never committed so
        where.setReadOnly(multi_line)  # a one-line field would flatten it: the multi-line editor edits it
        where.setToolTip(plain_tip(mapping.where or "") if multi_line else "")
        choices = [""] + [m.id for m in self.document.model.mappings if m.id != mapping.id]
        self._combo(form, "reverse", choices, mapping.reverse or "",
                    lambda text: self._replace("mapping", mid, reverse=text or None))
        self._check(form, "journal", mapping.journal, lambda on: self._replace("mapping", mid, journal=on))
        self._check(form, "changed columns only", mapping.changed_columns_only,
                    lambda on: self._replace("mapping", mid, changed_columns_only=on))
        return True

    def _link(self, form: QFormLayout) -> bool:
        _, mapping_id, column = self.ref
        mapping = self.document.model.mapping(mapping_id)
        if mapping is None or column not in mapping.columns:
            return False
        self.title.setText(f"{mapping_id}: {column}")
        form.addRow("computed as", plain_label(describe(mapping.columns[column]), wrap=True))
        return True

    def _method(self, form: QFormLayout) -> bool:
        _, mapping_id, column, path = self.ref
        mapping = self.document.model.mapping(mapping_id)
        if mapping is None or column not in mapping.columns:
            return False
        node = au.node_at(mapping.columns[column].model_dump(mode="json"), tuple(path))
        if not isinstance(node, dict):
            return False
        self.title.setText(f"{node['method']} on {mapping_id}: {column}")
        if "inputs" in node:
            self._inputs(form, mapping_id, column, tuple(path), node["inputs"])
        cls = METHOD_CLASSES[node["method"]]
        for field in (f for f in cls.model_fields if f not in SKIP_FIELDS):
            value = node.get(field, cls.model_fields[field].default)

            def commit(text: str, field: str = field) -> None:
                now = self._node(mapping_id, column, tuple(path))
                self._apply(lambda: au.set_method_fields(
                    self.document.model, mapping_id, column, tuple(path),
                    **{field: _typed(text, field, now.get(field) if now else None)}), f"Set {field}")
            self._line(form, field, value_text(value), commit)
        return True

    def _node(self, mapping_id: str, column: str, path: tuple[int, ...]) -> dict[str, Any] | None:
        """The method node at `path` as the model holds it now (JSON form), or None."""
        mapping = self.document.model.mapping(mapping_id)
        if mapping is None or column not in mapping.columns:
            return None
        node = au.node_at(mapping.columns[column].model_dump(mode="json"), path)
        return node if isinstance(node, dict) else None

    def _inputs(self, form: QFormLayout, mapping_id: str, column: str, path: tuple[int, ...],
                inputs: list[Any]) -> None:
        """A multi-input method's inputs, in order, with Up and Down to reorder them."""
        self.inputs, fresh = self._row(form, "inputs", QListWidget)
        texts = [i if isinstance(i, str) else describe_json(i) for i in inputs]
        if [self.inputs.item(i).text() for i in range(self.inputs.count())] != texts:
            with QSignalBlocker(self.inputs):
                self.inputs.clear()
                self.inputs.addItems(texts)
        self.inputs.setMaximumHeight(24 * max(2, len(inputs)) + 8)
        if self.input_focus is not None and 0 <= self.input_focus < len(inputs):
            self.inputs.setCurrentRow(self.input_focus)
        if fresh:
            buttons = QHBoxLayout()
            for text, delta in (("Up", -1), ("Down", 1)):
                button = QPushButton(text)
                button.clicked.connect(lambda _=False, d=delta: self.move_input(mapping_id, column, path, d))
                buttons.addWidget(button)
            form.addRow("", buttons)

    def move_input(self, mapping_id: str, column: str, path: tuple[int, ...], delta: int) -> None:
        row = self.inputs.currentRow()
        if row < 0:
            return
        self.input_focus = row + delta
        self._command(lambda: cmd.MoveMethodInput(self.document, mapping_id, column, path, row, delta))

    def _command(self, build: Callable[[], cmd.AuthoringCommand]) -> None:
        try:
            command = build()
        except ValueError as exc:  # an AuthoringError, or a value no model file may hold (UnloadableValue)
            self.error.setText(f"not applied: {exc}")
            return
        cmd.push(self.document, command)

    # --- widgets -------------------------------------------------------------

    def _row(self, form: QFormLayout, label: str, kind: type[W]) -> tuple[W, bool]:
        """The form's next row: built (and True), or, while refreshing, the one it has (a `_Misfit` when
        that row is another)."""
        if self._reuse is None:
            widget = kind()
            form_row(form, label, widget)  # a row may be named after a mapping: never read as markup
            fresh = True
        else:
            at = len(self._rows)
            if at >= len(self._reuse) or self._reuse[at][0] != label or type(self._reuse[at][1]) is not kind:
                raise _Misfit(label)
            widget, fresh = self._reuse[at][1], False  # type: ignore[assignment]
        self._rows.append((label, widget))
        self.fields[label] = widget
        return widget, fresh

    def _line(self, form: QFormLayout, label: str, value: str, commit: Callable[[str], None],
              placeholder: str = "") -> FieldEdit:
        """A one-line field: Enter or focus loss commits a change of the value shown, Escape gives it back."""
        edit, fresh = self._row(form, label, FieldEdit)
        if fresh:
            def finished() -> None:
                if edit.changed():
                    commit(edit.text())
            edit.editingFinished.connect(finished)
        if fresh or edit.text() != value:
            with QSignalBlocker(edit):  # a value shown is no edit
                edit.setText(value)
        edit.setPlaceholderText(placeholder)
        edit.shown = value
        return edit

    def _check(self, form: QFormLayout, label: str, value: bool, commit: Callable[[bool], None]) -> QCheckBox:
        box, fresh = self._row(form, label, QCheckBox)
        with QSignalBlocker(box):
            box.setChecked(value)
        if fresh:
            box.toggled.connect(commit)
        return box

    def _combo(self, form: QFormLayout, label: str, choices: list[str], value: str,
               commit: Callable[[str], None]) -> QComboBox:
        combo, fresh = self._row(form, label, QComboBox)
        with QSignalBlocker(combo):
            if fresh or [combo.itemText(i) for i in range(combo.count())] != choices:
                combo.clear()
                combo.addItems(choices)
            combo.setCurrentText(value)
        if fresh:
            combo.currentTextChanged.connect(commit)
        return combo

    def _info(self, form: QFormLayout, label: str, text: str) -> QLabel:
        shown, fresh = self._row(form, label, QLabel)
        if fresh:
            shown.setTextFormat(Qt.TextFormat.PlainText)  # names, SQL and constants of the model
            shown.setWordWrap(True)
        if shown.text() != text:
            shown.setText(text)
        return shown

    def _replace(self, kind: str, key: str, **changes: Any) -> None:
        """Replace the table or mapping `key` (as the model holds it now) with `changes`."""
        entity = self.document.model.table(key) if kind == "table" else self.document.model.mapping(key)
        if entity is None:
            return
        self._apply(lambda: [replace(self.document.model, kind, entity, evolve(entity, **changes))],  # type: ignore[arg-type]
                    f"Edit {kind}")

    def _apply(self, build: Callable[[], list[Edit]], text: str) -> None:
        try:
            edits = build()
        except (ValidationError, ValueError) as exc:
            self.error.setText(_reason(exc))
            return
        self.document.apply(edits, text)


def _number(text: str, what: str) -> int | float | None:
    """An optional number as written: 40 stays the integer 40. `what` names the field in a refusal."""
    try:
        return optional_number(text)
    except OutOfRange as exc:
        raise au.AuthoringError(f"{what}: {exc}") from None
    except ValueError as exc:
        raise au.AuthoringError(str(exc)) from None


def describe_json(method: Any) -> str:
    """A method node in its JSON form, rendered as the canvas and tree render it."""
    return describe(_METHOD.validate_python(method))


_METHOD: TypeAdapter[Any] = TypeAdapter(MethodSpec)


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _typed(text: str, field: str, current: Any) -> Any:
    """A method field's text as its value: the integer fields as integers, a constant's value keeping the
    JSON type it has (a number stays a number, a string a string)."""
    if field in ("index", "start", "length"):
        return parse_integer(text, field)
    try:
        if field == "value" and current not in (None, ""):
            return parse_like(text, current)
        if field == "value":  # a constant not set yet: an integer written is an integer
            number = parse_number(text)
            return number if isinstance(number, int) else text
    except OutOfRange as exc:
        raise ValueError(f"{field}: {exc}") from None
    except ValueError:
        return text
    return text


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"] if not str(x).startswith("function"))
        return f"not applied: {where}: {err['msg']}"
    return f"not applied: {exc}"
