"""Reading a run directory back, checked before anything uses it (docs/contract.md §6).

A run directory is read only through `read_run_files`, which refuses a damaged one with a typed error
naming the file, the line where there is one, and what is wrong: `manifest.json` must be a JSON object
naming the engine `mapwright`, with a known status and integer counts. A succeeded run must hold every
file the contract lists, each well-formed (JSON lines of objects, a convergence object, Parquet files
pyarrow reads) and agreeing with the manifest's counts, so that a cut or half-copied run is never shown
as if it were whole. A failed or cancelled run holds only its manifest and is not damaged.

A failed attempt over a good run leaves its manifest in the sibling `RUNDIR.attempt/`; it is reported
beside the run (`LastAttempt`) so readers can say that the last attempt failed and where its reason is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine.model.io import MAX_MODEL_BYTES, one_line
from engine.model.jsonpos import line_of
from engine.run.input.files import InputFileError, open_input_file, read_input_file
from engine.run.rundir.documents import convergence_fault, kind, manifest_fault
from engine.run.rundir.write import table_file

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
MAX_RUN_FILE_BYTES = 64 << 30
"""The largest file of a run directory read back (a run's conflicts of hundreds of millions of events fit)."""
JSON_LINES = ("conflicts.jsonl", "error_queue.jsonl", "rejects.jsonl")
SUCCEEDED_FILES = (*JSON_LINES, "conflicts.parquet", "convergence.json")
ROW_FIELDS = {"conflicts.jsonl": ("dkey", "local", "remote_old", "remote_new", "result"),
              "error_queue.jsonl": ("before", "after"), "rejects.jsonl": ()}
TEXT_FIELDS = {"conflicts.jsonl": ("site", "table", "type", "outcome"), "error_queue.jsonl": ("site", "table"),
               "rejects.jsonl": ()}
"""Fields every line must have as text: what the summary groups by and the browser shows."""

Doc = dict[str, Any]


class RunDirUnreadable(ValueError):
    """Not a run directory, or one whose files cannot be read; the message names the file (and the line)."""

    def __init__(self, path: Path | str, problem: str, line: int | None = None, where: str | None = None) -> None:
        self.path, self.problem, self.line, self.where = Path(path), problem, line, where
        where_shown = where if where is None or len(where) <= 80 else where[:77] + "..."
        place = f"{path}" + (f":{line}" if line is not None else "") + (f" {where_shown}" if where_shown else "")
        # always one line, and a key or value of the file holding ESC cannot drive the terminal it is printed on
        super().__init__(one_line(" ".join(f"{place}: {problem}".split())))


class RunDirDamaged(RunDirUnreadable):
    """A run directory whose files are missing, cut short, of the wrong shape or disagree with its counts."""


@dataclass(frozen=True)
class LastAttempt:
    """A run that failed or was cancelled over a good run, and wrote its manifest beside it."""

    manifest_path: Path
    status: str
    reason: str | None

    def describe(self) -> str:
        reason = f": {self.reason}" if self.reason else ""
        return f"the last attempt {self.status}{reason} (its reason is in {self.manifest_path})"

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "manifest": str(self.manifest_path)}


@dataclass
class RunFiles:
    """What a run directory holds, checked: the manifest and the records of a succeeded run."""

    manifest: Doc
    conflicts: list[Doc] = field(default_factory=list)
    error_queue: list[Doc] = field(default_factory=list)
    rejects: list[Doc] = field(default_factory=list)
    convergence: list[Doc] = field(default_factory=list)
    last_attempt: LastAttempt | None = None


# --- the entry points ----------------------------------------------------------------------------------

def read_run_files(rundir: Path) -> RunFiles:
    """Check and read the run directory `rundir`; raises `RunDirUnreadable` (or `RunDirDamaged`)."""
    rundir = Path(rundir)
    attempt = last_attempt(rundir)
    try:
        files = _read_checked(rundir)
    except RunDirUnreadable as exc:
        if attempt is None:
            raise
        raise type(exc)(exc.path, f"{exc.problem}; {attempt.describe()}", exc.line, exc.where) from None
    if attempt is not None and not _is_older(attempt, files.manifest):
        files.last_attempt = attempt
    return files


