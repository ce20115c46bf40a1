"""The open model: its file, its undo stack and its live findings.

Every change goes through `Document.apply(edit)`, which pushes an
`EditCommand` on Qt's undo stack; redo and undo only apply engine edits
(`engine.edits.Edit` and its inverse), and each application re-validates
incrementally (`engine.rules.Validator.apply_all`), which re-checks only the
scopes the mapping graph says the step's edits touch, each once however many
edits the step holds: milliseconds on large models.

A large model is checked whole on another thread once its window has painted (`check_later`,
`check_in_background`): until then `checking` is true and `findings` empty; an edit first waits for the
check, so the incremental validator always starts from every finding.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from engine.edits import Edit
from engine.model import Model, load_model, save_model
from engine.model.schema import FORMAT
from engine.rules import Finding, Validator

CHECK_LATER_OVER = 300
"""Tables and mappings beyond which an opened model paints first and is checked on another thread (at 300
the whole check takes about 0.3 s; below, its findings are there with the first paint)."""


class EditCommand(QUndoCommand):
    """One engine edit (or several, as one step) on the undo stack."""

    def __init__(self, document: Document, edits: Sequence[Edit], text: str) -> None:
        super().__init__(text)
        self.document = document
        self.edits = list(edits)

    def redo(self) -> None:
        self.document._apply_all(self.edits)
        self.document._changed(self.edits)

    def undo(self) -> None:
        inverses = [edit.inverted() for edit in reversed(self.edits)]
        self.document._apply_all(inverses)
        self.document._changed(inverses)


class Document(QObject):
    """A model being edited. Views subscribe to its signals; they never change the model themselves."""

    sig_changed = Signal(list)  # the edits just applied (engine.edits.Edit)
    sig_findings = Signal(list)  # every finding, after each change
    sig_path_changed = Signal(object)  # Path | None
    sig_dirty_changed = Signal(bool)
    _sig_checked = Signal()  # the checking thread ended (delivered on the document's thread)

    def __init__(self, model: Model, path: Path | None = None, parent: QObject | None = None,
                 check_later: bool = False) -> None:
        super().__init__(parent)
        self.model = model
        self.path = path
        self.validator = Validator(model, check=not check_later)
        self.checking = check_later  # no findings known yet: `check_in_background` or an edit checks it all
        self._checker: threading.Thread | None = None
        self._sig_checked.connect(self._checked)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.disk_digest = file_digest(path)  # the file as last read or written here

    @classmethod
    def open(cls, path: Path, parent: QObject | None = None, model: Model | None = None) -> Document:
        """The model at `path` (`model`: as just read from there); one of more than `CHECK_LATER_OVER` tables
        and mappings is checked later."""
        model = model or load_model(path)
        return cls(model, path, parent, check_later=len(model.tables) + len(model.mappings) > CHECK_LATER_OVER)

    @classmethod
    def new(cls, parent: QObject | None = None) -> Document:
        return cls(Model.model_validate({"format": FORMAT, "name": "untitled"}), None, parent)

    @property
    def dirty(self) -> bool:
        return not self.undo_stack.isClean()

    def findings(self) -> list[Finding]:
        return self.validator.findings()

    def check_in_background(self) -> None:
        """Check the whole model on another thread (a document opened with `check_later`, once), then say
        its findings. The thread only reads the model: edits wait for it (`wait_checked`)."""
        if self.checking and self._checker is None:
            self._checker = threading.Thread(target=self._check_all, name="mapwright-check", daemon=True)
            self._checker.start()

    def wait_checked(self) -> None:
        """Have every finding now: join the checking thread, or check here if none was started."""
        if not self.checking:
            return
        if self._checker is None:
            self.validator.check_all()
        else:
            self._checker.join()
        self._checked()

    def _check_all(self) -> None:
        self.validator.check_all()
        with contextlib.suppress(RuntimeError):  # the document was closed meanwhile: nobody waits
            self._sig_checked.emit()

    def _checked(self) -> None:
        if self.checking:
            self.checking = False
            self.sig_findings.emit(self.findings())

    def apply(self, edits: Edit | Sequence[Edit], text: str) -> None:
        """Make a change, undoably. Several edits become one undo step."""
        batch = [edits] if isinstance(edits, Edit) else list(edits)
        if batch:
            self.undo_stack.push(EditCommand(self, batch, text))

    def save(self, path: Path | None = None) -> Path:
        """Save atomically (to `path`, or where the model came from); marks the document clean."""
        target = path or self.path
        if target is None:
            raise ValueError("the model has no file yet: use Save As")
        save_model(self.model, target)
        self.disk_digest = file_digest(target)
        if target != self.path:
            self.path = target
            self.sig_path_changed.emit(target)
        self.undo_stack.setClean()
        return target

    def changed_on_disk(self) -> bool:
        """True when the model's file now holds other bytes than it did when this document last read or
        wrote it (another program or window saved it meanwhile). A file gone is no change: nothing is lost
        by writing it again."""
        if self.path is None:
            return False
        now = file_digest(self.path)
        return now is not None and now != self.disk_digest

    def _clean_changed(self, clean: bool) -> None:
        self.sig_dirty_changed.emit(not clean)

    def _apply_all(self, edits: list[Edit]) -> None:
        """Apply a step's edits in order, re-validating what they touch once for them all (a server renamed
        with its thousand tables checks each mapping once, not once per edit)."""
        self.wait_checked()
        self.validator.apply_all(edits)

    def _changed(self, edits: list[Edit]) -> None:
        self.sig_changed.emit(edits)
        self.sig_findings.emit(self.findings())


def file_digest(path: Path | None) -> str | None:
    """The SHA-256 of the file's bytes; None when there is no file to read."""
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
