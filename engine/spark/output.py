"""The run directory's data files, written by Spark's writers into the folder a run is published from.

Each file of docs/contract.md §6 is one file, as the reference writes it: Spark writes a table with one
task, which sorts it, and the part file is renamed to its place; a
`.jsonl` output is written sorted as text parts, which are concatenated in order (a stream of bytes on
the driver, never rows). What is written is what the reference writes: the lines were made by the
reference's own `jsonl_line`, the tables' Parquet types are the reference's (`rundir.arrow_type`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from engine.core.types import TypeFamily
from engine.core.values import UNBOUNDED_SCALE, UNBOUNDED_WHOLE_DIGITS
from engine.model.schema import Table
from engine.run.input.keys import identity_columns
from engine.run.rundir.write import CONFLICT_ROW_FIELDS, CONFLICT_SCALARS
from engine.spark import sqltext as sql
from engine.spark.types import order_sql, rep

PART_PREFIX = "part-"


def write_table(rows: DataFrame, table: Table, path: Path, small: bool = False) -> None:
    """A table's final rows (`seq`, `row`) as one Parquet file at `path`, ordered by the table's identity
    as the reference orders it (NULL first, numbers by value: `types.order_sql`), in the reference's column
    types. `small`: a small run's (`_sorted`)."""
    types = {c.name: c.sql_type for c in table.columns}
    order = [F.expr(o).asc_nulls_first() for c in identity_columns(table)
             for o in order_sql(f"row.{sql.ident(c)}", types[c])]
    ordered = _sorted(rows, small, *order, F.col("seq"))
    columns = [sql.col(_output(f"row.{sql.ident(c.name)}", c.sql_type), c.name) for c in table.columns]
    _single_file(ordered.select(*columns), path, "parquet")


def _output(value: str, t: object) -> str:
    """A column as the reference's Parquet holds it (`rundir.arrow_type`): a REAL as a float, a DECIMAL
    without precision as DECIMAL(38,10), a UDT's JSON text without the quotes of a JSON string."""
    r = rep(t)
    sql_type = r.sql
    if sql_type.name == "REAL":
        return f"CAST({value} AS FLOAT)"
    if r.kind == "opaque" and sql_type.family is TypeFamily.EXACT_NUMERIC:
        carried = f"DECIMAL({UNBOUNDED_WHOLE_DIGITS + UNBOUNDED_SCALE},{UNBOUNDED_SCALE})"  # every value fits
        return f"CAST({value} AS {carried})" if sql_type.precision is None else value
    if r.kind == "opaque":
        return f"CASE WHEN startswith({value}, '\"') THEN get_json_object(concat('[', {value}, ']'), '$[0]') " \
               f"ELSE {value} END"
    return value


def write_lines(lines: DataFrame, path: Path, small: bool = False) -> None:
    """`lines` (`sort`, `text`) as one text file, a line each, in `sort` order."""
    ordered = _sorted(lines, small, F.col("sort")).select("text")
    folder = _scratch(path)
    ordered.write.mode("overwrite").text(str(folder))
    with path.open("wb") as out:
        for part in sorted(folder.glob(f"{PART_PREFIX}*")):
            with part.open("rb") as fh:
                shutil.copyfileobj(fh, out, 1 << 20)
    shutil.rmtree(folder)


def write_conflicts_parquet(conflicts: DataFrame, path: Path, small: bool = False) -> None:
    """The conflicts as the flat table `rundir.conflicts_arrow` writes, in time order."""
    names = [*CONFLICT_SCALARS, "methods_tried", "applied", *CONFLICT_ROW_FIELDS]
    ordered = _sorted(conflicts, small, F.col("sort")).select(*(F.col(sql.ident(n)).alias(n) for n in names))
    _single_file(ordered, path, "parquet")


def _sorted(frame: DataFrame, small: bool, *order: Column) -> DataFrame:
    """`frame` in one partition, sorted: the one task that writes the file sorts it (no sampling job for a
    range partitioning, no coalesce of sorted ranges).

    A large run's frame is shuffled into that partition (its partitions are read in parallel); a small
    run's is coalesced into it (its few rows are one task's read: no shuffle, one stage a file instead of
    two)."""
    gathered = frame.coalesce(1) if small else frame.repartition(1)
    return gathered.sortWithinPartitions(*order)


def _single_file(frame: DataFrame, path: Path, fmt: str) -> None:
    folder = _scratch(path)
    frame.write.mode("overwrite").format(fmt).save(str(folder))
    parts = sorted(folder.glob(f"{PART_PREFIX}*"))
    if len(parts) != 1:
        raise RuntimeError(f"Spark wrote {len(parts)} files for {path.name}, expected one")
    parts[0].rename(path)
    shutil.rmtree(folder)


def _scratch(path: Path) -> Path:
    """A folder beside `path` for Spark's own files (parts, `_SUCCESS`, checksums), removed after."""
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = path.with_name(f".{path.name}.spark")
    if folder.exists():
        shutil.rmtree(folder)
    return folder
