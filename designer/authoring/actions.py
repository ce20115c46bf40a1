"""Authoring gestures: what the tree's and the canvas's context menus and the Edit menu offer for a selection.

`AuthoringActions` asks for what a gesture needs (a dialog, unless the
caller passes the values: tests and scripts do), makes the command and
pushes it. A change the engine refuses is reported through `sig_problem`
(and a message box when the window may ask), never applied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QMenu, QMessageBox, QWidget

from designer.authoring import commands as cmd
from designer.authoring.dialogs import MappingDialog, ServerDialog, TableDialog, WhereDialog
from designer.document import Document
from designer.labels import ask_item, ask_text, menu_text, message
from designer.slots import bound
from engine.authoring import nativetypes
from engine.rules.nativetypes import UNCHECKED

Ref = tuple[Any, ...]
MAPPING_REFS = ("mapping", "link", "method", "reverse")


def _accepted(dialog: QDialog) -> bool:
    """Run a dialog; it is deleted once control returns to the event loop (its values are read before)."""
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    dialog.deleteLater()
    return accepted


def mapping_of(ref: Ref) -> str | None:
    return str(ref[1]) if ref and ref[0] in MAPPING_REFS else None


def table_of(ref: Ref) -> str | None:
    return str(ref[1]) if ref and ref[0] in ("table", "column") else None


class AuthoringActions(QObject):
    sig_problem = Signal(str)  # why a change was not made
    sig_select = Signal(tuple)  # the ref of what a change made (a new table, a new mapping)

    def __init__(self, document_of: Callable[[], Document], parent: QWidget, ask: bool = True) -> None:
        super().__init__(parent)
        self.document_of, self.parent_widget, self.ask = document_of, parent, ask

    @property
    def document(self) -> Document:
        return self.document_of()

    def run(self, build: Callable[[], cmd.AuthoringCommand]) -> bool:
        """Make the command (reporting a refusal) and push it; True when the model changed."""
        try:
            command = build()
        except ValueError as exc:  # an AuthoringError, or a value no model file may hold (UnloadableValue)
            self.sig_problem.emit(str(exc))
            if self.ask:
                message(self.parent_widget, QMessageBox.Icon.Warning, "Not applied", str(exc))
            return False
        return cmd.push(self.document, command)

    def _text(self, title: str, label: str, current: str = "") -> str | None:
        if not self.ask:
            return None
        text = ask_text(self.parent_widget, title, label, current)
        return text.strip() if text and text.strip() else None

    def _choice(self, title: str, label: str, items: list[str]) -> str | None:
        if not self.ask or not items:
            return None
        return ask_item(self.parent_widget, title, label, items)

    # --- servers ---------------------------------------------------------------------------------------------

    def add_server(self, values: dict[str, Any] | None = None) -> bool:
        if values is None and self.ask:
            dialog = ServerDialog(self.document.model, parent=self.parent_widget)
            values = dialog.values() if _accepted(dialog) else None
        if not values:
            return False
        v = dict(values)
        return self.run(lambda: cmd.AddServer(self.document, v.pop("id"), v.pop("dbms"), **v))

    def edit_server(self, server_id: str, values: dict[str, Any] | None = None) -> bool:
        if values is None and self.ask:
            dialog = ServerDialog(self.document.model, self.document.model.server(server_id), self.parent_widget)
            values = dialog.values() if _accepted(dialog) else None
        return bool(values) and self.run(lambda: cmd.EditServer(self.document, server_id, **(values or {})))

    def remove_server(self, server_id: str) -> bool:
        return self.run(lambda: cmd.RemoveServer(self.document, server_id))

    # --- tables ----------------------------------------------------------------------------------------------

    def add_table(self, server_id: str | None = None, name: str | None = None,
                  columns: list[dict[str, Any]] | None = None, primary_key: list[str] | None = None) -> bool:
        if name is None and self.ask:
            dialog = TableDialog(self.document.model, server_id, self.parent_widget)
            if not _accepted(dialog):
                return False
            values = dialog.values()
            server_id, name = values["server_id"], values["name"]
            columns, primary_key = values["columns"], values["primary_key"]
        if not name or not server_id:
            return False
        done = self.run(lambda: cmd.AddTable(self.document, str(server_id), str(name), columns, primary_key))
        if done:
            self.sig_select.emit(("table", f"{server_id}.{name}"))
        return done

    def remove_table(self, key: str) -> bool:
        return self.run(lambda: cmd.RemoveTable(self.document, key))

    def replicate_table(self, key: str, server_id: str | None = None, name: str | None = None) -> bool:
        table = self.document.model.table(key)
        if table is None:
            return False
        server_id = server_id or self._choice("Replicate table", f"Replicate {key} to server:",
                                              [s.id for s in self.document.model.servers if s.id != table.server])
        if not server_id:
            return False
        if name is None and self.document.model.table(f"{server_id}.{table.name}") is not None and self.ask:
            name = self._text("Replicate table", f"{server_id} already has a table {table.name}. Name of the copy:",
                              f"{table.name}_COPY")
            if name is None:
                return False
        done = self.run(lambda: cmd.ReplicateTable(self.document, key, str(server_id), name))
        if done:
            self.sig_select.emit(("table", f"{server_id}.{name or table.name}"))
        return done

    def convert_types(self, key: str) -> bool:
        """Give each column of `key` whose type is another DBMS's (TY006) its server's own type: one undo step."""
        doc = self.document

        def build() -> cmd.AuthoringCommand:
            edits = nativetypes.convert_table_types(doc.model, key)
            return cmd.AuthoringCommand(doc, edits, f"Convert types of {key} to {nativetypes.dbms_of(doc.model, key)}")
        return self.run(build)

    def _convert_entry(self, menu: QMenu, key: str) -> None:
        """"Convert types to <DBMS>" for a table on a checked DBMS; enabled where a column has a type to take."""
        try:
            dbms = nativetypes.dbms_of(self.document.model, key)
            edits = nativetypes.convert_table_types(self.document.model, key) if dbms not in UNCHECKED else []
        except ValueError:  # an unknown table or server: nothing to convert
            return
        if dbms not in UNCHECKED:
            entry = menu.addAction(f"Convert types to {menu_text(dbms)}", lambda: self.convert_types(key))
            entry.setEnabled(bool(edits))

    # --- columns ---------------------------------------------------------------------------------------------

    def add_column(self, key: str, name: str | None = None, type_: str = "VARCHAR(40)",
                   after: str | None = None) -> bool:
        table = self.document.model.table(key)
        if table is None:
            return False
        if name is None:
            n = len(table.columns) + 1
            while table.column(f"COLUMN_{n}") is not None:
                n += 1
            name = f"COLUMN_{n}"
        names = table.column_names()
        position = names.index(after) + 1 if after in names else None
        done = self.run(lambda: cmd.AddColumn(self.document, key, str(name), type_, position=position))
        if done:
            self.sig_select.emit(("column", key, name))
        return done

    def remove_column(self, key: str, column: str) -> bool:
        return self.run(lambda: cmd.RemoveColumn(self.document, key, column))

    def move_column(self, key: str, column: str, delta: int) -> bool:
        return self.run(lambda: cmd.MoveColumn(self.document, key, column, delta))

    # --- mappings --------------------------------------------------------------------------------------------

    def new_mapping(self, source: str, target: str | None = None, mapping_id: str | None = None,
                    auto: bool = True) -> str | None:
        """A new mapping from `source` (to `target`, asked for when not given); its id, or None."""
        if target is None and self.ask:
            dialog = MappingDialog(self.document.model, source, self.parent_widget)
            if not _accepted(dialog):
                return None
            values = dialog.values()
            target, mapping_id, auto = values["target"], values["mapping_id"], values["auto"]
        if target is None:
            return None
        made: list[cmd.NewMapping] = []

        def build() -> cmd.AuthoringCommand:
            made.append(cmd.NewMapping(self.document, source, str(target), mapping_id, auto))
            return made[0]
        if not self.run(build):
            return None
        self.sig_select.emit(("mapping", made[0].mapping_id))
        return made[0].mapping_id

    def auto_map(self, mapping_id: str) -> bool:
        done = self.run(lambda: cmd.AutoMap(self.document, mapping_id))
        if not done:
            self.sig_problem.emit(f"{mapping_id}: no unmapped target column has a source column of its name")
        return done

    def remove_mapping(self, mapping_id: str) -> bool:
        return self.run(lambda: cmd.RemoveMapping(self.document, mapping_id))

    def add_reverse(self, mapping_id: str, back_id: str | None = None) -> bool:
        return self.run(lambda: cmd.AddReverse(self.document, mapping_id, back_id))

    def edit_where(self, mapping_id: str, where: str | None = None, clear: bool = False) -> bool:
        """Set a mapping's `where` (`clear` removes it); with neither, the multi-line editor asks."""
        if where is None and not clear:
            if not self.ask:
                return False
            dialog = WhereDialog(self.document.model, mapping_id, self.parent_widget)
            if not _accepted(dialog):
                return False
            where = dialog.value()
        return self.run(lambda: cmd.SetWhere(self.document, mapping_id, where))

    # --- by selection ----------------------------------------------------------------------------------------

    def rename(self, ref: Ref, new: str | None = None) -> bool:
        """Rename what `ref` names (a server, table, column or mapping), every reference following."""
        if not ref or ref[0] not in ("server", "table", "column", *MAPPING_REFS):
            return False
        doc = self.document
        table = doc.model.table(str(ref[1])) if ref[0] == "table" else None
        if ref[0] == "table" and table is None:
            return False
        # a table by its own name, never by splitting its key: a server id from an older file may hold a dot
        current = str(ref[2]) if ref[0] == "column" else table.name if table is not None else str(ref[1])
        new = new or self._text("Rename", f"New name for {current}:", current)
        if not new:
            return False
        if ref[0] == "server":
            return self.run(lambda: cmd.RenameServer(doc, str(ref[1]), str(new)))
        if table is not None:
            made: list[cmd.AuthoringCommand] = []

            def build() -> cmd.AuthoringCommand:
                made.append(cmd.RenameTable(doc, table.key, str(new)))
                return made[0]
            done = self.run(build)
            renamed = next((e.after.key for e in made[0].edits if e.kind == "table" and e.after is not None
                            and e.before is not None and e.before.key == table.key), None) if done else None
            if renamed is not None:
                self.sig_select.emit(("table", renamed))
            return done
        if ref[0] == "column":
            return self.run(lambda: cmd.RenameColumn(doc, str(ref[1]), str(ref[2]), str(new)))
        return self.run(lambda: cmd.RenameMapping(doc, str(ref[1]), str(new)))

    def remove(self, ref: Ref) -> bool:
        if not ref:
            return False
        if ref[0] == "server":
            return self.remove_server(str(ref[1]))
        if ref[0] == "table":
            return self.remove_table(str(ref[1]))
        if ref[0] == "column":
            return self.remove_column(str(ref[1]), str(ref[2]))
        if ref[0] in ("link", "method"):  # a column map is selected: it goes, not its whole mapping
            return self.run(lambda: cmd.SetMethod(self.document, str(ref[1]), str(ref[2]), None))
        if ref[0] in MAPPING_REFS:
            return self.remove_mapping(str(ref[1]))
        return False

    def fill_menu(self, menu: QMenu, ref: Ref) -> None:
        """Add what applies to `ref` (a tree or canvas selection; () or ("canvas",): nothing selected)."""
        model = self.document.model
        kind = ref[0] if ref else ""
        if not menu.isEmpty():
            menu.addSeparator()
        if kind == "server":
            sid = str(ref[1])
            menu.addAction("Add table…", lambda: self.add_table(sid))
            menu.addAction("Edit server…", lambda: self.edit_server(sid))
            menu.addAction("Rename…", lambda: self.rename(ref))
            menu.addAction(f"Remove server {menu_text(sid)}", lambda: self.remove_server(sid))
        elif kind in ("table", "column"):
            key = str(ref[1])
            table = model.table(key)
            column = str(ref[2]) if kind == "column" else None
            menu.addAction("Add column", lambda: self.add_column(key, after=column))
            if column:
                menu.addAction(f"Rename column {menu_text(column)}…", lambda: self.rename(ref))
                menu.addAction("Move column up", lambda: self.move_column(key, str(column), -1))
                menu.addAction("Move column down", lambda: self.move_column(key, str(column), 1))
                menu.addAction(f"Remove column {menu_text(column)}", lambda: self.remove_column(key, str(column)))
                menu.addSeparator()
            menu.addAction(f"Rename table {menu_text(key)}…", lambda: self.rename(("table", key)))
            menu.addAction(f"Remove table {menu_text(key)}", lambda: self.remove_table(key))
            others = [s.id for s in model.servers if table is None or s.id != table.server]
            replicate = menu.addMenu("Replicate to…")
            for sid in others:
                replicate.addAction(menu_text(sid), bound(self.replicate_table, key, sid))
            replicate.setEnabled(bool(others))
            self._convert_entry(menu, key)
            targets = [t.key for t in model.tables if t.key != key]
            to = menu.addMenu("New mapping to…")
            for target in targets:
                to.addAction(menu_text(target), bound(self.new_mapping, key, target))
            to.setEnabled(bool(targets))
        elif kind in MAPPING_REFS:
            mid = str(ref[1])
            mapping = model.mapping(mid)
            menu.addAction("Auto-map by name", lambda: self.auto_map(mid))
            menu.addAction("Edit where…", lambda: self.edit_where(mid))
            back = menu.addAction("Add mapping back (reverse)", lambda: self.add_reverse(mid))
            back.setEnabled(mapping is not None and not mapping.reverse)
            menu.addAction(f"Rename mapping {menu_text(mid)}…", lambda: self.rename(("mapping", mid)))
            menu.addAction(f"Remove mapping {menu_text(mid)}", lambda: self.remove_mapping(mid))
        if not menu.isEmpty():
            menu.addSeparator()
        menu.addAction("Add server…", lambda: self.add_server())
        if model.servers and kind != "server":
            menu.addAction("Add table…", lambda: self.add_table())


