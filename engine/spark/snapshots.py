"""Snapshots (the initial rows at each site) read by Spark's readers, typed by their tables' columns.

`DIR/snapshots/<server>/<table>.jsonl` is read line by line (`lines.read_lines`) and typed from its
VARIANT as change records are; `.csv` by the text reader, its cells split natively when the file keeps
to plain CSV (no quotes, no stray carriage return); `.parquet` by Spark's Parquet reader, each column
cast when its Parquet type holds the model's type exactly.

Snapshots must fit their tables: a value that does not, a NULL primary-key column or a duplicate key is an
input error naming the file and line (docs/contract.md §6). Native expressions find whether a table has
any such problem, or a value they cannot type exactly; only such a table is read again by the reference
(`records.read_snapshot_file`, `debezium.add_snapshot_rows`), in one Python task per table, which either
gives the exact `InputError` or the rows, written back as canonical tokens. A clean snapshot never
leaves Spark, and nothing of it reaches the driver.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from engine.core.types import SqlType, TypeFamily
from engine.model.io import dump_model
from engine.model.schema import Model, Table
from engine.run.input.debezium.envelope import SnapshotRow
from engine.run.input.debezium.files import add_snapshot_rows
from engine.run.input.files import MAX_INPUT_FILE_BYTES, InputError, InputFileError, open_input_file
from engine.run.input.snapshots import read_snapshot_file, snapshot_files
from engine.spark import sqltext as sql
from engine.spark.canonical import read_row_sql, row_values, row_writer
from engine.spark.decode import (
    MAYBE_RED,
    RED_FLAGS,
    clean_typed_sql,
    first_value,
    one_json_value,
    parsed_line,
    shape_of,
    token_fits,
    token_kinds,
)
from engine.spark.inworker import model_of
from engine.spark.together import keep_together
from engine.spark.types import binary_fits, rep, table_type_sql

ROWS = "seq long, row {struct}"
"""A table's initial rows: their order (`seq`) and the row."""

_INT = r"^[+-]?[0-9]{1,18}\z"
_DECIMAL = r"^[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})\z"
_DOUBLE = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?\z"
_BOOL = r"^(?i)(true|false|t|f|0|1)\z"


@dataclass(frozen=True)
class _Source:
    """One snapshot file's rows as Spark types them: `seq`, `clean` (typed exactly), `row`."""

    table: Table
    frame: DataFrame
    path: Path | None


def snapshot_text_files(data_dir: Path, model: Model) -> list[Path]:
    """The snapshot files Spark reads as lines (`lines.read_lines` reads them with the change files)."""
    return [path for path, _ in snapshot_files(data_dir, model) if path.suffix.lower() in (".csv", ".jsonl")]


def read_snapshots(spark: SparkSession, data_dir: Path, model: Model, lines: DataFrame, ordinals: dict[Path, int],
                   debezium: DataFrame | None = None,
                   keep: Callable[[DataFrame], DataFrame] = lambda frame: frame,
                   together: bool = True) -> dict[str, DataFrame]:
    """Table key -> its initial rows (`ROWS`), for every table with a snapshot file or Debezium `r` event.

    `lines` holds the lines of `snapshot_text_files`, by their `ordinals`. `debezium` holds the `r` events
    the decoding read (`table`, `file`, `line`, `order`: their place in file and line order, `text`: the row
    as tokens keyed `c0`...). Raises `InputError` as the reference does. `keep` materializes each table's
    rows, read twice: by the check for suspicious snapshots, and by the run's events; with `together` (a
    small run), every table's in one job (`keep_together`: the bundled sample's eleven snapshots, eleven
    jobs -> one)."""
    files = snapshot_files(data_dir, model)  # the reference's own listing and its errors, on the driver
    sources: dict[str, list[_Source]] = {}
    for ordinal, (path, table) in enumerate(files):
        text = lines.where(F.col("file_ord") == ordinals[path]) if path in ordinals else None
        frame = _read_file(spark, path, table, ordinal, text).select("seq", "row", "clean")  # as Debezium's below
        sources.setdefault(table.key, []).append(_Source(table, frame, path))
    if debezium is not None:
        for table in model.tables:
            rows = debezium.where(F.col("table") == table.key)
            frame = _canonical_rows(rows.select((F.lit(len(files) << 40) + F.col("order")).alias("seq"), "text"),
                                    table).withColumn("clean", F.lit(True))
            sources.setdefault(table.key, []).append(_Source(table, frame, None))
    frames = keep_together({key: sql.union([s.frame for s in group]) for key, group in sources.items()}, keep,
                           together)
    suspicious = _suspicious(frames, model)
    if suspicious:
        replaced = _read_by_reference(spark, model, suspicious, files, debezium)
        frames.update(replaced)
    return {key: frame.select("seq", "row") for key, frame in frames.items()}


