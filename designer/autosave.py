"""Autosave and recovery: the open model is written to an autosave file a few seconds after each change
(and every minute while unsaved); a clean save removes it, and Save As removes the old file's (or the
never-saved model's). On opening a model whose autosave is newer and different, the designer offers to
recover it. A never-saved model's autosave is named for the process that keeps it (`untitled-<pid>-...`):
once that process is gone (a crash, a kill), the next designer started offers it back (`orphaned_untitled`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from designer.document import Document
from engine.model import Model, ModelLoadError, dump_model, parse_model
from engine.model.io import write_atomic
from engine.model.jsonsafe import load_json


def autosave_folder() -> Path:
    """Where autosaves go (not made yet)."""
    override = os.environ.get("MAPWRIGHT_AUTOSAVE_DIR")
    return Path(override) if override else Path(
        QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)) / "autosave"


def autosave_dir() -> Path:
    """The autosave folder, made if missing; raises `OSError` when it cannot be."""
    base = autosave_folder()
    base.mkdir(parents=True, exist_ok=True)
    return base


_UNTITLED = f"untitled-{os.getpid()}-{uuid.uuid4().hex[:8]}"
"""This process's never-saved model's autosave name: its pid says whether its keeper still runs, the rest
keeps it apart from an earlier process's that had the same pid."""
_UNTITLED_NAME = re.compile(r"untitled-(\d+)-[0-9a-f]{8}\.json")


def autosave_path(model_path: Path | None) -> Path:
    if model_path is None:
        return autosave_dir() / f"{_UNTITLED}.json"
    return autosave_dir() / (hashlib.sha1(str(model_path.resolve()).encode()).hexdigest()[:16] + ".json")


@dataclass(frozen=True)
class Orphan:
    """A never-saved model's autosave whose designer is gone."""

    file: Path
    model: Model
    saved_at: datetime


def orphaned_untitled() -> list[Orphan]:
    """The autosaves of never-saved models whose designer process no longer runs, newest first. One that
    cannot be read is not offered (nor removed: it may be another version's)."""
    try:
        files = list(autosave_folder().iterdir())
    except OSError:
        return []
    out = []
    for file in files:
        match = _UNTITLED_NAME.fullmatch(file.name)
        if match is None or _running(int(match[1])):
            continue
        try:
            doc = load_json(file.read_text(encoding="utf-8"))
            if doc.get("path") is not None:
                continue
            model = parse_model(json.dumps(doc["model"]), str(file))
            out.append(Orphan(file, model, datetime.fromtimestamp(file.stat().st_mtime)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ModelLoadError):
            continue
    return sorted(out, key=lambda o: o.saved_at, reverse=True)


def _running(pid: int) -> bool:
    """Whether process `pid` runs. On Windows `os.kill` would end it, not probe it: there every keeper is
    taken to run (no orphan is offered)."""
    if pid == os.getpid() or os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True


def recoverable(model_path: Path) -> Model | None:
    """The autosaved model for `model_path`, if it is newer than the file and differs from it (None too when
    the autosave folder cannot be made: there is nothing to recover, and the model still opens)."""
    try:
        auto = autosave_path(model_path)
    except OSError:
        return None
    if not auto.exists() or not model_path.exists():
        return None
    if auto.stat().st_mtime <= model_path.stat().st_mtime:
        return None
    try:  # an autosave that cannot be read (truncated, hostile, from another version) is not offered
        doc = load_json(auto.read_text(encoding="utf-8"))
        model = parse_model(json.dumps(doc["model"]), str(auto))
    except (OSError, ValueError, KeyError, TypeError, ModelLoadError):
        return None
    return model if dump_model(model) != model_path.read_text(encoding="utf-8") else None


class Autosaver(QObject):
    """Keeps the autosave of one document. A folder or disk that refuses it (full, read-only, a file in the
    way) costs only the autosave: said by `sig_failed` once, never an exception out of a timer, a save or a
    close."""

    sig_failed = Signal(str)  # why the autosave could not be written (once, until one succeeds)

    def __init__(self, document: Document, delay_ms: int = 3000, interval_ms: int = 60_000) -> None:
        super().__init__(document)
        self.document = document
        self.debounce = QTimer(self, singleShot=True, interval=delay_ms)
        self.debounce.timeout.connect(self.save_now)
        self.periodic = QTimer(self, interval=interval_ms)
        self.periodic.timeout.connect(lambda: self.document.dirty and self.save_now())
        self.periodic.start()
        document.sig_changed.connect(lambda _e: self.debounce.start())
        document.sig_dirty_changed.connect(lambda dirty: None if dirty else self.discard())
        self.path = document.path  # the file the autosave is kept for
        self.failing = False
        document.sig_path_changed.connect(self._moved)

    def _moved(self, path: Path | None) -> None:
        """Save As: the edits now live in the new file, so the autosave kept for the old one (or for the
        never-saved model) goes; left behind, reopening the old file would offer them as its own."""
        _remove(self.path)
        self.path = path

    def save_now(self) -> Path | None:
        if not self.document.dirty:
            return None
        doc = {"path": str(self.document.path) if self.document.path else None,
               "model": json.loads(dump_model(self.document.model))}
        try:
            target = autosave_path(self.document.path)
            write_atomic(target, json.dumps(doc), mode=0o600)  # a private copy: only its owner reads it
        except OSError as exc:
            if not self.failing:
                self.sig_failed.emit(f"Autosave failed: cannot write to {autosave_folder()}: {exc.strerror or exc}")
            self.failing = True
            return None
        self.failing = False
        return target

    def set_interval(self, interval_ms: int) -> None:
        """How often an unsaved model is written while it stays unsaved (Edit ▸ Preferences); from now on."""
        self.periodic.setInterval(max(1000, interval_ms))

    def discard(self) -> None:
        _remove(self.document.path)

    def stop_and_discard(self) -> None:
        """The user threw the changes away: no pending or periodic autosave may write them back."""
        self.debounce.stop()
        self.periodic.stop()
        self.discard()


def _remove(model_path: Path | None) -> None:
    """Remove the autosave kept for `model_path`; one that cannot be (no autosave folder) is none to remove."""
    with suppress(OSError):
        autosave_path(model_path).unlink(missing_ok=True)
