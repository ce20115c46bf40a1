"""Reading a run's input: change records (`DIR/changes/*.jsonl`) and snapshots (docs/contract.md §4).

Each change record is decoded with the replication definition of its
`schema_version` (seed 002): an old row keeps the columns and types of its
version, a new row those of its own. A record that fails to parse or to
match its table and version becomes a `Reject` and the run goes on: also a
line that is not UTF-8, is larger than `MAX_RECORD_BYTES` or nests deeper
than `MAX_DEPTH`, and a value that does not fit its column's type (section 7).
Both engines read lines as bytes and decode them here, so they reject alike.
Snapshots are the initial state, not records: a snapshot that does not fit
its table, or holds a NULL or duplicate key, stops the run (`InputError`).
Every file is read only as a regular file of at most `MAX_INPUT_FILE_BYTES`
(`engine.run.inputfiles`); a snapshot or changes file that is a pipe, a
device, a folder or a broken link is an `InputError` naming it.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.model.schema import Model, Table
from engine.model.types import SqlType, TypeError_, parse_type
from engine.run.context import identity_columns
from engine.run.inputfiles import InputFileError, check_input_file, open_input_file, read_input_file
from engine.run.state import hashable
from engine.run.values import (
    ConversionError,
    ValueDecodeError,
    conform,
    decode_text,
    decode_value,
    parse_timestamp,
    to_text,
)

Row = dict[str, Any]
RECORD_FIELDS = ("site", "txn", "seq", "commit_ts", "table", "op", "before", "after", "schema_version")


class InputError(ValueError):
    """Input the run cannot go on without reading (a bad snapshot, an unreadable file)."""


@dataclass(frozen=True)
class Reject:
    """A record that was not accepted, with where it was and why."""

    file: str
    line: int
    reason: str
    raw: str

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "reason": self.reason, "raw": self.raw}


@dataclass(frozen=True)
class Version:
    """One replication definition of a table: its columns and their types (None: untyped)."""

    number: int | None
    types: dict[str, SqlType | None]


@dataclass(frozen=True)
class ChangeRecord:
    """An accepted change record, its images typed by its version."""

    file: str
    line: int
    site: str
    txn: str
    seq: int
    commit_ts: datetime
    table: str
    op: str
    before: Row | None
    after: Row | None
    version: int | None
    version_columns: tuple[str, ...]


def versions_of(table: Table) -> dict[int | None, Version]:
    """The table's replication definitions by number; absent, one implicit version (number None, which
    a record may also call 1) of all the table's columns. A definition column without a type takes the
    table column's type."""
    current = {c.name: c.sql_type for c in table.columns}
    if not table.replication_definitions:
        return {None: Version(None, dict(current))}
    out: dict[int | None, Version] = {}
    for d in table.replication_definitions:
        types: dict[str, SqlType | None] = {}
        for c in d.columns:
            try:
                types[c.name] = parse_type(c.type) if c.type else current.get(c.name)
            except TypeError_:
                types[c.name] = current.get(c.name)
        out[d.version] = Version(d.version, types)
    return out


def latest_version(table: Table) -> int | None:
    latest = table.latest_definition()
    return latest.version if latest else None


def decode_record(data: str | bytes, file: str, line: int, model: Model) -> ChangeRecord | Reject:
    """One line of a changes file (its bytes, or text already decoded), decoded; a `Reject` when it is
    not UTF-8, is too large or too deeply nested, or does not parse or match."""
    raw = line_text(data)
    if isinstance(raw, Reject):
        return shown_reject(file, line, raw.reason, raw.raw)

    def reject(reason: str) -> Reject:
        return shown_reject(file, line, reason, raw)
    doc, problem = parse_json(raw)
    if problem is not None:
        return reject(problem)
    if not isinstance(doc, dict):
        return reject("not a JSON object")
    return decode_doc(doc, raw, file, line, model)


