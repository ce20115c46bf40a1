"""Turns canvas gestures into undoable edits (through `engine.authoring`), and builds context menus."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from designer.canvas.scene import MappingScene
from designer.document import Document
from designer.labels import menu_text
from designer.slots import bound
from engine import authoring as au
from engine.edits import Edit, chain, set_setting
from engine.keys import distribution_key
from engine.methods import INSERTABLE
from engine.model.schema import Model


class CanvasController(QObject):
    def __init__(self, document: Document, scene: MappingScene, parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self.document, self.scene, self.parent_widget = document, scene, parent_widget
        self.extra_menu: Callable[[QMenu, tuple[Any, ...]], None] | None = None  # more entries (authoring)
        scene.sig_link_requested.connect(self.connect_columns)
        scene.sig_input_requested.connect(self.add_input)
        scene.sig_tables_moved.connect(self.move_tables)
        scene.sig_context_requested.connect(self.show_menu)

    @property
    def model(self) -> Any:
        return self.document.model

    def connect_columns(self, source: str, source_col: str, target: str, target_col: str) -> None:
        edits = au.connect_columns(self.model, source, source_col, target, target_col)
        if not edits:
            self.scene.sig_refused.emit(f"Not mapped: {source}.{source_col} to {target}.{target_col}")
        self.document.apply(edits, f"Map {source}.{source_col} to {target}.{target_col}")

    def add_input(self, mapping: str, column: str, path: tuple[int, ...], source_col: str) -> None:
        edits = au.add_method_input(self.model, mapping, column, tuple(path), source_col)
        if not edits:
            self.scene.sig_refused.emit(f"Not wired: the method on {column} takes no input column")
        self.document.apply(edits, f"Wire {source_col} into {column}")

    def move_tables(self, moves: list[tuple[str, float, float]], text: str | None = None) -> None:
        """Move tables, as one edit of the layout: each move is the whole layout, so a thousand tables dragged
        together (or laid out) are not a thousand copies of it on the undo stack."""
        edits = chain(self.model, *[lambda m, k=k, x=x, y=y: au.move_table(m, k, x, y) for k, x, y in moves])
        if not edits:
            return
        text = text or ("Move table" if len(moves) == 1 else f"Move {len(moves)} tables")
        self.document.apply(set_setting(self.model, "layout", edits[-1].after), text)

    def insert_method(self, mapping: str, column: str, kind: str) -> None:
        self.document.apply(au.insert_method(self.model, mapping, column, kind), f"Insert {kind} on {column}")
        # show the new node in the properties panel: its parameters, and a concat's inputs to reorder
        self.scene.sig_selected.emit(("method", mapping, column, ()))

    def toggle_dkey(self, mapping: str, column: str) -> None:
        self.document.apply(au.toggle_dkey(self.model, mapping, column), f"Toggle distribution key {column}")

    def remove_map(self, mapping: str, column: str) -> None:
        self.document.apply(au.set_method(self.model, mapping, column, None), f"Remove map of {column}")

    def delete_table(self, key: str) -> None:
        self.document.apply(au.delete_table(self.model, key), f"Delete table {key}")

    def delete_selection(self) -> None:
        refs = [self.scene.ref_of(item, item.scenePos()) for item in self.scene.selectedItems()]
        maps = sorted({(r[1], r[2]) for r in refs if r and r[0] in ("link", "method")})
        tables = sorted({r[1] for r in refs if r and r[0] == "table"})
        steps: list[Callable[[Model], list[Edit]]] = [
            lambda m, a=a, c=c: au.set_method(m, a, c, None) for a, c in maps]  # type: ignore[misc]
        steps.append(lambda m: au.delete_tables(m, tables))  # all at once: one pass, however many tables
        self.document.apply(chain(self.model, *steps), "Delete")

    def show_menu(self, ref: tuple[Any, ...], at: QPoint) -> None:
        menu = self.menu_for(ref)
        if menu is not None and not menu.isEmpty():
            menu.exec(at)

    def menu_for(self, ref: tuple[Any, ...]) -> QMenu | None:
        menu = QMenu(self.parent_widget)
        kind = ref[0]
        if kind == "column":
            _, table, column = ref
            into = [m for m in self.model.mappings if m.target == table]
            for mapping in into:
                prefix = f"{menu_text(mapping.id)}: " if len(into) > 1 else ""
                insert = menu.addMenu(f"{prefix}Insert method")
                for method in INSERTABLE:
                    insert.addAction(method, bound(self.insert_method, mapping.id, column, method))
                key = distribution_key(self.model, mapping)
                action = QAction(f"{prefix}Distribution key", menu, checkable=True)
                action.setChecked(bool(key and column in key.columns))
                action.triggered.connect(lambda _=False, m=mapping.id: self.toggle_dkey(m, column))
                menu.addAction(action)
                if column in mapping.columns:
                    menu.addAction(f"{prefix}Remove column map", bound(self.remove_map, mapping.id, column))
        elif kind == "table" and self.extra_menu is None:  # the authoring entries include "Remove table"
            menu.addAction(f"Delete table {menu_text(str(ref[1]))}", lambda: self.delete_table(ref[1]))
        elif kind in ("link", "method"):
            menu.addAction(f"Remove map of {menu_text(str(ref[2]))}", lambda: self.remove_map(ref[1], ref[2]))
        if self.extra_menu is not None:
            self.extra_menu(menu, ref)
        return menu

