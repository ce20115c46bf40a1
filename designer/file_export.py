"""File ▸ Export of a single file (json, schema, ddl, report): the options (DDL), the file, the outcome."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from designer.export_dialogs import ddl_options
from designer.labels import message
from designer.savepaths import save_path
from engine.export import EXPORTERS, ExportError, same_file
from engine.model.schema import Model

FILTERS = {"json": ("Mapwright models (*.json)", "json"), "schema": ("JSON Schema (*.json)", "json"),
           "ddl": ("SQL DDL (*.sql)", "sql"), "report": ("HTML report (*.html)", "html")}
"""Each file export's name filter and the suffix a name typed without one gets."""


def export_file(parent: QWidget, model: Model, model_path: Path | None, kind: str, ask: bool,
                status: Callable[[str, int], None]) -> None:
    """Ask what is needed (for DDL its dialect and tables, as `mapwright export --to ddl --dialect --server`
    takes them), then the file, and write it; a failure is one line in `status` (and a message box when the
    window may ask), never the model's own file overwritten."""
    options: dict[str, str | None] = {}
    if kind == "ddl":
        chosen = ddl_options(parent, model, ask)
        if chosen is None:
            return
        options = {"dialect": chosen[0], "server": chosen[1]}
    name_filter, suffix = FILTERS[kind]
    start = model_path.parent if model_path is not None else None
    path = save_path(parent, f"Export {kind}", name_filter, suffix, ask, status, start)
    if path is None:
        return
    if model_path is not None and same_file(path, model_path):
        return failed(parent, f"{path} is the model file itself: export to another path", ask, status)
    try:
        EXPORTERS[kind](model, path, **options)
    except (ExportError, OSError) as exc:
        reason = f"{path}: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        return failed(parent, reason, ask, status)
    empty = kind == "ddl" and options.get("server") is None and not model.mappings
    status(f"Exported {path}" + ("; no mapping writes to any table, so it has no tables (choose a server to "
                                 "export its tables)" if empty else ""), 8000 if empty else 4000)


def failed(parent: QWidget, reason: str, ask: bool, status: Callable[[str, int], None]) -> None:
    """An export not made: said in the status bar, and in a message box when the window may ask."""
    status(f"Export failed: {reason}", 10000)
    if ask:
        message(parent, QMessageBox.Icon.Critical, "Cannot export", reason)