# --- reading one file natively ---------------------------------------------------------------------------


def _read_file(spark: SparkSession, path: Path, table: Table, ordinal: int, lines: DataFrame | None) -> DataFrame:
    suffix = path.suffix.lower()
    seq = F.lit(ordinal).cast("long") * F.lit(1 << 40)
    if suffix == ".jsonl":
        assert lines is not None
        return _jsonl_rows(lines.where(~F.col("blank")), table).withColumn("seq", seq + F.col("line"))
    if suffix == ".csv":
        assert lines is not None
        return _csv_rows(lines, path, table).withColumn("seq", seq + F.col("line"))
    return _parquet_rows(spark, path, table, seq)


def _jsonl_rows(lines: DataFrame, table: Table) -> DataFrame:
    """A JSONL snapshot: each line an object of the table's columns (any may be left out)."""
    names = [c.name for c in table.columns]
    items = "".join(f"(?:{_escape(c.name)}: (?:{'|'.join([*token_kinds(c.sql_type), 'VOID'])}), )?"
                    for c in sorted(table.columns, key=lambda c: c.name))
    pattern = f"^OBJECT<(?:, |{items})>" + r"\z"
    raw_ddl = ", ".join(f"{sql.ident(n)}: {_RAW_TOKEN[rep(c.sql_type).kind]}" for n, c in zip(names, table.columns,
                                                                                             strict=True))
    parsed = lines.withColumn("_w", F.expr(parsed_line("text"))).withColumn("v", F.expr(first_value("_w"))) \
        .withColumn("_raw", F.expr(f"try_variant_get(v, '$', {sql.string(f'struct<{raw_ddl}>')})"))
    checks = [f"{shape_of('v')} RLIKE {sql.string(pattern)}", "is_valid_utf8(text)",
              f"NOT ({MAYBE_RED} AND text RLIKE {sql.string(RED_FLAGS)})", one_json_value("_w", "text")]
    for c in table.columns:
        value = f"_raw.{sql.ident(c.name)}"
        fits = token_fits(value, c.sql_type)
        if fits is not None:
            checks.append(f"({value} IS NULL OR coalesce({fits}, FALSE))")
    fields = ", ".join(f"{sql.string(c.name)}, {clean_typed_sql('_raw.' + sql.ident(c.name), c.sql_type)}"
                       for c in table.columns)
    # typed only where clean: the casts are ANSI, and an unclean value (one that does not fit) would fail
    # the query where the reference's reading gives the input error
    return parsed.select("line", "_raw", sql.col(f"coalesce({sql.all_of(checks)}, FALSE)", "clean")).select(
        "line", "clean", sql.col(f"CASE WHEN clean THEN CAST(named_struct({fields}) AS {table_type_sql(table)}) END",
                                 "row"))


_RAW_TOKEN = {"text": "string", "int": "bigint", "decimal": "decimal(38,18)", "double": "double",
              "timestamp": "string", "bool": "string", "binary": "string", "opaque": "string"}


def _escape(name: str) -> str:
    return re.escape(name)


