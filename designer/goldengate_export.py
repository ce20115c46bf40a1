"""File ▸ Export ▸ goldengate: say what GoldenGate cannot express before writing the parameter files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from designer.export_dialogs import choose_folder, suggested_folder
from designer.labels import message
from engine import export as exports
from engine.deploy.goldengate import REPORT_NAME, GoldenGateExport, goldengate_files
from engine.model.schema import Model


def not_expressed_text(export: GoldenGateExport) -> str:
    """The constructs left out, grouped by mapping, one line each (the dialog's details)."""
    lines: list[str] = [f"the whole model: {item}" for item in export.whole_model]
    for mapping_id, items in export.by_mapping().items():
        lines.append(f"mapping {mapping_id}:")
        lines.extend(f"  - {item.text()}" for item in items)
    return "\n".join(lines)


def confirm(parent: QWidget, export: GoldenGateExport) -> bool:
    """Ask before exporting when something is not expressed; the list is in the dialog's details."""
    if not export.not_expressed and not export.whole_model:
        return True
    count, mappings = len(export.not_expressed), len(export.by_mapping())
    whole = f" {len(export.whole_model)} item(s) concern the whole model." if export.whole_model else ""
    box = QMessageBox(QMessageBox.Icon.Warning, "Export GoldenGate parameter files",
                      f"{count} construct(s) in {mappings} mapping(s) have no Oracle GoldenGate equivalent and will "
                      f"not be in the parameter files.{whole} {REPORT_NAME} in the folder lists them too.",
                      QMessageBox.StandardButton.Cancel, parent)
    box.setDetailedText(not_expressed_text(export))
    export_button = box.addButton("Export anyway", QMessageBox.ButtonRole.AcceptRole)
    box.exec()
    return box.clickedButton() is export_button


def export_goldengate(parent: QWidget, model: Model, ask: bool, status: Callable[[str, int], None],
                      model_path: Path | None = None) -> None:
    """Show what is not expressed, pick a folder (a new one is created), write the files; the outcome goes
    to `status`."""
    export = goldengate_files(model)
    if ask and not confirm(parent, export):
        return
    folder = choose_folder(parent, "Export GoldenGate parameter files to folder",
                           suggested_folder(model_path, "goldengate"), ask)
    if folder is None:
        return
    try:
        exports.export_goldengate(model, folder)  # never among files of another kind (ExportError)
    except (exports.ExportError, OSError) as exc:
        reason = f"{folder}: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        status(f"Export failed: {reason}", 10000)
        if ask:
            message(parent, QMessageBox.Icon.Critical, "Cannot export", reason)
        return
    replicats = sum(1 for name in export.files if name.endswith(".prm"))
    missing = len(export.not_expressed)
    status(f"Exported {replicats} Replicat parameter file(s) to {folder}"
           + (f"; {missing} construct(s) not expressed, listed in {REPORT_NAME}" if missing else ""), 8000)