def decode_doc(doc: dict[str, Any], raw: str, file: str, line: int, model: Model) -> ChangeRecord | Reject:
    """A change record already parsed from `raw` (an object of `RECORD_FIELDS`), decoded; a `Reject`
    when it does not match its table and version. Debezium events are read through it too."""

    def reject(reason: str) -> Reject:
        return shown_reject(file, line, reason, raw)
    site, table_name, op = doc.get("site"), doc.get("table"), doc.get("op")
    if not isinstance(site, str) or model.server(site) is None:
        return reject(f"unknown site {_shown(site)}")
    if not isinstance(table_name, str):
        return reject("missing table")
    table = model.table(f"{site}.{table_name}")
    if table is None:
        return reject(f"unknown table {site}.{_cut(table_name)}")
    if op not in ("I", "U", "D"):
        return reject(f"unknown op {_shown(op)} (expected I, U or D)")
    txn = doc.get("txn")
    if isinstance(txn, bool) or not isinstance(txn, (str, int)) or txn == "":
        return reject("missing txn")
    seq = doc.get("seq", 0)
    if isinstance(seq, bool) or not isinstance(seq, int):
        return reject(f"seq must be an integer, got {_shown(seq)}")
    if not SEQ_MIN <= seq <= SEQ_MAX:
        return reject(f"seq {seq} is out of range ({SEQ_MIN} to {SEQ_MAX})")
    if not isinstance(doc.get("commit_ts"), str):
        return reject("missing commit_ts")
    try:
        commit_ts = parse_timestamp(doc["commit_ts"])
    except ValueDecodeError as exc:
        return reject(f"bad timestamp {_shown(doc['commit_ts'])}: {exc}")
    if not COMMIT_TS_MIN <= commit_ts < COMMIT_TS_END:
        return reject(f"commit_ts {_shown(doc['commit_ts'])} is outside the years "
                      f"{COMMIT_TS_MIN.year}-{COMMIT_TS_END.year - 1}")
    versions = versions_of(table)
    number = doc.get("schema_version")
    if isinstance(number, bool):
        return reject(f"schema_version must be a number, got {_shown(number)}")
    if number is None or (number == 1 and not table.replication_definitions):
        number = latest_version(table)  # absent: the latest; the implicit version also answers to 1
    if number not in versions:
        known = ", ".join(str(v) for v in versions if v is not None) or "none defined"
        return reject(f"unknown schema_version {_shown(number)} for {table.key} (versions: {known})")
    version = versions[number]
    images: dict[str, Row | None] = {}
    for side in ("before", "after"):
        present = doc.get(side) is not None
        wanted = op in ("U", "D") if side == "before" else op in ("I", "U")
        article = "an" if side == "after" else "a"
        if present and not wanted:
            return reject(f"{_op_name(op)} has {article} {side} image")
        if wanted and not present:
            return reject(f"{_op_name(op)} has no {side} image")
        if not present:
            images[side] = None
            continue
        image = doc[side]
        if not isinstance(image, dict):
            return reject(f"{side} is not an object")
        decoded = decode_image(image, version, table)
        if isinstance(decoded, str):
            return reject(f"{side}: {decoded}")
        images[side] = decoded
    return ChangeRecord(file, line, site, str(txn), seq, commit_ts, table.key, op, images["before"],
                        images["after"], version.number, tuple(version.types))


def decode_image(image: Row, version: Version, table: Table, keyed: bool = True) -> Row | str:
    """A row image typed by its version, every version column present (left out = NULL); or the reason
    it does not match. `keyed=False`: a NULL key is left to the caller (a snapshot's, which fails the run
    naming the row)."""
    for name in image:
        if name not in version.types:
            return f"column {_shown(name)} is not in {table.key} version {_version_name(version)}"
    key = identity_columns(table) if table.primary_key or table.unique_indexes else ()
    for name in key:
        if name not in version.types:
            return f"version {_version_name(version)} lacks key column {name!r}"
        if image.get(name) is None and keyed:
            return f"missing key column {name!r}"
    row: Row = {}
    for name, t in version.types.items():
        try:
            row[name] = decode_value(image.get(name), t)
        except ValueDecodeError as exc:
            return f"column {name!r}: {exc}"
        column = table.column(name)
        if column is not None and row[name] is not None:
            try:
                conform(row[name], column.sql_type)
            except ConversionError:
                return f"column {name!r}: {_shown(image.get(name))} does not fit the table's current type {column.type}"
    return row


