"""The Debezium files of a data folder, `DIR/changes/debezium/<server>/*.json[l]`, and what they hold
(docs/contract.md §4).

One event a line in a `.jsonl` file; in a `.json` file, events one after another however they are printed,
or a JSON array of them (`jsonvalues`: each from the line it starts on). Files are read as every input file
of a run is (`engine.run.input.files`): a pipe, a device, a folder or a broken link is an input error naming
it. Each event is decoded by `envelope.decode_event`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.model.schema import Model
from engine.run.input.debezium.envelope import Skip, SnapshotRow, decode_event
from engine.run.input.files import (
    MAX_INPUT_FILE_BYTES,
    InputError,
    InputFileError,
    checked_input,
    input_lines,
    open_input_file,
    read_input_file,
)
from engine.run.input.jsonvalues import json_values
from engine.run.input.records import BLANK_BYTES, ChangeRecord, Reject, Row
from engine.run.input.snapshots import check_keys

SUFFIXES = (".json", ".jsonl")


@dataclass
class DebeziumInput:
    """What the Debezium files of a data folder hold, by kind."""

    records: list[ChangeRecord] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    snapshot_rows: list[SnapshotRow] = field(default_factory=list)
    skipped: int = 0
    files: int = 0


def debezium_files(changes_dir: Path, model: Model) -> dict[str, str]:
    """{file: server} for every `changes/debezium/<server>/*.json[l]`, by name; `InputError` for a server
    folder the model does not have or a file that cannot be read (both engines refuse alike)."""
    root = changes_dir / "debezium"
    if not root.exists():
        return {}
    if not root.is_dir():
        raise InputError(f"{root}: not a folder (Debezium events go in changes/debezium/<server>/*.jsonl)")
    servers = {s.id for s in model.servers}
    out: dict[str, str] = {}
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            if folder.suffix.lower() in SUFFIXES:
                raise InputError(f"{folder}: Debezium events go in a folder named after their server "
                                 f"(changes/debezium/<server>/{folder.name})")
            continue
        if folder.name not in servers:
            raise InputError(f"{folder}: no server {folder.name!r} in the model "
                             f"(servers: {', '.join(sorted(servers))})")
        for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES):
            out[str(checked_input(path))] = folder.name
    return out


def _read(path: Path) -> bytes:
    """A Debezium file's bytes, read as every input file is (`engine.run.input.files`: a regular file, or a
    link to one, of at most `MAX_INPUT_FILE_BYTES`); `InputError` naming it otherwise."""
    try:
        return read_input_file(path, MAX_INPUT_FILE_BYTES)
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def server_of(file: str) -> str:
    """The server a Debezium file belongs to: its folder's name."""
    return Path(file).parent.name


def is_value_file(file: str) -> bool:
    """A `.json` file: JSON values one after another (`jsonvalues`), where a `.jsonl` file holds one a line."""
    return Path(file).suffix.lower() == ".json"


def file_events(file: str) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) for each event of one Debezium file: each non-blank line of a `.jsonl`
    file, read a line at a time (a large capture is never held whole), or each JSON value of a `.json`
    file, from the line it starts on (`jsonvalues.json_values`, over the file's text)."""
    if is_value_file(file):
        yield from json_values(_read(Path(file)))
        return
    try:
        with open_input_file(Path(file), MAX_INPUT_FILE_BYTES) as fh:
            for number, line in input_lines(fh, MAX_INPUT_FILE_BYTES, Path(file)):
                if line.strip(BLANK_BYTES):
                    yield number, line
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{file}: cannot read ({exc.strerror or exc})") from None


def event_lines(changes_dir: Path, model: Model) -> Iterator[tuple[str, str, int, bytes]]:
    """(server, file, line number from 1, bytes) for every event of the Debezium files (`file_events`)."""
    for file, server in debezium_files(changes_dir, model).items():
        for number, data in file_events(file):
            yield server, file, number, data


def read_debezium(data_dir: Path, model: Model) -> DebeziumInput:
    """Every event of `DIR/changes/debezium/`, decoded, in file order."""
    changes = data_dir / "changes"
    out = DebeziumInput(files=len(debezium_files(changes, model)))
    for server, file, number, data in event_lines(changes, model):
        event = decode_event(data, server, file, number, model)
        if isinstance(event, ChangeRecord):
            out.records.append(event)
        elif isinstance(event, SnapshotRow):
            out.snapshot_rows.append(event)
        elif isinstance(event, Skip):
            out.skipped += 1
        else:
            out.rejects.append(event)
    return out


def add_snapshot_rows(snapshots: dict[str, list[Row]], rows: list[SnapshotRow], model: Model) -> None:
    """Add the `r` events' rows (in file and line order) to the snapshots read from files; `InputError`
    naming file:line for a NULL or duplicate key, as for a snapshot file."""
    by_table: dict[str, list[SnapshotRow]] = {}
    for row in sorted(rows, key=lambda r: (r.file, r.line)):
        by_table.setdefault(row.table, []).append(row)
    for key, added in by_table.items():
        table = model.table(key)
        assert table is not None  # decode_event found it
        existing = snapshots.setdefault(key, [])
        check_keys([(f"snapshot of {key} row {n}", r) for n, r in enumerate(existing, start=1)]
                   + [(f"{r.file}:{r.line}", r.row) for r in added], table)
        existing.extend(r.row for r in added)