def last_attempt(rundir: Path) -> LastAttempt | None:
    """The manifest a failed attempt left in `RUNDIR.attempt/`, if any (read leniently: it is only a note)."""
    base = rundir if rundir.name not in ("", ".", "..") else rundir.resolve()
    path = base.with_name(base.name + ".attempt") / MANIFEST
    if not path.is_file():
        return None
    try:
        doc = json.loads(read_input_file(path, MAX_MANIFEST_BYTES))
    except (OSError, ValueError, RecursionError) as exc:  # InputFileError is a ValueError
        return LastAttempt(path, "failed", f"its manifest cannot be read ({_first_line(exc)})")
    if not isinstance(doc, dict):
        return LastAttempt(path, "failed", "its manifest is not a JSON object")
    status, reason = doc.get("status"), doc.get("reason")
    if status == "succeeded":
        return None
    return LastAttempt(path, str(status) if isinstance(status, str) else "failed",
                       reason if isinstance(reason, str) else None)


def _is_older(attempt: LastAttempt, manifest: Doc) -> bool:
    """An attempt that started before the run at RUNDIR finished is history, not the last attempt."""
    try:
        started = json.loads(read_input_file(attempt.manifest_path, MAX_MANIFEST_BYTES)).get("started")
        return bool(_when(started) < _when(manifest.get("finished")))
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def _when(value: Any) -> datetime:
    if not isinstance(value, str):
        raise TypeError("not a timestamp")
    return datetime.fromisoformat(value)


# --- the checks ----------------------------------------------------------------------------------------

def _read_checked(rundir: Path) -> RunFiles:
    if not rundir.is_dir():
        raise RunDirUnreadable(rundir, "no such folder" if not rundir.exists() else "not a folder")
    manifest_path = rundir / MANIFEST
    if not manifest_path.exists():
        raise RunDirUnreadable(rundir, f"not a run directory (no {MANIFEST})")
    text = read_text(manifest_path)
    manifest = parse_json(manifest_path, text)
    check_manifest(manifest_path, text, manifest)
    if manifest["status"] != "succeeded":
        return RunFiles(manifest)
    for name in SUCCEEDED_FILES:
        if not (rundir / name).exists():
            raise RunDirDamaged(rundir / name, "missing (a succeeded run always writes it)")
    counts: dict[str, int] = manifest["counts"]
    records = {name: read_json_lines(rundir / name) for name in JSON_LINES}
    for name, key in (("conflicts.jsonl", "conflicts"), ("rejects.jsonl", "rejects"),
                      ("error_queue.jsonl", "queued")):
        if len(records[name]) != counts[key]:
            raise RunDirDamaged(rundir / name, f"holds {len(records[name])} line(s) but {MANIFEST} counts "
                                               f"{key} {counts[key]} (cut short or edited?)")
    convergence_path = rundir / "convergence.json"
    convergence_text = read_text(convergence_path)
    convergence = check_convergence(convergence_path, convergence_text, parse_json(convergence_path,
                                                                                  convergence_text))
    check_parquet(rundir / "conflicts.parquet", expected_rows=counts["conflicts"])
    check_tables(rundir, records["conflicts.jsonl"], records["error_queue.jsonl"], manifest)
    return RunFiles(manifest, records["conflicts.jsonl"], records["error_queue.jsonl"], records["rejects.jsonl"],
                    convergence)


