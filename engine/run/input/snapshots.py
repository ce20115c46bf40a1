"""Snapshots (`DIR/snapshots/<server>/<table>.{csv,jsonl,parquet}`): the initial state of a run (docs/contract.md §4).

Snapshots are not records: a snapshot that does not fit its table, or holds a NULL or duplicate key, stops
the run (`InputError`), as does a snapshot that is a pipe, a device, a folder or a broken link
(`engine.run.input.files`).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from engine.core.values import ValueDecodeError, decode_text, decode_value, to_text
from engine.model.schema import Model, Table
from engine.run.input.files import (
    MAX_INPUT_FILE_BYTES,
    InputError,
    InputFileError,
    checked_input,
    open_input_file,
    read_input_file,
)
from engine.run.input.keys import hashable
from engine.run.input.records import MAX_RECORD_BYTES, Row, cut, parse_json

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
                raise InputError(f"{where}: duplicate {name} ({cut(shown)}), first at {seen[key]}")
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
