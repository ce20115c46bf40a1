"""The browser's tabs: conflicts (table, chart, comparison), other record lists, convergence."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QTableView, QVBoxLayout, QWidget

from designer.browser.chart import ConflictChart
from designer.browser.detail import ComparisonPane, Image, conflict_images, describe_conflict
from designer.browser.filterbar import FilterBar, fit_columns, record_table
from designer.browser.models import EXAMPLE_COLUMNS, RECORD_ROLE, Record, RecordTableModel, cell_text, is_diverged
from designer.browser.proxy import RecordFilterProxy
from designer.labels import plain_label, plain_tip

Index: TypeAlias = QModelIndex | QPersistentModelIndex


def _record(index: Index) -> Record | None:
    record = index.data(RECORD_ROLE) if index.isValid() else None
    return record if isinstance(record, dict) else None


def _on_current_row(view: QTableView, slot: Callable[[Record | None], None]) -> None:
    view.selectionModel().currentRowChanged.connect(lambda current, _previous: slot(_record(current)))


class RecordsPage(QWidget):
    """A filterable, sortable list of records; the current one is shown below, compared or described."""

    sig_record_selected = Signal(object)
    """The current record (a dict), or None."""

    def __init__(self, model: RecordTableModel, describe: Callable[[Record], str],
                 images: Callable[[Record], Sequence[Image]] | None = None, fields: dict[str, str] | None = None,
                 side: QWidget | None = None, parent: QWidget | None = None,
                 tooltip: Callable[[Record], str] | None = None, proxy: RecordFilterProxy | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._tooltip = tooltip
        self.proxy = proxy or RecordFilterProxy(model)
        self.proxy.setParent(self)
        self.shown: Record | None = None
        """The record the detail pane shows."""
        self.filter_bar = FilterBar(self.proxy, model, fields)
        self.view = record_table(self.proxy)
        self._describe, self._images = describe, images
        self.comparison = ComparisonPane() if images else None
        self.description = QLabel()
        self.description.setTextFormat(Qt.TextFormat.RichText)  # escaped; Qt's guess misses a tag after a newline
        self.description.setWordWrap(True)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long unbroken value must never widen the window: the label takes the width it is given
        self.description.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        if side is None:
            self.splitter.addWidget(self.view)
        else:
            top = QSplitter(Qt.Orientation.Horizontal)
            top.addWidget(self.view)
            top.addWidget(side)
            top.setStretchFactor(0, 3)
            top.setStretchFactor(1, 1)
            self.splitter.addWidget(top)
        self.splitter.addWidget(self.comparison or self.description)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.page_layout = QVBoxLayout(self)
        """The filter bar over the records and their detail; a caller may put a note above them."""
        self.page_layout.addWidget(self.filter_bar)
        self.page_layout.addWidget(self.splitter, 1)
        _on_current_row(self.view, self.show_record)
        model.modelReset.connect(self._reset)
        self.proxy.sig_filter_changed.connect(self._follow_filter)

    def _reset(self) -> None:
        header = self.view.horizontalHeader()
        self.model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())  # new records, same order
        fit_columns(self.view)
        self.show_record(None)

    def _follow_filter(self, _shown: int) -> None:
        """The detail never shows a record the filter hides: when the current row is filtered out, the first
        row shown becomes current (its detail shown), or, with none shown, the detail is cleared."""
        if self.shown is None or self.view.currentIndex().isValid():
            return
        if self.proxy.rowCount():
            self.view.setCurrentIndex(self.proxy.index(0, 0))  # selects the row: `show_record` follows
        else:
            self.show_record(None)

    def show_record(self, record: Record | None) -> None:
        self.shown = record
        if self.comparison is not None and self._images is not None:
            if record is None:
                self.comparison.clear()
            else:
                self.comparison.show_images(self._describe(record), self._images(record))
        else:
            self.description.setText("" if record is None else self._describe(record))
            tip = self._tooltip(record) if record is not None and self._tooltip else ""
            self.description.setToolTip(plain_tip(tip))  # a rejected line's raw text may be anything
        self.sig_record_selected.emit(record)


class ConflictsPage(RecordsPage):
    """Conflicts: filter text plus type and outcome combos, the table, the chart, and the comparison."""

    def __init__(self, model: RecordTableModel, parent: QWidget | None = None) -> None:
        proxy = RecordFilterProxy(model)
        chart = ConflictChart(model, proxy=proxy)  # counts what the table's filter shows
        super().__init__(model, describe_conflict, conflict_images, {"type": "types", "outcome": "outcomes"},
                         side=chart, parent=parent, proxy=proxy)
        self.chart = chart
        self.chart.sig_bar_clicked.connect(self.filter_to)

    def filter_to(self, conflict_type: str | None, outcome: str | None) -> None:
        """Show only conflicts of this type and outcome (None: any)."""
        self.filter_bar.set_field_value("type", conflict_type)
        self.filter_bar.set_field_value("outcome", outcome)


def example_images(example: Record) -> list[Image]:
    """Source and target rows of a convergence example; when several rows share the key (a list), one image
    per row (`Target 1`, `Target 2`...)."""
    images: list[Image] = []
    for title, key in (("Source", "source"), ("Target", "target")):
        value = example.get(key)
        if isinstance(value, list):
            images += [(f"{title} {n}", row if isinstance(row, dict) else None) for n, row in enumerate(value, 1)]
        else:
            images.append((title, value if isinstance(value, dict) else None))
    return images


def describe_example(example: Record) -> str:
    return f"Key {html.escape(cell_text(example.get('dkey')))}: source row against target row."


class ConvergencePage(QWidget):
    """Per mapping: keys compared and diverged (diverged mappings highlighted); the current mapping's
    examples, and the current example's source and target rows compared."""

    def __init__(self, model: RecordTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = RecordFilterProxy(model, self)
        self.view = record_table(self.proxy)
        self.caption = plain_label()
        self.examples = RecordTableModel(EXAMPLE_COLUMNS, parent=self)
        self.examples_page = RecordsPage(self.examples, describe_example, example_images)
        self.examples_caption = plain_label(wrap=True)  # names a mapping of the run's model
        self.examples_caption.setObjectName("examplesCaption")
        self.examples_page.page_layout.insertWidget(0, self.examples_caption)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.view)
        splitter.addWidget(self.examples_page)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(splitter, 1)
        _on_current_row(self.view, self.show_mapping)
        model.modelReset.connect(self._reset)
        self._reset()

    def _reset(self) -> None:
        mappings = self.model.records
        diverged = sum(1 for m in mappings if is_diverged(m))
        self.caption.setText(f"{len(mappings)} mappings, {diverged} diverged" if mappings else "No convergence data.")
        self.show_mapping(None)

    def show_mapping(self, mapping: Record | None) -> None:
        examples: Any = (mapping or {}).get("examples") or []
        self.examples.set_records(examples)
        self.examples_caption.setText(examples_caption(mapping))


def examples_caption(mapping: Record | None) -> str:
    """Says that the keys listed are examples when a mapping diverged on more keys than the run keeps."""
    if mapping is None:
        return "Choose a mapping to see the keys where it diverged."
    diverged, shown = int(mapping.get("diverged") or 0), len(mapping.get("examples") or [])
    if diverged == 0:
        return f"{mapping.get('mapping')} converged: no diverged keys."
    if shown < diverged:
        return (f"{shown} example keys of the {diverged:,} where {mapping.get('mapping')} diverged "
                f"(a run keeps the first {shown} of each mapping).")
    return f"All {diverged:,} keys where {mapping.get('mapping')} diverged."
