"""`RunOverview`: the manifest of a run: status and reason, where it came from, counts and stage timings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from designer.browser.models import NAME_VALUE_COLUMNS, RecordTableModel
from designer.labels import plain_label
from engine.summary import RunSummary

INFO_FIELDS = (("Model", ("model", "path")), ("Model SHA-256", ("model_sha256",)), ("Engine", ("engine",)),
               ("Ran", ("run_engine",)), ("Master", ("master",)), ("Spark", ("spark_version",)),
               ("Started", ("started",)), ("Finished", ("finished",)))


def _lookup(manifest: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = manifest
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def name_value_table(model: RecordTableModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return view


class RunOverview(QWidget):
    """Status (large, with an icon when the run did not succeed), reason, manifest fields, counts, timings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.icon_label = QLabel()
        self.icon_label.hide()
        self.status_label = plain_label("No run open.")  # names the run directory
        font = self.status_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        self.status_label.setFont(font)
        self.reason_label = plain_label(wrap=True)  # a run's reason quotes the model's names and its data
        self.reason_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.info_labels = {title: plain_label() for title, _ in INFO_FIELDS}
        self.counts = RecordTableModel(NAME_VALUE_COLUMNS, parent=self)
        self.stages = RecordTableModel(NAME_VALUE_COLUMNS, parent=self)

        head = QHBoxLayout()
        head.addWidget(self.icon_label)
        head.addWidget(self.status_label, 1)
        info = QFormLayout()
        for title, label in self.info_labels.items():
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            info.addRow(title, label)
        tables = QHBoxLayout()
        for title, model in (("Counts", self.counts), ("Stage seconds", self.stages)):
            box = QGroupBox(title)
            QVBoxLayout(box).addWidget(name_value_table(model))
            tables.addWidget(box)
            box.hide()
            model.modelReset.connect(lambda box=box, model=model: box.setVisible(model.rowCount() > 0))
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.reason_label)
        layout.addLayout(info)
        layout.addLayout(tables, 1)
        layout.addStretch(0)

    def show_summary(self, summary: RunSummary, rundir: Path | None = None) -> None:
        manifest = summary.manifest
        status = summary.status
        succeeded = status == "succeeded"
        self.status_label.setText(f"Run {status}" + (f" — {rundir}" if rundir else ""))
        self._set_icon(None if succeeded else QStyle.StandardPixmap.SP_MessageBoxCritical)
        reason = manifest.get("reason")
        self.reason_label.setText(f"Reason: {reason}" if reason else "")
        self.reason_label.setVisible(bool(reason))
        for title, path in INFO_FIELDS:
            value = _lookup(manifest, path)
            self.info_labels[title].setText("—" if value is None else str(value))
        counts = manifest.get("counts") or {}
        self.counts.set_records([{"name": k, "value": v} for k, v in counts.items()])
        stages = manifest.get("stages") or {}
        rows = [{"name": k, "value": round(float(v), 4)} for k, v in stages.items()]
        if rows:
            rows.append({"name": "total", "value": round(sum(float(v) for v in stages.values()), 4)})
        self.stages.set_records(rows)

    def show_error(self, message: str, title: str | None = None) -> None:
        """A folder that could not be read as a run directory (`title`: what kind of failure, if known)."""
        self.status_label.setText(title or "Cannot open the run directory")
        self._set_icon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.reason_label.setText(message)
        self.reason_label.setVisible(True)
        for label in self.info_labels.values():
            label.setText("—")
        self.counts.set_records([])
        self.stages.set_records([])

    def _set_icon(self, pixmap: QStyle.StandardPixmap | None) -> None:
        self.icon_label.setVisible(pixmap is not None)
        if pixmap is not None:
            size = self.status_label.fontMetrics().height() * 2
            self.icon_label.setPixmap(self.style().standardIcon(pixmap).pixmap(size, size))