def _csv_rows(all_lines: DataFrame, path: Path, table: Table) -> DataFrame:
    """A CSV snapshot: a header row naming columns, then one row a line. Natively only plain CSV (no
    quote, no carriage return but at a line's end); anything else is left unclean for the reference."""
    header, plain = _csv_header(path)
    lines = all_lines.where(F.col("line") > 1)
    known = header is not None and plain and all(table.column(h) is not None for h in header) \
        and len(set(header)) == len(header)
    if not known or header is None:
        empty = F.expr(f"CAST(NULL AS {table_type_sql(table)})")
        return lines.select("line", F.lit(False).alias("clean"), empty.alias("row"))
    position = {name: i for i, name in enumerate(header)}
    cells = "split(text, ',', -1)"
    checks = ["NOT (text RLIKE '[\"\\r]')", f"size({cells}) <= {len(header)}", "is_valid_utf8(text)"]
    fields = []
    for c in table.columns:
        if c.name not in position:
            fields.append(f"{sql.string(c.name)}, CAST(NULL AS {rep(c.sql_type).ddl})")
            continue
        cell = f"nullif(try_element_at({cells}, {position[c.name] + 1}), '')"
        fits = _cell_fits(cell, c.sql_type)
        checks.append(f"({cell} IS NULL OR coalesce({fits}, FALSE))")
        fields.append(f"{sql.string(c.name)}, {_cell_typed(cell, c.sql_type)}")
    return lines.select("line", sql.col(f"coalesce({sql.all_of(checks)}, FALSE)", "clean"),
                        sql.col(f"CAST(named_struct({', '.join(fields)}) AS {table_type_sql(table)})",
                                "row"))


def _csv_header(path: Path) -> tuple[list[str] | None, bool]:
    """The header row's names (read on the driver: one line), and whether it is plain CSV."""
    try:
        with open_input_file(path, MAX_INPUT_FILE_BYTES) as fh:
            first = fh.readline(1 << 20).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, InputFileError):
        return None, False
    first = first.removesuffix("\n").removesuffix("\r")
    if not first or '"' in first or "\r" in first:
        return None, False
    return next(csv.reader(io.StringIO(first))), True


def _cell_fits(cell: str, t: SqlType) -> str:
    """Whether a CSV cell's text (not NULL: the empty cell is) reads as type `t` exactly as the reference's
    `decode_text` reads it. Its casts are `try_cast`: Spark may evaluate a cast before the pattern that
    guards it (a BETWEEN is rewritten over a projection), and an ANSI cast of text that is no number fails
    the query where this only wants FALSE."""
    kind = rep(t).kind
    if kind == "text":
        return f"char_length({cell}) <= {t.length}" if t.family is TypeFamily.CHARACTER and t.length else "TRUE"
    if kind == "int":
        return f"({cell} RLIKE {sql.string(_INT)} AND {token_fits(f'try_cast({cell} AS BIGINT)', t) or 'TRUE'})"
    if kind == "decimal":  # the text cast to the column's scale, rounded once as the reference rounds it
        return f"({cell} RLIKE {sql.string(_DECIMAL)} AND {token_fits(cell, t) or 'TRUE'})"
    if kind == "double":
        return f"({cell} RLIKE {sql.string(_DOUBLE)} AND {token_fits(f'try_cast({cell} AS DOUBLE)', t)})"
    if kind == "timestamp":
        return token_fits(cell, t) or "TRUE"
    if kind == "bool":
        return f"{cell} RLIKE {sql.string(_BOOL)}"
    if kind == "binary":
        return token_fits(cell, t) or "TRUE"
    return "FALSE"


def _cell_typed(cell: str, t: SqlType) -> str:
    """A CSV cell's value as the column's Spark type; NULL where it does not fit (the row is then unclean)."""
    r = rep(t)
    kind = r.kind
    if kind == "decimal":
        return f"try_cast(try_cast({cell} AS DECIMAL(38,{t.scale or 0})) AS {r.ddl})"
    if kind in ("int", "double"):
        return f"try_cast({cell} AS {r.ddl})"
    if kind == "timestamp":
        return f"try_cast({cell} AS TIMESTAMP)"
    if kind == "bool":
        return f"lower({cell}) IN ('true', 't', '1')"
    if kind == "binary":
        return f"unhex(regexp_replace({cell}, '^0[xX]', ''))"
    if kind == "text":
        return cell
    return f"CAST(NULL AS {r.ddl})"


_PARQUET_EXACT: dict[str, tuple[type[T.DataType], ...]] = {
    "text": (T.StringType,), "int": (T.ByteType, T.ShortType, T.IntegerType, T.LongType),
    "double": (T.FloatType, T.DoubleType, T.ByteType, T.ShortType, T.IntegerType), "bool": (T.BooleanType,),
    "binary": (T.BinaryType,), "timestamp": (T.TimestampType, T.TimestampNTZType, T.DateType),
    "decimal": (T.DecimalType, T.ByteType, T.ShortType, T.IntegerType, T.LongType),
}
"""Parquet types whose values the reference's `decode_value` takes as Spark casts them to the column."""