MAX_RECORD_BYTES = 16 * 1024 * 1024
"""The largest change record a run reads (16 MiB, large objects included); a larger one is a reject.
A run holds a record several times over (its images, the conflict's four rows, the JVM's copies of
each), so a record much larger would put the run itself at risk on a desktop's memory."""
MAX_DEPTH = 64
"""How deeply a record's JSON may nest (objects and lists); deeper is a reject, never a crash."""
SHOWN_RAW = 65536
"""How many characters of its line a reject keeps as its `raw`: enough to see what is wrong, never a
copy of a huge line (the rejects of a run are gathered in one place)."""
SEQ_MIN, SEQ_MAX = -(2**63), 2**63 - 1
"""`seq` is a signed 64-bit integer, as Spark and Parquet hold it."""
COMMIT_TS_MIN = datetime(1900, 1, 1, tzinfo=UTC)
COMMIT_TS_END = datetime(9000, 1, 1, tzinfo=UTC)
"""The commit times a run accepts: any plausible log, with centuries to spare for delivery delays."""


def line_text(data: str | bytes) -> str | Reject:
    """A line's text; a `Reject` (file and line left empty) when it is not UTF-8 or too large."""
    size = len(data) if isinstance(data, bytes) else None
    if size is None and len(data) * 4 > MAX_RECORD_BYTES:  # only then is counting the bytes worth it
        size = len(data.encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
    if size is not None and size > MAX_RECORD_BYTES:
        return oversize_reject(data[:SHOWN_RAW], size)
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Reject("", 0, f"invalid UTF-8 at byte {exc.start + 1} (not replaced: the record is not read)",
                      data.decode("utf-8", "backslashreplace"))


def oversize_reject(head: str | bytes, size: int) -> Reject:
    """The reject of a record of `size` bytes, over the limit, from its first `SHOWN_RAW` bytes or
    characters (file and line left empty): the record itself need not be held whole."""
    shown = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    return Reject("", 0, f"record of {size} bytes is larger than the limit of {MAX_RECORD_BYTES} bytes "
                         f"(raw holds its first {SHOWN_RAW} characters)", shown[:SHOWN_RAW])


def shown_reject(file: str, line: int, reason: str, raw: str) -> Reject:
    """A reject whose `raw` is cut to `SHOWN_RAW` characters, the reason saying so when it is."""
    if len(raw) <= SHOWN_RAW:
        return Reject(file, line, reason, raw)
    return Reject(file, line, f"{reason} (raw holds its first {SHOWN_RAW} characters)", raw[:SHOWN_RAW])


def parse_json(text: str) -> tuple[Any, str | None]:
    """(the JSON value of `text`, None), or (None, the reason it is not a usable one)."""
    try:
        doc = json.loads(text, parse_float=Decimal)  # a number as written: a float kept 17 digits of it
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} (column {exc.colno})"
    except RecursionError:
        return None, f"JSON nested deeper than {MAX_DEPTH} levels"
    except ValueError as exc:  # an integer of more than 4,300 digits
        return None, f"not JSON: {str(exc).split(';')[0]}"
    problem = json_problem(doc)
    return (None, problem) if problem else (doc, None)


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON value cannot be used, or None: objects and lists nested deeper than `MAX_DEPTH`,
    or a string holding a lone surrogate (`"\\ud800"` parses, but is not Unicode text and could never be
    written out). Walks the value without recursion."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"a JSON string holds a lone surrogate ({item[exc.start]!r}), which is not Unicode text"
            continue
        if isinstance(item, dict):
            if level >= MAX_DEPTH:
                return f"JSON nested deeper than {MAX_DEPTH} levels"
            stack.extend((k, level + 1) for k in item)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            if level >= MAX_DEPTH:
                return f"JSON nested deeper than {MAX_DEPTH} levels"
            stack.extend((v, level + 1) for v in item)
    return None


def _shown(value: Any, limit: int = 60) -> str:
    """A value as a reason line shows it: its repr, cut."""
    return _cut(repr(value), limit)


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _op_name(op: str) -> str:
    return {"I": "an insert", "U": "an update", "D": "a delete"}[op]


def _version_name(version: Version) -> str:
    return "(implicit)" if version.number is None else str(version.number)


