"""The final rows of a table in two runs, matched by the table's key (for `engine.rundiff`).

The key is the table's primary key, else its first unique index, read from the run's model while that file
is unchanged (the manifest's SHA-256); with none known, whole rows are compared. Values are compared as a
run compares them (`engine.core.values.same_value`): numbers equal whatever their scale, NULL equals NULL.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine.core.values import comparable, same_value, to_json_value
from engine.model.io import MAX_MODEL_BYTES
from engine.run.input.files import InputFileError, open_input_file, read_input_file
from engine.run.rundir.read import MAX_RUN_FILE_BYTES, RunDirDamaged
from engine.run.rundir.write import table_file

Row = dict[str, Any]
Rows = tuple[list[str], list[Row]]
"""A final table: its column names (from the Parquet schema, so an empty table has them too) and rows."""
EXAMPLES = 3
"""Rows shown per table and kind of difference."""


@dataclass(frozen=True)
class RowChange:
    """A key both runs hold with a different row: the columns that differ and both rows."""

    key: Row
    columns: tuple[str, ...]
    a: Row
    b: Row


@dataclass
class TableDiff:
    """The final rows of one table (`server.TABLE`) in both runs, matched by `key`."""

    table: str
    key: tuple[str, ...]
    """The key columns; empty when no key is known and whole rows are compared."""
    rows_a: int
    rows_b: int
    only_a: list[Row] = field(default_factory=list)
    """Keys (whole rows, with no key) only in run A, the first `EXAMPLES`; `only_a_count` counts them all."""
    only_b: list[Row] = field(default_factory=list)
    differing: list[RowChange] = field(default_factory=list)
    only_a_count: int = 0
    only_b_count: int = 0
    differing_count: int = 0
    columns_only_a: tuple[str, ...] = ()
    columns_only_b: tuple[str, ...] = ()

    @property
    def equal(self) -> bool:
        return not (self.only_a_count or self.only_b_count or self.differing_count or self.columns_only_a
                    or self.columns_only_b)

    def as_dict(self) -> dict[str, Any]:
        def rows(rs: list[Row]) -> list[Row]:
            return [{k: to_json_value(v) for k, v in r.items()} for r in rs]

        return {"table": self.table, "key": list(self.key), "rows_a": self.rows_a, "rows_b": self.rows_b,
                "only_a": self.only_a_count, "only_b": self.only_b_count, "differing": self.differing_count,
                "columns_only_a": list(self.columns_only_a), "columns_only_b": list(self.columns_only_b),
                "examples": {"only_a": rows(self.only_a), "only_b": rows(self.only_b),
                             "differing": [{"key": rows([d.key])[0], "columns": list(d.columns),
                                            "a": rows([d.a])[0], "b": rows([d.b])[0]} for d in self.differing]}}


def table_keys(rundir: Path, manifest: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """`server.TABLE` -> its primary key (else first unique index), from the run's model while the file
    still has the digest the manifest gives; nothing otherwise (whole rows are then compared). A relative
    model path is tried from here, then from the run directory's folder (where runs are usually started)."""
    model = manifest.get("model")
    path, sha = (model.get("path"), model.get("sha256")) if isinstance(model, dict) else (None, None)
    if not isinstance(path, str) or not isinstance(sha, str):
        return {}
    candidates = [Path(path)] + ([rundir.resolve().parent / path] if not Path(path).is_absolute() else [])
    data = next((d for d in map(_model_bytes, candidates) if d and hashlib.sha256(d).hexdigest() == sha), None)
    if data is None:
        return {}
    try:
        keys: dict[str, tuple[str, ...]] = {}
        for t in json.loads(data)["tables"]:
            unique = [t.get("primary_key") or []] + [u.get("columns") or [] for u in t.get("unique_indexes") or []]
            key = next((u for u in unique if u), [])
            if isinstance(t.get("server"), str) and isinstance(t.get("name"), str) and \
                    all(isinstance(c, str) for c in key):
                keys[f"{t['server']}.{t['name']}"] = tuple(key)
        return keys
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _model_bytes(path: Path) -> bytes | None:
    try:
        return read_input_file(path, MAX_MODEL_BYTES)
    except (OSError, ValueError):
        return None