def read_text(path: Path) -> str:
    """A file's text: strict UTF-8 and no NUL bytes (binary content), else a `RunDirDamaged` naming the line."""
    if path.is_dir():
        raise RunDirDamaged(path, "is a folder, not a file")
    if path.exists() and not path.is_file():  # a pipe or a device would block or never end
        raise RunDirDamaged(path, "not a regular file")
    try:
        data = read_input_file(path, MAX_RUN_FILE_BYTES)  # checked again as opened: it may have been swapped
    except InputFileError as exc:
        raise RunDirDamaged(path, str(exc).removeprefix(f"{path}: ")) from None
    except OSError as exc:
        raise RunDirUnreadable(path, f"cannot be read ({exc.strerror or exc})") from None
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if nul < 0 or exc.start < nul:
            raise RunDirDamaged(path, "not UTF-8 text (binary content?)", data.count(b"\n", 0, exc.start) + 1) \
                from None
    if nul >= 0:
        raise RunDirDamaged(path, "binary content (a NUL byte), not JSON text", data.count(b"\n", 0, nul) + 1)
    return text


def parse_json(path: Path, text: str) -> Any:
    if not text.strip():
        raise RunDirDamaged(path, "empty file, expected a JSON object")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        ended = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        cut = "; the file ends too early: cut short?" if ended else ""
        raise RunDirDamaged(path, f"invalid JSON: {exc.msg} (column {exc.colno}){cut}", exc.lineno) from None
    except RecursionError:
        raise RunDirDamaged(path, "JSON nested too deeply") from None
    except ValueError:  # an integer of over 4,300 digits
        raise RunDirDamaged(path, "a number too long to read") from None


def read_json_lines(path: Path) -> list[Doc]:
    """Every non-blank line a JSON object; the text fields and row images of the contract of the right shape."""
    text = read_text(path)
    rows, texts = ROW_FIELDS.get(path.name, ()), TEXT_FIELDS.get(path.name, ())
    out: list[Doc] = []
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            cut = "; the file ends inside this line: cut short?" if number == len(lines) else ""
            raise RunDirDamaged(path, f"invalid JSON: {exc.msg} (column {exc.colno}){cut}", number) from None
        except RecursionError:
            raise RunDirDamaged(path, "JSON nested too deeply", number) from None
        except ValueError:  # an integer of over 4,300 digits
            raise RunDirDamaged(path, "a number too long to read", number) from None
        if not isinstance(doc, dict):
            raise RunDirDamaged(path, f"expected a JSON object, got {kind(doc)}", number)
        for name in texts:
            if not isinstance(doc.get(name), str):
                raise RunDirDamaged(path, f"expected text, got {kind(doc.get(name))}", number, name)
        for name in rows:
            if doc.get(name) is not None and not isinstance(doc[name], dict):
                raise RunDirDamaged(path, f"expected a row (an object) or null, got {kind(doc[name])}", number, name)
        out.append(doc)
    return out


def check_manifest(path: Path, text: str, doc: Any) -> None:
    """A JSON object that is a `documents.Manifest`; else its first fault, naming the file, line and field
    (`RunDirUnreadable` for a manifest of another engine, `RunDirDamaged` otherwise)."""
    if not isinstance(doc, dict):
        raise RunDirUnreadable(path, f"not a run manifest: expected a JSON object, got {kind(doc)}", 1)
    fault = manifest_fault(doc)
    if fault is not None:
        where, problem = fault
        kind_of = RunDirUnreadable if where == ["engine"] else RunDirDamaged
        raise kind_of(path, problem, line_of(text, where), ".".join(str(p) for p in where))


def check_convergence(path: Path, text: str, doc: Any) -> list[Doc]:
    """A JSON object that is a `documents.Convergence`; its mappings. Else its first fault, naming the file,
    line and field (`RunDirDamaged`)."""
    if not isinstance(doc, dict):
        raise RunDirDamaged(path, f"expected a JSON object, got {kind(doc)}", 1)
    fault = convergence_fault(doc)
    if fault is not None:
        where, problem = fault
        raise RunDirDamaged(path, problem, line_of(text, where), _dotted(where) or None)
    mappings: list[Doc] = doc["mappings"]
    return mappings