def _parquet_rows(spark: SparkSession, path: Path, table: Table, seq: Any) -> DataFrame:
    from pyspark.errors import AnalysisException

    from engine.spark.lines import glob_escaped, visible

    try:
        frame = spark.read.parquet(glob_escaped(visible(str(path.resolve()))))
    except AnalysisException:
        # a schema Spark cannot take (nanosecond timestamps, two columns named alike but for case): one
        # unclean row stands for the file, and the reference reads it (`_read_by_reference`), or says why not
        return spark.range(1).select(seq.alias("seq"), F.lit(False).alias("clean"),
                                     sql.col(f"CAST(NULL AS {table_type_sql(table)})", "row"))
    given = {f.name: f.dataType for f in frame.schema.fields}
    checks, fields = [], []
    exact = all(table.column(n) is not None for n in given)
    for c in table.columns:
        r = rep(c.sql_type)
        if c.name not in given:
            fields.append(f"{sql.string(c.name)}, CAST(NULL AS {r.ddl})")
            continue
        value = sql.ident(c.name)
        if not isinstance(given[c.name], _PARQUET_EXACT.get(r.kind, ())):
            exact = False
            fields.append(f"{sql.string(c.name)}, CAST(NULL AS {r.ddl})")
            continue
        # a decimal as it is (DECIMAL(38,18) would round a scale over 18 once before the column's rounding)
        raw = value if r.kind == "decimal" else f"try_cast({value} AS {_RAW_TOKEN[r.kind]})" \
            if r.kind in ("int", "double") else f"try_cast({value} AS {r.ddl})"
        fit = token_fits(raw, c.sql_type) if r.kind in ("int", "decimal", "double", "text") \
            else binary_fits(value, c.sql_type) if r.kind == "binary" else None
        if fit is not None:
            checks.append(f"({value} IS NULL OR coalesce({fit}, FALSE))")
        typed = (f"try_cast(try_cast({value} AS DECIMAL(38,{c.sql_type.scale or 0})) AS {r.ddl})"
                 if r.kind == "decimal" else f"try_cast({value} AS {r.ddl})")  # NULL where unclean: no ANSI failure
        fields.append(f"{sql.string(c.name)}, {typed}")
    clean = sql.all_of(checks) if exact else "FALSE"
    return frame.select((seq + F.monotonically_increasing_id()).alias("seq"),
                        sql.col(f"coalesce({clean}, FALSE)", "clean"),
                        sql.col(f"named_struct({', '.join(fields)})", "row"))


def _canonical_rows(frame: DataFrame, table: Table) -> DataFrame:
    """`seq`, `text` (a row of tokens, `canonical`) -> `seq`, `row`."""
    return frame.select("seq", sql.col(read_row_sql("text", table), "row"))


# --- what the reference must read -----------------------------------------------------------------------


def _suspicious(frames: dict[str, DataFrame], model: Model) -> list[str]:
    """The tables whose snapshot has a value Spark could not type exactly, a NULL primary-key column or a
    duplicate key (of the primary key or a unique index; a key with a NULL part is no duplicate).

    One aggregation over every snapshot, not one per table: each row once per key set (once for a table
    without one), as (`table`, `flag`: unclean or a NULL primary-key column, `set`, `key`: its whole key as
    JSON text, else NULL), counted by
    (`table`, `set`, `key`), then folded per table. The driver gets one row per table at the most. (An
    aggregation per table, each with a distinct count, cost the bundled sample's warm run seconds of
    planning and shuffles.)"""
    parts = []
    for key, frame in frames.items():
        table = model.table(key)
        assert table is not None
        pk_null = sql.any_of([f"row.{sql.ident(c)} IS NULL" for c in table.primary_key])
        sets = ([tuple(table.primary_key)] if table.primary_key else []) + [tuple(u.columns)
                                                                            for u in table.unique_indexes]
        keyed = []
        for i, columns in enumerate(sets):
            key_sql = f"to_json(named_struct({', '.join(f'{sql.string(c)}, {_key_part(table, c)}' for c in columns)}))"
            full = sql.all_of([f"row.{sql.ident(c)} IS NOT NULL" for c in columns])
            keyed.append(f"named_struct('set', {i}, 'key', CASE WHEN {full} THEN {key_sql} END)")
        keyed = keyed or ["named_struct('set', -1, 'key', CAST(NULL AS STRING))"]  # no key: each row once, for its flag
        parts.append(frame.select(F.lit(key).alias("table"),
                                  sql.col(f"NOT coalesce(clean, TRUE) OR {pk_null}", "flag"),
                                  sql.col(f"explode(array({', '.join(keyed)}))", "k")))
    if not parts:
        return []
    counted = sql.union(parts).groupBy("table", "k.set", "k.key").agg(F.count("*").alias("n"),
                                                                   F.max("flag").alias("flag"))
    problems = counted.groupBy("table").agg(F.max(sql.col("flag OR (key IS NOT NULL AND n > 1)")).alias("problem"))
    return sorted(r["table"] for r in problems.where("problem").collect())