MAX_INPUT_FILE_BYTES = 16 << 30
"""The largest changes or snapshot file a run reads (16 GiB; the reference holds a file whole): sample data
of a hundred million events, far beyond what a run of this tool is for, and a bound on a file that grows."""


def checked_input(path: Path) -> Path:
    """`path`, once checked as a regular file a run may read (`inputfiles`); `InputError` naming it if not."""
    try:
        check_input_file(path, MAX_INPUT_FILE_BYTES)
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    return path


BLANK = " \t\r\f\v"
"""The characters a blank change line may hold."""
BLANK_BYTES = BLANK.encode("ascii")


def change_files(changes_dir: Path) -> list[Path]:
    """The `changes/*.jsonl` files, by name; none when the folder is absent. Raises `InputError` when
    `changes` is not a folder or a file cannot be read, so that both engines refuse it alike."""
    if not changes_dir.exists():
        return []
    if not changes_dir.is_dir():
        raise InputError(f"{changes_dir}: not a folder (change records go in changes/*.jsonl)")
    return [checked_input(path) for path in sorted(changes_dir.glob("*.jsonl"))]


def split_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) for every non-blank line of a changes file's content.

    Lines end at `\n` only (a JSON string may hold other separators, U+2028...); a `\r` before it is
    dropped, and so is a UTF-8 byte-order mark at the start (editors on Windows write one). The bytes
    are not decoded here: a line that is not UTF-8 is one reject, not a lost file.
    """
    for number, line in enumerate(data.removeprefix(codecs.BOM_UTF8).split(b"\n"), start=1):
        line = line.removesuffix(b"\r")
        if line.strip(BLANK_BYTES):
            yield number, line


def change_lines(changes_dir: Path) -> Iterator[tuple[str, int, bytes]]:
    """(file, line number from 1, bytes) for every non-blank line of `changes/*.jsonl`, files by name."""
    for path in change_files(changes_dir):
        try:
            data = read_input_file(path, MAX_INPUT_FILE_BYTES)
        except InputFileError as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
        for number, line in split_lines(data):
            yield str(path), number, line


def read_changes(data_dir: Path, model: Model) -> tuple[list[ChangeRecord], list[Reject]]:
    """Every change record of `DIR/changes/*.jsonl`: the accepted ones and the rejects, in file order."""
    return decode_lines(change_lines(data_dir / "changes"), model)


def decode_lines(lines: Iterable[tuple[str, int, str | bytes]],
                 model: Model) -> tuple[list[ChangeRecord], list[Reject]]:
    accepted: list[ChangeRecord] = []
    rejects: list[Reject] = []
    for file, line, text in lines:
        result = decode_record(text, file, line, model)
        (rejects if isinstance(result, Reject) else accepted).append(result)  # type: ignore[arg-type]
    return accepted, rejects


# --- snapshots -------------------------------------------------------------

SNAPSHOT_SUFFIXES = (".csv", ".jsonl", ".parquet")


def read_snapshots(data_dir: Path, model: Model) -> dict[str, list[Row]]:
    """Initial rows per table key from `DIR/snapshots/<server>/<table>.{csv,jsonl,parquet}`.

    Values are typed by the table's columns; a column the file leaves out is NULL.
    """
    return {table.key: read_snapshot_file(path, table) for path, table in snapshot_files(data_dir, model)}


def snapshot_files(data_dir: Path, model: Model) -> list[tuple[Path, Table]]:
    """The snapshot files and their tables, in the order they are read; `InputError` for a file of no table
    of the model, a second snapshot of one, or a snapshot that is no regular file (a pipe, a device, a folder,
    a broken link: passed over, it had left that site's initial rows out of a run that succeeded)."""
    root = data_dir / "snapshots"
    if not root.is_dir():
        if os.path.lexists(root):
            raise InputError(f"{root}: not a folder (snapshots go in snapshots/<server>/<table>.csv|jsonl|parquet)")
        return []
    out: list[tuple[Path, Table]] = []
    seen: set[str] = set()
    for path in sorted(root.glob("*/*")):
        if path.suffix.lower() not in SNAPSHOT_SUFFIXES:
            continue
        checked_input(path)
        table = model.table(f"{path.parent.name}.{path.stem}")
        if table is None:
            raise InputError(f"{path}: no table {path.parent.name}.{path.stem} in the model")
        if table.key in seen:
            raise InputError(f"{path}: a second snapshot of {table.key}")
        seen.add(table.key)
        out.append((path, table))
    return out


def read_snapshot_file(path: Path, table: Table) -> list[Row]:
    """One snapshot file's rows, typed and key-checked; `InputError` naming file:line."""
    typed = [(f"{path}:{n}", typed_row(raw, table, f"{path}:{n}")) for n, raw in _snapshot_rows(path)]
    check_keys(typed, table)
    return [row for _, row in typed]


def check_keys(rows: Iterable[tuple[str, Row]], table: Table) -> None:
    """Raise `InputError` naming `where` (file:line) at the first row with a NULL primary-key column or
    a key another row already holds: a table holds neither, so a snapshot with one does not fit it."""
    unique = ([("primary key", tuple(table.primary_key))] if table.primary_key else []) + \
        [(f"unique index {ux.name}", tuple(ux.columns)) for ux in table.unique_indexes]
    seen: dict[tuple[str, tuple[Any, ...]], str] = {}
    for where, row in rows:
        for column in table.primary_key:
            if row.get(column) is None:
                raise InputError(f"{where}: primary key column {column} is NULL")
        for name, columns in unique:
            values = tuple(row.get(c) for c in columns)
            if any(v is None for v in values):
                continue  # NULLs never collide in a unique index
            key = (name, tuple(hashable(v) for v in values))
            if key in seen:
                shown = ", ".join(f"{c}={to_text(v)}" for c, v in zip(columns, values, strict=True))
                raise InputError(f"{where}: duplicate {name} ({_cut(shown)}), first at {seen[key]}")
            seen[key] = where


def _snapshot_rows(path: Path) -> Iterator[tuple[int, Row]]:
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            with open_input_file(path, MAX_INPUT_FILE_BYTES) as fh:
                rows = pq.read_table(fh).to_pylist()
            yield from enumerate(rows, start=1)
            return
        text = read_input_file(path, MAX_INPUT_FILE_BYTES).decode("utf-8-sig")
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    except Exception as exc:  # pyarrow raises its own error types for a broken file
        raise InputError(f"{path}: cannot read Parquet ({exc})") from None
    if suffix == ".csv":
        yield from _csv_rows(path, text)
        return
    # split on newlines only: JSON strings may hold other line separators (U+2028...)
    for n, line in enumerate((x.removesuffix("\r") for x in text.split("\n")), start=1):
        if not line.strip():
            continue
        doc, problem = parse_json(line)
        if problem is not None:
            raise InputError(f"{path}:{n}: {problem}")
        if not isinstance(doc, dict):
            raise InputError(f"{path}:{n}: not a JSON object")
        yield n, doc


def _csv_rows(path: Path, text: str) -> Iterator[tuple[int, Row]]:
    """(line, cells) for each CSV row, numbered by the line it ends on (a quoted cell may span lines);
    a cell may be as large as a change record."""
    csv.field_size_limit(max(csv.field_size_limit(), MAX_RECORD_BYTES))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if None in row:
                raise InputError(f"{path}:{reader.line_num}: more cells than header columns")
            yield reader.line_num, {k: _CsvCell(v) for k, v in row.items()}
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: not CSV ({exc})") from None


class _CsvCell(str):
    """A CSV cell: text to be typed by the column (the empty cell is NULL)."""


def typed_row(raw: Row, table: Table, where: str) -> Row:
    """A snapshot row typed by the table's columns; raises `InputError` naming `where`."""
    row: Row = {}
    for name in raw:
        if table.column(name) is None:
            raise InputError(f"{where}: {table.key} has no column {name!r}")
    for col in table.columns:
        value = raw.get(col.name)
        try:
            if isinstance(value, _CsvCell):
                row[col.name] = decode_text(str(value), col.sql_type)
            else:
                row[col.name] = decode_value(value, col.sql_type)
        except ValueDecodeError as exc:
            raise InputError(f"{where}: column {col.name}: {exc}") from None
    return row