def check_parquet(path: Path, expected_rows: int | None = None) -> int:
    """Read every page of a Parquet file (a cut or corrupt file fails here); returns its number of rows."""
    if not path.is_file():
        raise RunDirDamaged(path, "is a folder, not a Parquet file" if path.is_dir() else "not a regular file")
    try:
        with open_input_file(path, MAX_RUN_FILE_BYTES) as fh:
            parquet = pq.ParquetFile(fh)
            rows: int = sum(int(batch.num_rows) for batch in parquet.iter_batches(batch_size=65_536))
    except InputFileError as exc:
        raise RunDirDamaged(path, str(exc).removeprefix(f"{path}: ")) from None
    except (pa.ArrowException, OSError, ValueError, EOFError) as exc:
        raise RunDirDamaged(path, f"not a readable Parquet file ({_first_line(exc)})") from None
    if expected_rows is not None and rows != expected_rows:
        raise RunDirDamaged(path, f"holds {rows} row(s) but {MANIFEST} counts {expected_rows}")
    return rows


def check_tables(rundir: Path, conflicts: list[Doc], queue: list[Doc], manifest: Doc) -> None:
    """`tables/<server>/<table>.parquet`: present, readable, and every table the run names is there."""
    folder = rundir / "tables"
    if not folder.is_dir():
        raise RunDirDamaged(folder, "missing (a succeeded run writes its final tables there)" if not folder.exists()
                            else "not a folder")
    files = sorted(folder.glob("*/*.parquet"))
    listed = manifest.get("tables")  # the tables the run wrote (manifests since 0.2 list them)
    if not files and not isinstance(listed, list):
        raise RunDirDamaged(folder, "holds no final table (no <server>/<table>.parquet)")
    for file in files:
        check_parquet(file)
    named = [(f"{c['table']}", "conflicts.jsonl", n) for n, c in enumerate(conflicts, start=1)]
    named += [(f"{e['site']}.{e['table']}", "error_queue.jsonl", n) for n, e in enumerate(queue, start=1)]
    for key, source, number in named:
        missing = _missing_table(rundir, key)
        if missing:
            raise RunDirDamaged(missing, f"missing, yet {source} line {number} names the table {key}")
    for key in listed if isinstance(listed, list) else []:
        missing = _missing_table(rundir, str(key))
        if missing:
            raise RunDirDamaged(missing, f"missing, yet {MANIFEST} lists the table {key}")
    for server, table in model_tables(manifest):
        path = table_file(rundir, server, table)
        if not path.is_file():
            raise RunDirDamaged(path, f"missing, yet the run's model has the table {server}.{table}")


def _missing_table(rundir: Path, key: str) -> Path | None:
    """None when the final table `key` (`server.table`) is in `rundir`, else where it should be. A server id
    may hold a dot too: any split of the key with a file there will do."""
    splits = [i for i, ch in enumerate(key) if ch == "."] or [len(key)]
    paths = [table_file(rundir, key[:i], key[i + 1:]) for i in splits]
    return None if any(p.is_file() for p in paths) else paths[0]


def model_tables(manifest: Doc) -> list[tuple[str, str]]:
    """(server, table) of the run's model, when the manifest's model file is still there unchanged (same
    SHA-256); otherwise nothing: the model is only a cross-check."""
    model = manifest.get("model")
    path, sha = (model.get("path"), model.get("sha256")) if isinstance(model, dict) else (None, None)
    if not isinstance(path, str) or not isinstance(sha, str):
        return []
    try:
        data = read_input_file(Path(path), MAX_MODEL_BYTES)
        if hashlib.sha256(data).hexdigest() != sha:
            return []
        doc = json.loads(data)
        return [(t["server"], t["name"]) for t in doc["tables"]
                if isinstance(t.get("server"), str) and isinstance(t.get("name"), str)]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


# --- small helpers -------------------------------------------------------------------------------------

def _dotted(where: Sequence[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(where))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
