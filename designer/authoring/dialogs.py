"""Small dialogs for authoring: a server, a table, a name, a choice, and the `where` editor.

Each validates as the user types (the OK button is enabled only for a value
the engine would accept) and returns plain values; the caller makes the
command. Nothing here touches the model.
"""

from __future__ import annotations

from typing import Any, get_args

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from designer.labels import plain_label
from designer.values import OutOfRange, optional_number, value_text
from engine import authoring as au
from engine.model.schema import Dbms, Model, Server

DBMS_CHOICES: tuple[str, ...] = get_args(Dbms)
ERROR_STYLE = "color: #d32f2f"


class _Form(QDialog):
    """A dialog with a form, an inline problem line and OK/Cancel; subclasses say what is wrong in `problem()`."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.problem_label = plain_label(wrap=True)
        self.problem_label.setStyleSheet(ERROR_STYLE)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._ordered = False  # the Tab order is set once, when first shown (the fields are made by then)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)

    def problem(self) -> str | None:
        return None

    def showEvent(self, event: QShowEvent) -> None:
        """Tab goes through the fields in the order shown, then OK and Cancel; the first field has the focus. (The
        buttons are made before a subclass's fields, so Qt's own order started on OK, ahead of every field.)"""
        if not self._ordered:
            self._ordered = True
            chain = [*self._fields(), *self.buttons.buttons()]
            for first, second in zip(chain, chain[1:], strict=False):
                QWidget.setTabOrder(first, second)
            if chain:
                chain[0].setFocus(Qt.FocusReason.TabFocusReason)
        super().showEvent(event)

    def _fields(self) -> list[QWidget]:
        """The form's fields that take the keyboard, top to bottom."""
        out: list[QWidget] = []
        for row in range(self.form.rowCount()):
            for role in (QFormLayout.ItemRole.FieldRole, QFormLayout.ItemRole.SpanningRole):
                item = self.form.itemAt(row, role)
                widget = item.widget() if item is not None else None
                if widget is not None and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
                    out.append(widget)
        return out

    def check(self, *_: object) -> None:
        problem = self.problem()
        self.problem_label.setText(problem or "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)


class ServerDialog(_Form):
    """Add a server, or edit one (id, DBMS, priority, float format)."""

    def __init__(self, model: Model, server: Server | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Edit server" if server else "Add server", parent)
        self.model, self.server = model, server
        self.id = QLineEdit(server.id if server else "")
        self.dbms = QComboBox()
        self.dbms.addItems(list(DBMS_CHOICES))
        self.dbms.setCurrentText(server.dbms if server else "oracle")
        self.priority = QLineEdit(value_text(server.priority) if server else "")
        self.priority.setPlaceholderText("none (needed by site_priority)")
        self.float_format = QLineEdit(server.float_format or "" if server else "")
        self.float_format.setPlaceholderText("ieee, ibm-hex, vax… (optional)")
        for label, widget in (("id", self.id), ("DBMS", self.dbms), ("priority", self.priority),
                              ("float format", self.float_format)):
            self.form.addRow(label, widget)
        for line in (self.priority, self.float_format):  # the hint in the field is read whole, not cut off
            line.setMinimumWidth(line.fontMetrics().horizontalAdvance(line.placeholderText()) + 24)
        self.hint = plain_label("Priority: a number, needed when a conflict chain resolves by site_priority. Float "
                                "format: how the server stores floating-point numbers (optional).", wrap=True)
        self.hint.setObjectName("serverHint")
        self.form.addRow(self.hint)
        for line in (self.id, self.priority):
            line.textChanged.connect(self.check)
        self.check()

    def problem(self) -> str | None:
        sid = self.id.text().strip()
        if not sid:
            return "a server needs an id"
        if "." in sid or any(ch.isspace() for ch in sid):  # as Add server refuses it (a tab is a space too)
            return "a server id cannot hold a dot or a space"
        if self.model.server(sid) is not None and (self.server is None or sid != self.server.id):
            return f"a server {sid!r} already exists"
        try:
            self.priority_value()
        except OutOfRange as exc:  # 1e999, an integer of 39 digits: no model file may hold it
            return f"priority: {exc}"
        except ValueError as exc:  # words, inf, nan
            return f"priority is {exc}"
        return None

    def priority_value(self) -> int | float | None:
        return optional_number(self.priority.text())

    def values(self) -> dict[str, Any]:
        return {"id": self.id.text().strip(), "dbms": self.dbms.currentText(), "priority": self.priority_value(),
                "float_format": self.float_format.text().strip() or None}


class TableDialog(_Form):
    """Add a table: its server and name, and optionally a first key column."""

    def __init__(self, model: Model, server_id: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Add table", parent)
        self.model = model
        self.server = QComboBox()
        self.server.addItems([s.id for s in model.servers])
        if server_id:
            self.server.setCurrentText(server_id)
        self.name = QLineEdit()
        self.with_id = QCheckBox("start with a primary key column ID INTEGER NOT NULL")
        self.form.addRow("server", self.server)
        self.form.addRow("name", self.name)
        self.form.addRow("", self.with_id)
        self.name.textChanged.connect(self.check)
        self.server.currentTextChanged.connect(self.check)
        self.check()

    def problem(self) -> str | None:
        name = self.name.text().strip()
        if not self.server.currentText():
            return "add a server first"
        if not name:
            return "a table needs a name"
        if "." in name or any(ch.isspace() for ch in name):  # as Add table refuses it
            return "a table name cannot hold a dot or a space"
        if self.model.table(f"{self.server.currentText()}.{name}") is not None:
            return f"{self.server.currentText()} already has a table {name}"
        return None

    def values(self) -> dict[str, Any]:
        with_id = self.with_id.isChecked()
        return {"server_id": self.server.currentText(), "name": self.name.text().strip(),
                "columns": [{"name": "ID", "type": "INTEGER", "nullable": False}] if with_id else [],
                "primary_key": ["ID"] if with_id else []}


class WhereDialog(_Form):
    """A multi-line `where` editor that checks as you type: MP003's message is shown inline."""

    def __init__(self, model: Model, mapping_id: str, parent: QWidget | None = None) -> None:
        super().__init__(f"Where clause of {mapping_id}", parent)
        self.model, self.mapping_id = model, mapping_id
        mapping = model.mapping(mapping_id)
        self.text = QPlainTextEdit(mapping.where or "" if mapping else "")
        self.text.setPlaceholderText("Spark SQL over the source columns, e.g. STATUS <> 'void' (empty: every row)")
        source = model.table(mapping.source) if mapping else None
        self.form.addRow(plain_label(f"columns of {mapping.source if mapping else '?'}: "
                                     f"{', '.join(source.column_names()) if source else 'unknown table'}",
                                     wrap=True))
        self.form.addRow(self.text)
        self.text.textChanged.connect(self.check)
        self.resize(520, 260)
        self.check()

    def problem(self) -> str | None:
        problems = au.where_problems(self.model, self.mapping_id, self.text.toPlainText())
        return f"MP003: {problems[0]}" if problems else None

    def check(self, *_: object) -> None:
        # a where that does not parse may still be saved (it is a finding, not a load error), so OK stays on
        super().check()
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)

    def value(self) -> str | None:
        return self.text.toPlainText().strip() or None


class MappingDialog(_Form):
    """New mapping from a table: the target table, an id, and whether to auto-map columns by name."""

    def __init__(self, model: Model, source: str, parent: QWidget | None = None) -> None:
        super().__init__(f"New mapping from {source}", parent)
        self.model, self.source = model, source
        self.target = QComboBox()
        self.target.addItems([t.key for t in model.tables if t.key != source])
        self.id = QLineEdit()
        self.id.setPlaceholderText("automatic")
        self.auto = QCheckBox("auto-map columns by name")
        self.auto.setChecked(True)
        for label, widget in (("to table", self.target), ("id", self.id), ("", self.auto)):
            self.form.addRow(label, widget)
        self.id.textChanged.connect(self.check)
        self.check()

    def problem(self) -> str | None:
        if not self.target.currentText():
            return "there is no other table to map to"
        mid = self.id.text().strip()
        if mid and self.model.mapping(mid) is not None:
            return f"a mapping {mid!r} already exists"
        return None

    def values(self) -> dict[str, Any]:
        return {"target": self.target.currentText(), "mapping_id": self.id.text().strip() or None,
                "auto": self.auto.isChecked()}
