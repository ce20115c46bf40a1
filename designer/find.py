"""Edit ▸ Find: find a table, column or mapping by name and go to it.

`search` is a pure function over the model (case-insensitive; names that start with the text first);
`FindDialog` is the thin window over it: type, pick with the arrows, Enter or double-click goes there.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from designer.labels import plain_label
from engine.model.schema import Model

MAX_HITS = 200
Ref = tuple[str, ...]


@dataclass(frozen=True)
class Hit:
    kind: str  # table | column | mapping
    label: str  # what the list shows
    ref: Ref  # what the window selects: ("table", key), ("column", key, name), ("mapping", id)


def search(model: Model, text: str, limit: int = MAX_HITS) -> list[Hit]:
    """Tables, columns and mappings whose name contains `text` (any case); prefix matches first."""
    needle = text.strip().lower()
    if not needle:
        return []
    found: list[tuple[int, int, str, Hit]] = []
    kinds = {"table": 0, "column": 1, "mapping": 2}

    def consider(name: str, hit: Hit) -> None:
        at = name.lower().find(needle)
        if at >= 0:
            found.append((0 if at == 0 else 1, kinds[hit.kind], hit.label.lower(), hit))

    for table in model.tables:
        consider(table.name, Hit("table", f"table {table.key}", ("table", table.key)))
        for col in table.columns:
            consider(col.name, Hit("column", f"column {table.key}.{col.name}  {col.type}",
                                   ("column", table.key, col.name)))
    for mapping in model.mappings:
        consider(mapping.id, Hit("mapping", f"mapping {mapping.id}  {mapping.source} → {mapping.target}",
                                 ("mapping", mapping.id)))
    return [hit for *_, hit in sorted(found, key=lambda t: t[:3])][:limit]


class FindDialog(QDialog):
    """Non-modal: it stays open while the user looks at what it went to."""

    sig_go = Signal(object)  # the Hit's ref

    def __init__(self, model: Model, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("find")
        self.setWindowTitle("Find — Mapwright")
        self.setModal(False)
        self.model = model
        self.edit = QLineEdit(placeholderText="a table, column or mapping name")
        self.edit.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.status = plain_label()
        layout = QVBoxLayout(self)
        layout.addWidget(self.edit)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        self.edit.textChanged.connect(self.refresh)
        self.edit.returnPressed.connect(self.go_to_current)
        self.results.itemActivated.connect(lambda _item: self.go_to_current())
        self.resize(460, 360)
        self.refresh()

    def set_model(self, model: Model) -> None:
        self.model = model
        self.refresh()

    def refresh(self) -> None:
        """The hits of the text typed, in the model as it is now (the window calls this after each edit, so a
        table removed or renamed is never offered); the hit picked stays picked while it is still found."""
        current = self.results.currentItem()
        picked = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        hits = search(self.model, self.edit.text())
        self.results.clear()
        for hit in hits:
            item = QListWidgetItem(hit.label)
            item.setData(Qt.ItemDataRole.UserRole, hit.ref)
            self.results.addItem(item)
        if hits:
            refs = [tuple(hit.ref) for hit in hits]
            self.results.setCurrentRow(refs.index(tuple(picked)) if picked and tuple(picked) in refs else 0)
        text = self.edit.text().strip()
        self.status.setText("" if not text else (f"{len(hits)} found" + (" (first shown)" if len(hits) >= MAX_HITS
                                                                            else "") if hits else "nothing found"))

    def go_to_current(self) -> None:
        item = self.results.currentItem()
        if item is not None:
            self.sig_go.emit(tuple(item.data(Qt.ItemDataRole.UserRole)))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Up and Down move in the list while typing."""
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.edit.hasFocus():
            row = self.results.currentRow() + (1 if event.key() == Qt.Key.Key_Down else -1)
            if 0 <= row < self.results.count():
                self.results.setCurrentRow(row)
            return
        super().keyPressEvent(event)
