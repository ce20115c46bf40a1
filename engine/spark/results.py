"""The resolve stage's files: every table's final rows, the conflicts and the error queue, written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from engine.model.schema import Model, Table
from engine.run.rundir.write import table_file
from engine.spark import output
from engine.spark.jobs import concurrently
from engine.spark.resolve import Resolved, rows_of
from engine.spark.together import keep_together


def write_results(resolved: Resolved, model: Model, out: Path, keep: Callable[[DataFrame], DataFrame],
                  small: bool) -> dict[str, DataFrame]:
    """Write every table's final rows, the conflicts and the error queue; gives each table's final rows,
    kept (the writers and convergence read them: never the events again).

    A small run keeps every table's rows in one job (`keep_together`: the bundled sample's eleven tables,
    eleven jobs -> one), beside the conflicts' and the queue's writes, then writes the tables. A large run
    keeps and writes each table in a job of its own, several at once."""
    folded = resolved.reference
    conflicts = folded.where(F.col("kind") == "conflict")
    rows: dict[str, DataFrame] = {}
    others: list[Callable[[], None]] = [
        lambda: output.write_lines(conflicts.select("sort", "text"), out / "conflicts.jsonl", small),
        lambda: output.write_conflicts_parquet(conflicts, out / "conflicts.parquet", small),
        lambda: output.write_lines(folded.where(F.col("kind") == "queue").select("sort", "text"),
                                   out / "error_queue.jsonl", small)]

    def write(table: Table) -> None:
        output.write_table(rows[table.key], table, table_file(out, table.server, table.name), small)

    if small:
        concurrently([lambda: rows.update(keep_together({t.key: rows_of(resolved, t) for t in model.tables}, keep)),
                      *others])
        concurrently([lambda table=table: write(table) for table in model.tables])  # type: ignore[misc]
        return rows

    def kept_and_written(table: Table) -> None:
        rows[table.key] = keep(rows_of(resolved, table))
        write(table)

    concurrently([*(lambda table=table: kept_and_written(table) for table in model.tables),
                  *others])
    return rows
