"""The document's file handling, as the base of the main window: new, open (and the autosaves it offers back),
save, save as, and export; `maybe_discard` asks before unsaved edits are lost."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from designer.autosave import Autosaver, orphaned_untitled, recoverable
from designer.document import Document, EditCommand
from designer.file_export import export_file
from designer.labels import message
from designer.recent import RecentFiles
from designer.savepaths import overwrite_changed_file, save_path
from engine.model import Model, ModelLoadError


def tool(name: str) -> ModuleType:
    """A dialog's module, loaded when first used: imports, deployments and the browser bring SQLAlchemy's
    dialects, pyarrow and Qt's SVG and PDF modules, none of which a window needs to open."""
    return importlib.import_module(f"designer.{name}")


class DocumentFiles(QMainWindow):
    """The File menu's work on `document`; the window (`window.MainWindow`) sets what is declared here and
    shows a document (`set_document`)."""

    document: Document
    ask: bool  # False in tests: never block on a dialog
    autosaver: Autosaver
    recent: RecentFiles
    export_findings: list[str]  # what PostgreSQL cannot express, shown before its export

    def set_document(self, document: Document) -> None:
        """Show `document` in the window (the window's own)."""
        raise NotImplementedError

    def maybe_discard(self) -> bool:
        """True when the current model may be replaced (saved, or the user agreed to lose changes)."""
        if not self.document.dirty or not self.ask:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", "The model has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.autosaver.stop_and_discard()  # discarded edits are not offered back on the next open
            return True
        return False

    def new_model(self) -> None:
        if self.maybe_discard():
            self.set_document(Document.new())

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open model", "", "Mapwright models (*.json)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, model: Model | None = None) -> bool:
        """Open the model file at `path` (`model`: as the caller just read it from there)."""
        if not self.maybe_discard():
            return False
        try:
            document = Document.open(path, model=model)
        except ModelLoadError as exc:
            message(self, QMessageBox.Icon.Critical, "Cannot open model", str(exc)) if self.ask else None
            self.statusBar().showMessage(str(exc))
            return False
        recovered = recoverable(path)
        if recovered is not None and (not self.ask or message(
                self, QMessageBox.Icon.Question, "Recover autosave",
                f"An autosaved version of {path.name} is newer than the file. Recover it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No) == QMessageBox.StandardButton.Yes):
            document = Document(recovered, path)
            document.undo_stack.push(EditCommand(document, [], "Recover autosave"))
        self.set_document(document)
        self.recent.remember(path)
        self.statusBar().clearMessage()  # an earlier failed open's message is about another file
        return True

    def offer_orphaned_autosaves(self) -> bool:
        """Offer back a never-saved model autosaved by a designer that is gone (a crash, a kill), newest
        first. The one recovered opens as an unsaved model; each one answered is removed, so none is
        offered twice. True when one was recovered."""
        for orphan in orphaned_untitled():
            when = orphan.saved_at.strftime("%Y-%m-%d %H:%M")
            answer = QMessageBox.StandardButton.Yes if not self.ask else message(
                self, QMessageBox.Icon.Question, "Recover autosave",
                f"A model that was never saved ({orphan.model.name or 'untitled'}, autosaved {when}) was left "
                "by a designer that closed unexpectedly. Recover it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No | QMessageBox.StandardButton.Cancel)
            if answer == QMessageBox.StandardButton.Cancel:
                return False  # asked again next time
            if answer == QMessageBox.StandardButton.Yes and not self.maybe_discard():
                return False
            orphan.file.unlink(missing_ok=True)
            if answer == QMessageBox.StandardButton.Yes:
                document = Document(orphan.model, None)
                self.set_document(document)
                document.undo_stack.push(EditCommand(document, [], "Recover autosave"))  # unsaved: autosaved again
                return True
        return False

    def save(self) -> bool:
        """Save to the model's file; False when it was not saved (the user cancelled, or the write failed)."""
        if self.document.path is None:
            return self.save_as()
        if self.document.changed_on_disk() and \
                not overwrite_changed_file(self, self.document.path, self.ask, self.statusBar().showMessage):
            return False
        return self._write(self.document.path)

    def save_as(self) -> bool:
        path = save_path(self, "Save model as", "Mapwright models (*.json)", "json", self.ask,
                         self.statusBar().showMessage, self.document.path)  # `hq` is saved as hq.json
        if path is None or not self._write(path):
            return False
        self.recent.remember(path)
        return True

    def _write(self, path: Path) -> bool:
        """Write the model to `path`; a write the system refuses (a folder, a folder gone, no permission, a full
        disk) is said in a message box and leaves the document dirty, its autosave kept."""
        try:
            self.document.save(path)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.statusBar().showMessage(f"Not saved: {path}: {reason}", 10000)
            if self.ask:
                message(self, QMessageBox.Icon.Critical, "Cannot save model",
                        f"The model could not be saved to {path}:\n{reason}")
            return False
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def export(self, kind: str) -> None:
        if kind == "goldengate":  # a folder of parameter files, after saying what GoldenGate cannot express
            tool("goldengate_export").export_goldengate(self, self.document.model, self.ask,
                                                         self.statusBar().showMessage, self.document.path)
            return
        if kind == "postgresql":
            self.export_postgresql()
            return
        export_file(self, self.document.model, self.document.path, kind, self.ask, self.statusBar().showMessage)

    def export_postgresql(self) -> None:
        """The logical-replication deployment (`postgresql_export`); `export_findings` keeps what it listed."""
        postgresql_export = tool("postgresql_export")
        self.export_findings = postgresql_export.deployment_findings(self.document.model)
        postgresql_export.export_postgresql(self, self.document.model, self.export_findings, self.ask,
                                            self.statusBar().showMessage, self.document.path)
