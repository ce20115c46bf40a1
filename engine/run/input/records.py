"""Change records (`DIR/changes/*.jsonl`) as a run reads them (docs/contract.md §4).

Each change record is decoded with the replication definition of its
`schema_version` (seed 002): an old row keeps the columns and types of its
version, a new row those of its own. A record that fails to parse or to
match its table and version becomes a `Reject` and the run goes on: also a
line that is not UTF-8, is larger than `MAX_RECORD_BYTES` or nests deeper
than `MAX_DEPTH`, and a value that does not fit its column's type (section 7).
Both engines read lines as bytes and decode them here, so they reject alike.
Every file is read only as a regular file of at most `MAX_INPUT_FILE_BYTES`
(`engine.run.input.files`); a changes file that is a pipe, a device, a folder
or a broken link is an `InputError` naming it. Snapshots are read by `snapshots`.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, PlainValidator, StrictInt, StrictStr, TypeAdapter
from pydantic_core import ErrorDetails, PydanticCustomError
from typing_extensions import TypedDict

from engine.core.types import SqlType, TypeError_, parse_type
from engine.core.values import ConversionError, ValueDecodeError, conform, decode_value, parse_timestamp
from engine.model.schema import Model, Table
from engine.run.input.declared import validated
from engine.run.input.files import MAX_INPUT_FILE_BYTES, InputError, InputFileError, checked_input, read_input_file
from engine.run.input.keys import identity_columns

Row = dict[str, Any]
RECORD_FIELDS = ("site", "txn", "seq", "commit_ts", "table", "op", "before", "after", "schema_version")


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


def _commit_time(text: Any) -> datetime:
    """A record's `commit_ts` read as an instant within the years a run accepts; a validation error saying why
    not (`commit_ts_type` for anything but text)."""
    if not isinstance(text, str):
        raise PydanticCustomError("commit_ts_type", "missing commit_ts")
    try:
        at = parse_timestamp(text)
    except ValueDecodeError as exc:
        raise ValueError(f"bad timestamp {shown(text)}: {exc}") from None
    if not COMMIT_TS_MIN <= at < COMMIT_TS_END:
        raise ValueError(f"commit_ts {shown(text)} is outside the years {COMMIT_TS_MIN.year}-{COMMIT_TS_END.year - 1}")
    return at


class RecordDoc(TypedDict):
    """A change record as declared (docs/contract.md §4), its fields in the order their faults are told:
    `site` and `table` (then looked up in the model), `op`, `txn` (text or an integer, not empty), `seq`
    (a signed 64-bit integer, 0 when absent), `commit_ts` (a timestamp, read as an instant); the images
    and `schema_version` are read by the table's version (`decode_doc`). Other fields are ignored."""

    site: StrictStr
    table: StrictStr
    op: Literal["I", "U", "D"]
    txn: Annotated[StrictStr, Field(min_length=1)] | StrictInt
    seq: NotRequired[Annotated[StrictInt, Field(ge=SEQ_MIN, le=SEQ_MAX)]]
    commit_ts: Annotated[datetime, PlainValidator(_commit_time)]
    before: NotRequired[Any]
    after: NotRequired[Any]
    schema_version: NotRequired[Any]


_RECORD: TypeAdapter[RecordDoc] = TypeAdapter(RecordDoc)


def _fault_reason(name: str, error: ErrorDetails, doc: dict[str, Any]) -> str:
    """The reject reason of a record field's fault, as the contract's examples word it."""
    if name == "op":
        return f"unknown op {shown(doc.get('op'))} (expected I, U or D)"
    if name == "txn":
        return "missing txn"
    if name == "seq":
        seq = doc["seq"]
        if error["type"] in ("greater_than_equal", "less_than_equal"):
            return f"seq {seq} is out of range ({SEQ_MIN} to {SEQ_MAX})"
        return f"seq must be an integer, got {shown(seq)}"
    if error["type"] == "value_error":  # commit_ts: its instant (`_commit_time`)
        return str((error.get("ctx") or {}).get("error", error["msg"]))
    return "missing commit_ts"


def decode_doc(doc: dict[str, Any], raw: str, file: str, line: int, model: Model) -> ChangeRecord | Reject:
    """A change record already parsed from `raw` (an object of `RECORD_FIELDS`), decoded; a `Reject`
    when it does not match its declaration (`RecordDoc`), its table or its version. Debezium events are
    read through it too."""

    def reject(reason: str) -> Reject:
        return shown_reject(file, line, reason, raw)
    declared = validated(_RECORD, doc)
    record, faults = declared
    site, table_name = doc.get("site"), doc.get("table")
    if "site" in faults or model.server(site) is None:  # type: ignore[arg-type]
        return reject(f"unknown site {shown(site)}")
    if "table" in faults:
        return reject("missing table")
    table = model.table(f"{site}.{table_name}")
    if table is None:
        return reject(f"unknown table {site}.{cut(table_name)}")  # type: ignore[arg-type]
    for name in ("op", "txn", "seq", "commit_ts"):
        if name in faults:
            return reject(_fault_reason(name, faults[name], doc))
    assert record is not None  # no fault
    op, txn, seq, commit_ts = record["op"], record["txn"], record.get("seq", 0), record["commit_ts"]
    versions = versions_of(table)
    number = doc.get("schema_version")
    if isinstance(number, (bool, dict, list)):  # an object or a list had crashed the run (unhashable)
        return reject(f"schema_version must be a number, got {shown(number)}")
    if number is None or (number == 1 and not table.replication_definitions):
        number = latest_version(table)  # absent: the latest; the implicit version also answers to 1
    if number not in versions:
        known = ", ".join(str(v) for v in versions if v is not None) or "none defined"
        return reject(f"unknown schema_version {shown(number)} for {table.key} (versions: {known})")
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
    return ChangeRecord(file, line, record["site"], str(txn), seq, commit_ts, table.key, op, images["before"],
                        images["after"], version.number, tuple(version.types))


def decode_image(image: Row, version: Version, table: Table, keyed: bool = True) -> Row | str:
    """A row image typed by its version, every version column present (left out = NULL); or the reason
    it does not match. `keyed=False`: a NULL key is left to the caller (a snapshot's, which fails the run
    naming the row)."""
    for name in image:
        if name not in version.types:
            return f"column {shown(name)} is not in {table.key} version {_version_name(version)}"
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
                return f"column {name!r}: {shown(image.get(name))} does not fit the table's current type {column.type}"
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


def shown(value: Any, limit: int = 60) -> str:
    """A value as a reason line shows it: its repr, cut."""
    return cut(repr(value), limit)


def cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _op_name(op: str) -> str:
    return {"I": "an insert", "U": "an update", "D": "a delete"}[op]


def _version_name(version: Version) -> str:
    return "(implicit)" if version.number is None else str(version.number)


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
