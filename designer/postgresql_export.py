"""File ▸ Export ▸ postgresql: say what PostgreSQL logical replication cannot express, then write the folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from designer.export_dialogs import choose_folder, suggested_folder
from designer.labels import message
from engine.deploy.pgfindings import grouped_lines
from engine.deploy.postgresql import plan_deployment
from engine.export import EXPORTERS, ExportError
from engine.model.schema import Model


def deployment_findings(model: Model) -> list[str]:
    """What PostgreSQL logical replication cannot express of `model`: a line per kind of finding, with its count
    and mappings (report.txt lists each one)."""
    return grouped_lines(plan_deployment(model).findings)


def export_postgresql(parent: QWidget, model: Model, findings: list[str], ask: bool,
                      status: Callable[[str, int], None], model_path: Path | None = None) -> None:
    """The logical-replication deployment (a folder, created when it does not exist yet, as the command line
    does). Its `findings` are shown first, and the export goes ahead only when the user accepts them."""
    if findings and ask:
        box = QMessageBox(QMessageBox.Icon.Warning, "Export to PostgreSQL",
                          f"PostgreSQL logical replication cannot express {len(findings)} kind(s) of thing "
                          "in this model (Show Details). They will also be in report.txt of the export.",
                          QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, parent)
        box.setDetailedText("\n".join(findings))
        if box.exec() != QMessageBox.StandardButton.Ok:
            return
    path = choose_folder(parent, "Export to PostgreSQL: choose a folder",
                         suggested_folder(model_path, "postgresql"), ask)
    if path is None:
        return
    try:
        EXPORTERS["postgresql"](model, path)
    except (ExportError, OSError) as exc:
        status(f"Export failed: {exc}", 10000)
        message(parent, QMessageBox.Icon.Critical, "Cannot export", str(exc)) if ask else None
        return
    status(f"Exported the PostgreSQL deployment to {path} ({len(findings)} finding(s) in report.txt)", 8000)