SHORTCUTS = {"Rename…": "F2", "Add column": "Ctrl+Shift+C", "New mapping to…": "Ctrl+Shift+M"}
EDIT_MENU = ("Add server…", "Add table…", "Add column", "Rename…", "Remove", "Replicate to…", "New mapping to…",
             "Auto-map by name", "Edit where…")


class EditMenuEntries:
    """The authoring entries of the Edit menu; `update()` enables them for the current selection."""

    def __init__(self, actions: dict[str, QAction], update: Callable[[], None]) -> None:
        self.actions, self.update = actions, update


def install_edit_menu(menu: QMenu, actions: AuthoringActions, current: Callable[[], Ref]) -> EditMenuEntries:
    """The authoring entries of the Edit menu, acting on the current selection; enabled as they apply
    (when the menu opens and whenever the caller says the selection changed)."""
    def table_key() -> str | None:
        return table_of(current())

    def replicate() -> None:
        key = table_key()
        if key:
            actions.replicate_table(key)

    def new_mapping() -> None:
        key = table_key()
        if key:
            actions.new_mapping(key)

    def on_mapping(do: Callable[[str], object]) -> Callable[[], None]:
        def slot() -> None:
            mid = mapping_of(current())
            if mid:
                do(mid)
        return slot

    def add_table() -> None:
        ref = current()
        actions.add_table(str(ref[1]) if ref and ref[0] == "server" else None)

    def add_column() -> None:
        ref = current()
        key = table_key()
        if key:
            actions.add_column(key, after=str(ref[2]) if ref[0] == "column" else None)

    slots: dict[str, Callable[[], object]] = {
        "Add server…": lambda: actions.add_server(), "Add table…": add_table, "Add column": add_column,
        "Rename…": lambda: actions.rename(current()), "Remove": lambda: actions.remove(current()),
        "Replicate to…": replicate, "New mapping to…": new_mapping,
        "Auto-map by name": on_mapping(actions.auto_map), "Edit where…": on_mapping(actions.edit_where)}
    menu.addSeparator()
    made: dict[str, QAction] = {}
    for text in EDIT_MENU:
        action = QAction(text, menu)
        action.triggered.connect(slots[text])
        if text in SHORTCUTS:
            action.setShortcut(SHORTCUTS[text])
        menu.addAction(action)
        made[text] = action

    def update() -> None:
        ref = current()
        kind = ref[0] if ref else ""
        has_servers = bool(actions.document.model.servers)
        enabled = {"Add server…": True, "Add table…": has_servers, "Add column": table_key() is not None,
                   "Rename…": kind in ("server", "table", "column", *MAPPING_REFS),
                   "Remove": kind in ("server", "table", "column", *MAPPING_REFS),
                   "Replicate to…": table_key() is not None, "New mapping to…": table_key() is not None,
                   "Auto-map by name": mapping_of(ref) is not None, "Edit where…": mapping_of(ref) is not None}
        for text, action in made.items():
            action.setEnabled(enabled[text])
    menu.aboutToShow.connect(update)
    return EditMenuEntries(made, update)