def table_files(rundir: Path, manifest: dict[str, Any]) -> dict[str, Path]:
    """`server.TABLE` -> its Parquet file: the tables the manifest lists, then any other file of `tables/`
    (named `<folder>.<file>`)."""
    found: dict[str, Path] = {}
    for name in manifest.get("tables") or []:
        for i in [i for i, ch in enumerate(name) if ch == "."]:  # a server id may hold a dot too
            path = table_file(rundir, name[:i], name[i + 1:])
            if path.is_file() and path not in found.values():
                found[name] = path
                break
    for path in sorted((rundir / "tables").glob("*/*.parquet")):
        if path not in found.values():
            found[f"{path.parent.name}.{path.stem}"] = path
    return found


def read_rows(path: Path | None) -> Rows | None:
    """A final table's columns and rows; None when the run has no such table."""
    if path is None:
        return None
    try:
        with open_input_file(path, MAX_RUN_FILE_BYTES) as fh:
            table = pq.read_table(fh)
            return list(table.column_names), table.to_pylist()
    except InputFileError as exc:
        raise RunDirDamaged(path, str(exc).removeprefix(f"{path}: ")) from None
    except (pa.ArrowException, OSError, ValueError, EOFError) as exc:
        raise RunDirDamaged(path, f"not a readable Parquet file ({str(exc).strip().splitlines()[0][:200]})") \
            from None


def _hashable(value: Any) -> Any:
    """A value as a dict key that is equal exactly when `same_value` says so (Decimal and int hash alike)."""
    value = comparable(value)
    if isinstance(value, float) and math.isnan(value):
        return ("NaN",)
    return value


def diff_table(name: str, key: tuple[str, ...], a: Rows | None, b: Rows | None,
               examples: int = EXAMPLES) -> TableDiff:
    """The rows of one table in both runs (None: the run has no such table), matched by `key`; a table of
    one run only has every column and row of it only there."""
    cols_a, rows_a = a or ([], [])
    cols_b, rows_b = b or ([], [])
    common = [c for c in cols_a if c in cols_b] if a is not None and b is not None else cols_a or cols_b
    result = TableDiff(name, (), len(rows_a), len(rows_b), columns_only_a=tuple(c for c in cols_a if c not in cols_b),
                       columns_only_b=tuple(c for c in cols_b if c not in cols_a))
    usable = key if key and all(c in common for c in key) else ()
    by_a, by_b = _by_key(rows_a, usable), _by_key(rows_b, usable)
    if usable and (by_a is None or by_b is None):  # a key that repeats: compare whole rows instead
        usable = ()
        by_a, by_b = _by_key(rows_a, ()), _by_key(rows_b, ())
    assert by_a is not None and by_b is not None
    result.key = usable
    shown = list(usable) or common
    for k, row in by_a.items():
        other = by_b.get(k)
        if other is None:
            result.only_a_count += 1
            if len(result.only_a) < examples:
                result.only_a.append({c: row.get(c) for c in shown})
            continue
        differ = tuple(c for c in common if not same_value(row.get(c), other.get(c)))
        if differ:
            result.differing_count += 1
            if len(result.differing) < examples:
                result.differing.append(RowChange({c: row.get(c) for c in usable}, differ, row, other))
    for k, row in by_b.items():
        if k not in by_a:
            result.only_b_count += 1
            if len(result.only_b) < examples:
                result.only_b.append({c: row.get(c) for c in shown})
    return result


def _by_key(rows: list[Row], key: tuple[str, ...]) -> dict[Any, Row] | None:
    """Rows by their key's values; with no key by the whole row (a repeated row counted apart by its
    occurrence). None when a key repeats."""
    out: dict[Any, Row] = {}
    seen: Counter[Any] = Counter()
    for row in rows:
        k = tuple(_hashable(row.get(c)) for c in key) if key else tuple(sorted(
            (c, _hashable(v)) for c, v in row.items()))
        if key and k in out:
            return None
        seen[k] += 1
        out[(k, seen[k]) if not key else k] = row
    return out