def _key_part(table: Table, name: str) -> str:
    """A key column's value as the reference compares keys: a double's negative zero is its zero (`0.0 ==
    -0.0` in Python, where `to_json` writes `-0.0`)."""
    column = table.column(name)
    value = f"row.{sql.ident(name)}"
    if column is not None and rep(column.sql_type).kind == "double":
        return f"CASE WHEN {value} = 0 THEN 0 ELSE {value} END"
    return value


def _read_by_reference(spark: SparkSession, model: Model, tables: list[str], files: list[tuple[Path, Table]],
                       debezium: DataFrame | None) -> dict[str, DataFrame]:
    """The suspicious tables' snapshots read by the reference, one Python task each: raises the first
    `InputError` in the reference's order, else gives their rows."""
    order = {table.key: i for i, (_, table) in enumerate(files)}
    requests = spark.createDataFrame(
        [(key, order.get(key, len(files)), next((str(p) for p, t in files if t.key == key), None), None, None, None)
         for key in tables], "table string, rank int, path string, file string, line long, text string")
    if debezium is not None:
        requests = requests.unionByName(
            debezium.where(F.col("table").isin(tables)).select(
                "table", F.lit(None).cast("int").alias("rank"), F.lit(None).cast("string").alias("path"),
                "file", "line", "text"))
    out_ddl = "table string, rank int, error string, seq long, text string"
    read = requests.groupBy("table").applyInArrow(_reference_reader(dump_model(model)), out_ddl).persist()
    errors = read.where(F.col("error").isNotNull()).orderBy("rank").select("error").limit(1).collect()
    if errors:
        read.unpersist()
        raise InputError(errors[0]["error"])
    out = {}
    for key in tables:
        table = model.table(key)
        assert table is not None
        out[key] = _canonical_rows(read.where(F.col("table") == key), table).withColumn("clean", F.lit(True))
    return out


def _reference_reader(model_text: str) -> Any:
    def read(group: pa.Table) -> pa.Table:
        model = model_of(model_text)
        rows = group.to_pylist()
        key = rows[0]["table"]
        table = model.table(key)
        assert table is not None
        path = next((r["path"] for r in rows if r["path"] is not None), None)
        rank = next((r["rank"] for r in rows if r["rank"] is not None), 1 << 30)
        try:
            typed = read_snapshot_file(Path(path), table) if path is not None else []
        except InputError as exc:
            return _result(key, rank, str(exc), [])
        events = [SnapshotRow(r["file"], r["line"], key, row_values(r["text"], table) or {})
                  for r in rows if r["path"] is None and r["file"] is not None]
        if events:
            merged = {key: list(typed)}
            try:
                add_snapshot_rows(merged, events, model)
            except InputError as exc:
                return _result(key, (1 << 20) + min(e.line for e in events), str(exc), [])
            typed = merged[key]
        write = row_writer(table)
        return _result(key, rank, None, [write(row) for row in typed])
    return read


def _result(key: str, rank: int, error: str | None, texts: list[str]) -> pa.Table:
    n = max(1, len(texts))
    seq: list[int | None] = list(range(len(texts))) or [None]
    text: list[str | None] = list(texts) or [None]
    return pa.table({"table": [key] * n, "rank": [rank] * n, "error": [error] * n, "seq": seq, "text": text},
                    schema=pa.schema([("table", pa.string()), ("rank", pa.int32()), ("error", pa.string()),
                                      ("seq", pa.int64()), ("text", pa.string())]))

