"""The conflict-resolution editor of one table (seed 003): column groups, their resolution chains,
unique-index methods, the `on_*` policies, compare-old flags and the scope.

Columns are dragged between groups (or moved with the context menu); the
ungrouped columns form the shadow group, which has no chain. Every change
is one undoable edit of the table's `conflicts` entry. Findings about the
table's settings (CR006 convergence warnings among them) show beside the chain.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QTableWidgetItem,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.authoring.selection import follow_ref
from designer.conflict_parts import GroupTree, narrow_form, proposed_column, quiet, reason, shrinking_combo
from designer.document import Document
from designer.gridview import GridWidget
from designer.labels import ask_text, form_row, plain_label
from designer.slots import bound
from designer.values import parse_number, value_text
from engine.edits import evolve, replace
from engine.model.schema import DESIGNATED_COLUMN_METHODS, ResolutionMethodName, TableConflicts
from engine.rules import Finding

SHADOW = "(shadow group: detected, never resolved)"
METHODS: tuple[str, ...] = ResolutionMethodName.__args__  # type: ignore[attr-defined]
POLICIES = {"on_insert_exists": ("error", "discard", "overwrite", "as_update"),
            "on_update_missing": ("error", "discard", "insert"), "on_delete_missing": ("error", "discard"),
            "scope": ("row", "transaction")}
UNIQUE = ("", "append_site_name", "append_sequence", "discard", "error")


class ConflictEditor(QWidget):
    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.table_key: str | None = None
        self.title = plain_label("Select a table to edit its conflict resolution.", wrap=True)
        self.title.setStyleSheet("font-weight: bold")
        self.enabled = QCheckBox("Resolve conflicts on this table")
        self.enabled.toggled.connect(self._toggle_enabled)
        self.groups = GroupTree(self.move_column)
        self.groups.setMinimumHeight(260)
        self.groups.currentItemChanged.connect(lambda *_: self._show_chain())
        add_group, remove_group = QPushButton("Add group"), QPushButton("Remove group")
        add_group.clicked.connect(lambda: self.add_group())
        remove_group.clicked.connect(self.remove_current_group)
        self.remove_group_button = remove_group
        self.chain = QListWidget()
        self.chain.setMinimumHeight(90)
        self.chain.currentRowChanged.connect(lambda _row: self._show_step())
        self.method_choice = shrinking_combo()
        self.method_choice.addItems(METHODS)
        add_step, drop_step, up, down = (QPushButton(t) for t in ("Add", "Remove", "Up", "Down"))
        # a chain belongs to a column group: with none (or the shadow group) picked they do nothing, so are off
        self.chain_buttons = {"add": add_step, "remove": drop_step, "up": up, "down": down}
        add_step.clicked.connect(lambda: self.add_method(self.method_choice.currentText()))
        drop_step.clicked.connect(self.remove_method)
        up.clicked.connect(lambda: self.move_method(-1))
        down.clicked.connect(lambda: self.move_method(1))
        self.designated = shrinking_combo()
        self.designated.activated.connect(lambda _i: self.set_designated(self.designated.currentText()))
        self.priorities = GridWidget(0, 2)
        self.priorities.setHorizontalHeaderLabels(["value", "priority"])
        self.priorities.itemChanged.connect(lambda _i: self._priorities_changed())
        self.warnings = plain_label(wrap=True)
        self.warnings.setStyleSheet("color: #b26a00")
        self.problem = plain_label(wrap=True)  # why the last change was not applied
        self.problem.setStyleSheet("color: #d32f2f")
        self.pending = plain_label(wrap=True)  # a priority-map row still being typed: not an error yet
        self.pending.setStyleSheet("color: palette(mid)")
        self.policies: dict[str, QComboBox] = {}
        self.uniques = narrow_form()
        self._unique_names: list[str] = []  # the unique indexes `uniques` has a row for, in order
        self.compare = QListWidget()
        self.compare.setMinimumHeight(160)
        self.compare.itemChanged.connect(self._compare_changed)
        self._build_layout(add_group, remove_group, add_step, drop_step, up, down)
        document.sig_changed.connect(self._changed)
        document.sig_findings.connect(lambda _f: self._show_warnings())
        self.refresh()

    def _build_layout(self, *buttons: QPushButton) -> None:
        add_group, remove_group, add_step, drop_step, up, down = buttons
        left = QVBoxLayout()
        left.addWidget(plain_label("Column groups (drag columns between groups)", wrap=True))
        left.addWidget(self.groups)
        row = QHBoxLayout()
        row.addWidget(add_group)
        row.addWidget(remove_group)
        left.addLayout(row)
        right = QVBoxLayout()
        right.addWidget(plain_label("Resolution chain: primary method, then backups", wrap=True))
        right.addWidget(self.chain)
        for widgets in ((self.method_choice, add_step), (drop_step, up, down)):  # two rows: a narrow dock fits them
            row = QHBoxLayout()
            for w in widgets:
                row.addWidget(w, 1 if w is self.method_choice else 0)
            right.addLayout(row)
        form = narrow_form()
        form.addRow("designated column", self.designated)
        right.addLayout(form)
        right.addWidget(self.priorities)
        right.addWidget(self.pending)
        right.addWidget(self.problem)
        right.addWidget(self.warnings)
        top = QVBoxLayout()  # stacked: the editor lives in a narrow dock
        top.addLayout(left, 1)
        top.addLayout(right, 1)
        policy_box = QGroupBox("Policies")
        policy_form = narrow_form()
        policy_box.setLayout(policy_form)
        for name, choices in POLICIES.items():
            combo = shrinking_combo()
            combo.addItems(choices)
            combo.activated.connect(lambda _i, n=name, c=combo: self._update(**{n: c.currentText()}))
            self.policies[name] = combo
            policy_form.addRow(name.replace("_", " "), combo)
        unique_box = QGroupBox("Unique indexes")
        unique_box.setLayout(self.uniques)
        compare_box = QGroupBox("Compare old values")
        QVBoxLayout(compare_box).addWidget(self.compare)
        bottom = QVBoxLayout()
        for box in (policy_box, unique_box, compare_box):
            bottom.addWidget(box)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.enabled)
        layout.addLayout(top, 3)
        layout.addLayout(bottom, 2)

    # --- what is shown ---------------------------------------------------------

    @property
    def entry(self) -> TableConflicts | None:
        return self.document.model.conflicts_for(self.table_key) if self.table_key else None

    def show_table(self, key: str | None) -> None:
        self.table_key = key if key and self.document.model.table(key) else None
        self.problem.setText("")
        self.refresh()

    def _changed(self, edits: list[Any]) -> None:
        """Only an edit of the table shown, its conflicts, or a rename refreshes; a rename of the table shown (or
        of its server) is followed, as the properties panel follows it, and so is its undo."""
        if self.table_key is not None:
            followed = follow_ref(("table", self.table_key), edits)
            self.table_key = str(followed[1])
        if any(self.table_key in e.touched() or e.kind == "server" or
               (e.kind == "table" and e.before is not None and e.after is not None and e.before.key != e.after.key)
               for e in edits):
            self.refresh()

    def refresh(self) -> None:
        table = self.document.model.table(self.table_key) if self.table_key else None
        entry = self.entry
        self.setEnabled(table is not None)
        self.title.setText(f"Conflict resolution on {table.key}" if table else "Select a table.")
        quiet(self.enabled, lambda: self.enabled.setChecked(entry is not None))
        item = self.groups.currentItem()
        current = (self.current_group(), item.text(0) if item is not None and item.parent() is not None else None)
        # quiet: a current item cleared would show an empty chain, hiding the priority map that has the focus
        quiet(self.groups, lambda: self._fill_groups(table, entry, *current))
        if table is None:
            self._show_chain()
            return
        for name, combo in self.policies.items():
            quiet(combo, bound(combo.setCurrentText, getattr(entry, name) if entry else POLICIES[name][0]))
        self._show_uniques(table, entry)
        quiet(self.compare, lambda: self._fill_compare(table, entry))
        self._show_chain()

    def _fill_groups(self, table: Any, entry: TableConflicts | None, current: str | None,
                     current_column: str | None) -> None:
        """The groups and their columns; the current item stays: a column (in the group it is in now, so one
        moved with the keyboard is still the current one), or else a group."""
        self.groups.clear()
        if table is None:
            return
        grouped: set[str] = set()
        for group in entry.column_groups if entry else []:
            item = QTreeWidgetItem([group.name])
            for column in group.columns:
                item.addChild(QTreeWidgetItem([column]))
                grouped.add(column)
            self.groups.addTopLevelItem(item)
        shadow = QTreeWidgetItem([SHADOW])
        for column in table.column_names():
            if column not in grouped:
                shadow.addChild(QTreeWidgetItem([column]))
        self.groups.addTopLevelItem(shadow)
        self.groups.expandAll()
        everywhere = Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
        columns = [i for i in self.groups.findItems(current_column, everywhere)
                   if i.parent() is not None] if current_column else []
        groups = self.groups.findItems(current, Qt.MatchFlag.MatchExactly) if current else []
        if columns or groups:
            self.groups.setCurrentItem((columns or groups)[0])

    def _show_uniques(self, table: Any, entry: TableConflicts | None) -> None:
        """A choice per unique index. The same indexes keep their choices (only the value shown changes): one the
        user picks with the arrow keys keeps the focus, so the next key picks again."""
        chosen = {u.index: u.resolution for u in entry.unique} if entry else {}
        names = [ux.name for ux in table.unique_indexes]
        if names != self._unique_names:
            while self.uniques.rowCount():
                self.uniques.removeRow(0)
            for name in names:
                combo = shrinking_combo()
                combo.addItems(UNIQUE)
                combo.activated.connect(lambda _i, n=name, c=combo: self.set_unique(n, c.currentText()))
                form_row(self.uniques, name, combo)
            self._unique_names = names
        for row, name in enumerate(names):
            item = self.uniques.itemAt(row, QFormLayout.ItemRole.FieldRole)
            field = item.widget() if item is not None else None
            if isinstance(field, QComboBox):
                quiet(field, bound(field.setCurrentText, chosen.get(name, "")))

    def _fill_compare(self, table: Any, entry: TableConflicts | None) -> None:
        """One checkable row per column. The same columns keep their rows (only the checks change), so the
        current row stays where the user is: Space, Down, Space unchecks two columns, not the first one twice."""
        columns = table.column_names()
        if [self.compare.item(i).text() for i in range(self.compare.count())] != columns:
            current = self.compare.currentItem().text() if self.compare.currentItem() else None
            self.compare.clear()
            for column in columns:
                self.compare.addItem(column)
                item = self.compare.item(self.compare.count() - 1)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            if current in columns:
                self.compare.setCurrentRow(columns.index(current))
        for i, column in enumerate(columns):
            compared = (entry.compare_old.get(column, True) if entry else True)
            self.compare.item(i).setCheckState(Qt.CheckState.Checked if compared else Qt.CheckState.Unchecked)

    def current_group(self) -> str | None:
        item = self.groups.currentItem()
        if item is None:
            return None
        group = item.parent() or item
        return None if group.text(0) == SHADOW else group.text(0)

    def _group(self) -> Any:
        name, entry = self.current_group(), self.entry
        return next((g for g in entry.column_groups if g.name == name), None) if entry and name else None

    def _show_chain(self) -> None:
        group = self._group()
        row = self.chain.currentRow()

        def fill() -> None:
            self.chain.clear()
            steps = group.resolution if group else []
            self.chain.addItems([("primary: " if i == 0 else "backup: ") + s.method
                                 + (f" ({s.column})" if s.column else "") for i, s in enumerate(steps)])

        quiet(self.chain, fill)
        self.chain.setCurrentRow(min(max(row, 0), self.chain.count() - 1))
        self._show_step()
        self._show_warnings()

    def _show_step(self) -> None:
        group, row = self._group(), self.chain.currentRow()
        step = group.resolution[row] if group and 0 <= row < len(group.resolution) else None

        def fill() -> None:
            self.designated.clear()
            self.designated.addItems([""] + (list(group.columns) if group else []))
            self.designated.setCurrentText((step.column or "") if step else "")

        quiet(self.designated, fill)
        self.designated.setEnabled(bool(step and step.method in DESIGNATED_COLUMN_METHODS))
        shown = step is not None and step.method == "priority_group"
        self.priorities.setVisible(shown)
        self.pending.setText("")
        quiet(self.priorities, lambda: self._fill_priorities(step.priorities if shown and step else None))
        row_count = len(group.resolution) if group else 0
        self.chain_buttons["add"].setEnabled(group is not None)
        self.chain_buttons["remove"].setEnabled(step is not None)
        self.chain_buttons["up"].setEnabled(step is not None and row > 0)
        self.chain_buttons["down"].setEnabled(step is not None and row < row_count - 1)
        self.remove_group_button.setEnabled(group is not None)

    def _fill_priorities(self, priorities: dict[str, float] | None) -> None:
        """The map's rows and an empty one to type a new value in; cells are updated in place, so the current cell
        (and the Tab order from it) stays where the user is."""
        rows = list((priorities or {}).items()) + [("", "")]
        self.priorities.setRowCount(len(rows))
        for i, (value, priority) in enumerate(rows):
            for column, text in ((0, str(value)), (1, value_text(priority) if priority != "" else "")):
                item = self.priorities.item(i, column)
                if item is None:
                    self.priorities.setItem(i, column, QTableWidgetItem(text))
                elif item.text() != text:
                    item.setText(text)

    def _show_warnings(self) -> None:
        group = self.current_group()
        found: list[Finding] = [f for f in self.document.findings() if f.location.table == self.table_key
                                and f.code.startswith("CR") and (group is None or f.location.group in (None, group))]
        self.warnings.setText("\n".join(f"{f.code} {f.severity.value}: {f.message}" for f in found))

    # --- edits ---------------------------------------------------------------

    def _update(self, enable: bool = False, **changes: Any) -> bool:
        """One undoable edit of the table's conflicts entry; a value the model refuses is said inline. Every
        gesture of the editor comes here, so none pushes an edit that changes nothing: `changes` that leave
        the entry as it is, or (unless `enable`, the checkbox's own gesture) that would only switch
        resolution on with an entry of defaults. True when the model changed."""
        entry = self.entry
        if self.table_key is None:
            return False
        try:
            if entry is None:
                new = TableConflicts.model_validate({"table": self.table_key, **changes})
                unchanged = not enable and new == TableConflicts.model_validate({"table": self.table_key})
            else:
                new = evolve(entry, **changes)
                unchanged = new == entry
            if unchanged:
                self.problem.setText("")
                return False
            edits = replace(self.document.model, "conflicts", entry, new)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError, and so is UnloadableValue
            self.problem.setText(f"not applied: {reason(exc)}")
            return False
        self.problem.setText("")
        self.document.apply(edits, "Resolve conflicts" if entry is None else "Edit conflict resolution")
        return True

    def _groups_json(self) -> list[dict[str, Any]]:
        return [g.model_dump() for g in self.entry.column_groups] if self.entry else []

    def _toggle_enabled(self, on: bool) -> None:
        if on and self.entry is None:
            self._update(enable=True)
        elif not on and self.entry is not None:
            self.document.apply(replace(self.document.model, "conflicts", self.entry, None),
                                "Stop resolving conflicts")

    def add_group(self, name: str | None = None) -> None:
        if name is None:
            name = ask_text(self, "New column group", "Name:")
        name = (name or "").strip()  # " status_cg " is status_cg: stripped before the duplicate check
        groups = self._groups_json()
        if name == SHADOW:  # the tree could not tell it from the shadow group: a column moved "out" would go in
            self.problem.setText(f"not applied: {name!r} names the shadow group")
            return
        if not name or any(g["name"] == name for g in groups):
            self.problem.setText(f"not applied: a column group {name!r} already exists" if name else "")
            return
        self._update(column_groups=[*groups, {"name": name, "columns": [], "resolution": []}])

    def remove_current_group(self) -> None:
        name = self.current_group()
        if name:
            self._update(column_groups=[g for g in self._groups_json() if g["name"] != name])

    def move_column(self, column: str, group: str) -> None:
        """Move `column` into `group` (the shadow group's label: out of every group). A column dropped on the
        group it is in stays where it is."""
        groups = self._groups_json()
        if any(g["name"] == group and column in g["columns"] for g in groups) or (
                group != SHADOW and not any(g["name"] == group for g in groups)):
            return  # already there, or a group the table does not have (an undo took it away)
        for g in groups:
            g["columns"] = [c for c in g["columns"] if c != column]
        for g in groups:
            if g["name"] == group:
                g["columns"].append(column)
        self._update(column_groups=groups)

    def _edit_chain(self, change: Any) -> None:
        """Change the chain of the group picked; nothing when none is (the shadow group has no chain)."""
        name = self.current_group()
        if self._group() is None:
            return
        groups = self._groups_json()
        for g in groups:
            if g["name"] == name:
                g["resolution"] = change(list(g["resolution"]))
        self._update(column_groups=groups)

    def add_method(self, method: str) -> None:
        group = self._group()
        if group is None:
            return
        column = proposed_column(self.document.model.table(self.table_key or ""), group.columns, method)
        step: dict[str, Any] = {"method": method, "column": column}
        if method == "priority_group":
            step["priorities"] = {}
        self._edit_chain(lambda chain: [*chain, step])
        self.chain.setCurrentRow(self.chain.count() - 1)

    def remove_method(self) -> None:
        row = self.chain.currentRow()
        if row >= 0:
            self._edit_chain(lambda chain: chain[:row] + chain[row + 1:])

    def move_method(self, delta: int) -> None:
        row = self.chain.currentRow()
        other = row + delta
        if row < 0 or not 0 <= other < self.chain.count():
            return

        def swap(chain: list[Any]) -> list[Any]:
            chain[row], chain[other] = chain[other], chain[row]
            return chain
        self._edit_chain(swap)
        self.chain.setCurrentRow(other)

    def set_designated(self, column: str) -> None:
        row = self.chain.currentRow()
        group = self._group()
        if group is None or not 0 <= row < len(group.resolution):
            return
        self._edit_chain(lambda chain: [dict(s, column=column or None) if i == row else s
                                        for i, s in enumerate(chain)])

    def _priorities_changed(self) -> None:
        """Apply the priority map as the table holds it, once every row is whole: a row with a value but no
        priority yet (or a priority but no value) is said to be incomplete, not refused; a value in two rows,
        or a priority the model refuses, is refused and said why."""
        out: dict[str, int | float] = {}
        rows: dict[str, int] = {}
        incomplete: list[str] = []
        for i in range(self.priorities.rowCount()):
            value, priority = (self.priorities.item(i, c) for c in (0, 1))
            value_text_, priority_text = (item.text().strip() if item else "" for item in (value, priority))
            if not value_text_ and not priority_text:
                continue  # the empty row to type a new value in (or a row cleared: its value goes)
            if not value_text_ or not priority_text:
                incomplete.append(f"{value_text_!r} has no priority yet" if value_text_ else
                                  f"row {i + 1} has a priority but no value yet")
                continue
            if value_text_ in rows:
                self.pending.setText("")
                self.problem.setText(f"not applied: the value {value_text_!r} is in rows {rows[value_text_] + 1} "
                                     f"and {i + 1}: give each value one priority")
                return
            rows[value_text_] = i
            try:
                out[value_text_] = parse_number(priority_text)
            except ValueError as exc:  # inf, nan, 1e999, words: said beside the table, never applied
                self.pending.setText("")
                self.problem.setText(f"not applied: priority of {value_text_!r}: {exc}")
                return
        if incomplete:
            self.problem.setText("")
            self.pending.setText(f"Incomplete: {'; '.join(incomplete)}. The map is applied once each row has "
                                 "a value and a priority.")
            return
        self.pending.setText("")
        row = self.chain.currentRow()
        self._edit_chain(lambda chain: [dict(s, priorities=out) if i == row else s for i, s in enumerate(chain)])

    def set_unique(self, index: str, resolution: str) -> None:
        entry = self.entry
        unique = [u.model_dump() for u in entry.unique if u.index != index] if entry else []
        if resolution:
            unique.append({"index": index, "resolution": resolution})
        self._update(unique=unique)

    def _compare_changed(self, item: Any) -> None:
        compare = dict(self.entry.compare_old) if self.entry else {}
        if item.checkState() == Qt.CheckState.Checked:
            compare.pop(item.text(), None)
        else:
            compare[item.text()] = False
        self._update(compare_old=compare)
