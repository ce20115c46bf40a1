"""The whole run on Spark: decode -> net effect -> resolve -> converge, written into a run directory.

Spark does Spark's work: typed columns from Spark's readers (`lines`, `decode`, `snapshots`), native
expressions for the model's methods, `where` clauses and the net effect (`neteffect`), a window per key
for the fold up to the first delivery that may meet a conflict (`resolve`), joins for convergence
(`converge`), and Spark's writers for every data file (`output`). The reference's pure functions run only
where the semantics are an ordered fold Spark cannot prove trivial (the rest of a key from its first
possible conflict, a multi-operation chain, a value Spark cannot give exactly), over Arrow, one call per
group. The driver holds only counts, the schedule and convergence's few examples: nothing proportional to
the data. A frame the run has materialized is freed once nothing later reads it (`keep_only`).

Inputs a run cannot use (a bad schedule, a snapshot that does not fit its table, a model without keys)
fail with the reference's one-line reasons. When the model's SQL fails on a row in Spark (ANSI: a division
by zero, a cast of text that is no number), the run is computed again with the transactions that SQL
reads taken by the reference, which queues that row's change with the reason (`neteffect`).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from engine.model.schema import Model
from engine.run.input.debezium.files import debezium_files
from engine.run.input.files import InputError
from engine.run.input.records import change_files
from engine.run.input.schedule import load_schedule, schedule_document
from engine.run.semantics.context import RunModelError, build_context
from engine.run.semantics.reference import RunCounts
from engine.spark import output, resolve_native
from engine.spark import sqltext as sql
from engine.spark.converge import reports
from engine.spark.decode import Decoded, decode
from engine.spark.jobs import both, concurrently
from engine.spark.lines import read_lines
from engine.spark.neteffect import net_effect
from engine.spark.progress import JobProgress
from engine.spark.resolve import resolve
from engine.spark.results import write_results
from engine.spark.session import SMALL_INPUT_BYTES, input_bytes
from engine.spark.snapshots import read_snapshots, snapshot_text_files

STAGES = ("decode", "net_effect", "resolve", "converge")
Progress = Callable[..., None]
"""`progress(stage, done, total, tasks_done=..., tasks_total=...)`: a stage starts or ends (`done` of
`total` stages), or Spark's tasks within it advance."""

SQL_FAILURES = ("DIVIDE_BY_ZERO", "REMAINDER_BY_ZERO", "CAST_INVALID_INPUT", "CAST_OVERFLOW", "ARITHMETIC_OVERFLOW",
                "NUMERIC_VALUE_OUT_OF_RANGE", "INVALID_REGEX", "INVALID_PARAMETER_VALUE", "DATETIME_OVERFLOW",
                "NUMERIC_OUT_OF_SUPPORTED_RANGE", "CANNOT_PARSE_TIMESTAMP", "INVALID_FRACTION_OF_SECOND")
"""Spark's error conditions of a row that the model's SQL fails on (ANSI mode)."""

KEPT = StorageLevel.MEMORY_AND_DISK
"""How a large run keeps a frame it has materialized: in memory, serialized (PySpark's storage levels
are the serialized ones), on disk what does not fit."""

SESSION_PARTITIONS = "spark.mapwright.sessionShufflePartitions"
"""Where `configure` keeps the session's own `spark.sql.shuffle.partitions` while a small run sets 1."""


@dataclass
class SparkRun:
    """What a run wrote besides its data files: the manifest's counts, each stage's seconds, convergence."""

    counts: RunCounts
    stage_seconds: dict[str, float] = field(default_factory=dict)
    convergence: list[dict[str, Any]] = field(default_factory=list)
    python: dict[str, dict[str, float]] = field(default_factory=dict)
    """Where Python ran, by stage: the lines the reference decoded (`decode`: lines, seconds), the rows,
    groups and CPU seconds of the reference's folds (`net_effect`, `resolve`; in `resolve` also the resolved
    deliveries whose conflicts' lines Python wrote, `resolve_conflicts`); empty over Spark Connect."""


def run_spark(spark: SparkSession, model: Model, data_dir: Path, out: Path,
              progress: Progress | None = None) -> SparkRun:
    """Run `model` on `data_dir` and write the run's data files into `out` (a folder the caller publishes);
    raises the reference's input errors."""
    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such folder (the run's --data)")
    small = configure(spark, input_bytes(data_dir))
    try:
        return _run(spark, model, data_dir, out, progress, small, sql_natively=True)
    except Exception as exc:
        problem = unrunnable_sql(spark, model) if _analysis_failure(exc) and _has_sql(model) else None
        if problem:
            raise ModelSqlError(problem) from None
        if not _sql_failure(exc) or not _has_sql(model):
            raise
    for leftover in list(out.iterdir()):  # a run again, with the model's SQL read by the reference
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    spark.catalog.clearCache()
    return _run(spark, model, data_dir, out, progress, small, sql_natively=False)


def configure(spark: SparkSession, input_bytes: int) -> bool:
    """What the pipeline relies on, set on the session it is given (a warm one too), and how a run of this
    size is planned best.

    A small input is planned for a few thousand rows, where a run's time is Catalyst's and the scheduler's
    rather than the rows': its expressions interpreted (compiling a few hundred generated classes, a
    second or two of Janino on a cold JVM, costs more than evaluating the rows they would see), one
    partition after each shuffle and no adaptive re-planning between stages (AQE would coalesce to about
    that anyway, after planning every stage twice), and no constraint propagation (inferring filters
    through plans of a few hundred CASE expressions is planning time the rows never pay back): the bundled
    sample's first run in a JVM about a tenth faster, the next ones about a quarter.
    A large input runs compiled and adaptive, with the session's own shuffle partitions.

    The change files are read in splits of at most 1/(2 x the session's shuffle partitions) of the input
    (four per core, Spark's 128 MB at most): a file is a task otherwise, and three files of equal size
    decode in two rounds on two cores, the second on one core. Every frame up to the first shuffle has these partitions.

    Returns whether the run is a small one: `_run` then also keeps each materialized frame in one
    partition, so that no later job schedules a task per empty split."""
    conf = spark.conf
    conf.set("spark.sql.session.timeZone", "UTC")
    conf.set("spark.sql.ansi.enabled", "true")
    conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    conf.set("spark.sql.optimizer.plannedWrite.enabled", "false")  # no write here asks for an ordering
    conf.set("spark.sql.variable.substitute", "false")  # `${...}` in a model's SQL is text, never the session's conf
    if conf.get(SESSION_PARTITIONS, None) is None:  # the session's own, kept before a small run changes it
        conf.set(SESSION_PARTITIONS, str(conf.get("spark.sql.shuffle.partitions")))
    small = input_bytes <= SMALL_INPUT_BYTES
    conf.set("spark.sql.codegen.wholeStage", str(not small).lower())
    conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN" if small else "FALLBACK")
    conf.set("spark.sql.adaptive.enabled", str(not small).lower())
    conf.set("spark.sql.constraintPropagation.enabled", str(not small).lower())
    partitions = int(conf.get(SESSION_PARTITIONS) or 1)
    conf.set("spark.sql.shuffle.partitions", "1" if small else str(partitions))
    conf.set("spark.sql.files.minPartitionNum", str(2 * partitions))
    return small


def _run(spark: SparkSession, model: Model, data_dir: Path, out: Path, progress: Progress | None,
         small: bool, sql_natively: bool) -> SparkRun:
    run = SparkRun(RunCounts())
    persisted: list[DataFrame] = []

    def keep(frame: DataFrame) -> DataFrame:
        """Materialize `frame` where it is (the executors' block managers) and cut its lineage: what follows
        plans against a small plan, not against every expression that made it. A small run keeps it in one
        partition: a few thousand rows are one task's work, and every partition more is a task in every job
        that reads it (the sample's convergence ran a quarter of the tasks).

        A large run keeps its frames serialized (`KEPT`): a few byte buffers a block, where Spark's default
        keeps two Java objects a row, which the collector traces at every full collection for as long as
        the frame is kept: at a million B2 events, a third of the full collections, and a fifth less
        memory at the driver's peak."""
        kept = frame.coalesce(1).localCheckpoint(eager=True) if small else frame.localCheckpoint(True, KEPT)
        persisted.append(kept)
        return kept

    def keep_only(*needed: DataFrame) -> None:
        """Free every frame kept so far but `needed`: what the rest of the run reads no more. Its blocks
        would otherwise hold the memory the later stages sort and aggregate in (at 1,000,000 B2 events,
        a line's typed record and its transaction's facts by the time resolve starts), and be spilled to
        disk to make room."""
        forget(*(f for f in persisted if not any(f is n for n in needed)))

    def forget(*frames: DataFrame) -> None:
        """Free these kept frames now."""
        for frame in frames:
            release(frame)
            persisted.remove(frame)

    def stage(name: str) -> _Stage:
        return _Stage(name, run.stage_seconds, progress, spark)

    try:
        with stage("decode"):
            build_context(model)  # a model the run cannot execute fails here, with the reference's reason
            schedule_path = data_dir / "schedule.json"
            load_schedule(schedule_path)  # a bad schedule fails here, with the reference's reason
            schedule_doc = schedule_document(schedule_path)[0]  # read as a checked input file, as it was above
            changes = [str(p) for p in change_files(data_dir / "changes")]
            debezium = debezium_files(data_dir / "changes", model)
            snapshot_texts = snapshot_text_files(data_dir, model)
            names = [*changes, *debezium]
            # the change files' lines are read where decoding reads them, not kept: decoding keeps each
            # line parsed and typed, with its text (keeping the lines as well had cost seconds and
            # hundreds of megabytes of the memory the later stages sort in, at a million B2 events)
            change_lines, lines = _lines(spark, names, snapshot_texts, keep, small)
            deb_ords = {len(changes) + i: server for i, server in enumerate(debezium.values())}
            first = len(names) if small else 0  # a small run's snapshot lines were read with the change files'
            ordinals = {path: first + i for i, path in enumerate(snapshot_texts)}
            snapshot_rows_kept: list[DataFrame] = []

            def decoding() -> tuple[Decoded, dict[str, int]]:
                decoded = decode(change_lines, model, names, deb_ords, keep, observe=True)
                counted = decoded.read_by_reference.groupBy("kind").count().collect()
                return decoded, {r["kind"]: int(r["count"]) for r in counted}

            def snapshots_of(snapshot_rows: DataFrame | None) -> dict[str, DataFrame]:
                def keep_snapshot(frame: DataFrame) -> DataFrame:
                    snapshot_rows_kept.append(keep(frame))
                    return snapshot_rows_kept[-1]
                return read_snapshots(spark, data_dir, model, lines, ordinals, snapshot_rows, keep_snapshot, small)

            if debezium:  # its `r` events are snapshot rows: the snapshots wait for the decoding
                decoded, kinds = decoding()
                snapshots = snapshots_of(_debezium_snapshot_rows(spark, decoded.read_by_reference, names,
                                                                 len(changes)))
            else:  # the snapshots' jobs run beside the decoding's, not after them
                (decoded, kinds), snapshots = both(decoding, lambda: snapshots_of(None))
            read = decoded.read_by_reference
            records = decoded.records
            # the records are the lines Spark typed and those the reference read as records
            accepted = records.count() if decoded.clean is None else decoded.clean + kinds.get("record", 0)
            run.counts.rejects = kinds.get("reject", 0)
            run.counts.records = accepted + run.counts.rejects
            if debezium:
                run.counts.skipped = kinds.get("skip", 0)
            if decoded.doubtful is not None:
                run.python["decode"] = {"lines": decoded.doubtful, "seconds": round(decoded.reference_seconds, 2)}
            if not small:
                forget(lines)  # the snapshots' rows are kept typed (a small run's lines: once decoding is kept too)

        with stage("net_effect"):
            events = net_effect(records, snapshots, model, decoded.tables, schedule_doc, sql_natively, keep,
                                observe=True)
            txns, reference = events.transactions, events.reference
            native = events.mapped()
            by_reference = reference.agg(F.sum("filtered").alias("filtered"),
                                         F.count(F.when(F.col("kind") == "delivery", 1)).alias("deliveries")).first()
            run.counts.filtered = native["filtered"] + int(by_reference["filtered"] or 0)  # type: ignore[index]
            run.counts.deliveries = native["deliveries"] + int(by_reference["deliveries"] or 0)  # type: ignore[index]
            keep_only(read, txns, reference, *snapshot_rows_kept)  # the typed records are in these now
            if events.tally is not None:
                run.python["net_effect"] = events.tally.figures()

        with stage("resolve"):
            rounds = resolve_native.SMALL_ROUNDS if small else resolve_native.ROUNDS
            resolved = resolve(events.tables, model, keep, rounds, observe=True)  # its folds kept as they run
            applied_natively = resolved.applied_natively()  # over Spark Connect, a count of the checks' events
            forget(txns, reference, *snapshot_rows_kept)  # the checks and the fold hold what is read of them now
            folded = resolved.reference
            before = len(persisted)
            rows = write_results(resolved, model, out, keep, small)
            rows_kept = persisted[before:]
            tally = folded.where(F.col("kind").isin("outcome", "conflict")).groupBy("kind", "status") \
                .agg(F.sum(F.coalesce("n", F.lit(1))).alias("n"))
            counted = {(r["kind"], r["status"]): int(r["n"] or 0) for r in tally.collect()}
            run.counts.applied = applied_natively + counted.get(("outcome", "applied"), 0)
            run.counts.resolved = counted.get(("outcome", "resolved"), 0)
            run.counts.queued = counted.get(("outcome", "queued"), 0)
            run.counts.conflicts = counted.get(("conflict", None), 0)
            counts = run.counts
            if counts.deliveries != counts.applied + counts.resolved + counts.queued:
                raise AssertionError(f"accounting broken: {counts}")
            keep_only(read, *rows_kept)  # convergence reads the final rows, the rejects their lines
            if resolved.tally is not None:
                run.python["resolve"] = resolved.tally.figures()

        with stage("converge"):
            rejects = read.where(F.col("kind") == "reject").select(
                F.concat(_name_of(names), F.lit("\x00"), F.lpad(F.col("line").cast("string"), 20, "0")).alias("sort"),
                F.col("reject").alias("text"))
            concurrently([lambda: output.write_lines(rejects, out / "rejects.jsonl", small),
                           lambda: setattr(run, "convergence", reports(rows, model, sql_natively, keep))])
    finally:
        for frame in persisted:
            release(frame)
        spark.catalog.clearCache()  # what the stages cached for a second reader
        sql.drop_views(spark)
    return run


def _lines(spark: SparkSession, changes: list[str], snapshots: list[Path], keep: Callable[[DataFrame], DataFrame],
           small: bool) -> tuple[DataFrame, DataFrame]:
    """The change files' lines but blank ones, and the snapshot text files' lines (kept: the snapshots read
    each file's from them), by their places in `changes` and in `snapshots`.

    A large run reads the change files where decoding reads them, never kept: keeping them as well had
    cost B2 at a million events seconds and hundreds of megabytes of the memory the later stages sort in.
    A small run reads every file in one read, kept (the snapshots' files are then numbered after the change
    files): one counting job for the lines and one broadcast of their places instead of two each, and the
    change files' few thousand lines are not read from the files again. They are freed with the records
    (`keep_only` after the net effect)."""
    paths = [str(Path(p).resolve()) for p in changes]
    texts = [str(p.resolve()) for p in snapshots]
    if not small or not texts:
        return read_lines(spark, paths).where(~F.col("blank")), keep(read_lines(spark, texts))
    every = keep(read_lines(spark, paths + texts))
    return (every.where((F.col("file_ord") < len(paths)) & ~F.col("blank")),
            every.where(F.col("file_ord") >= len(paths)))


def release(frame: DataFrame) -> None:
    """Free the blocks `localCheckpoint` kept of `frame`. `DataFrame.unpersist` frees a frame that was
    cached, not one that was checkpointed: Spark keeps those blocks until the driver's garbage collector
    finds their RDD unreferenced, and until then they hold memory the later stages need or are written to
    disk to make room (at a million B2 events, half a gigabyte of lines and typed records was still held
    when resolve started). Over Spark Connect a checkpointed frame is the server's: unpersist is what a client
    may ask, and the server frees the rest when the frame's last reference goes."""
    plan = frame._jdf.queryExecution().analyzed() if hasattr(frame, "_jdf") else None
    if plan is not None and plan.getClass().getSimpleName() == "LogicalRDD":
        plan.rdd().unpersist(True)
    else:
        frame.unpersist()


def _name_of(names: list[str]) -> Any:
    """The file a line came from, as rejects name it."""
    return F.element_at(F.array(*(F.lit(n) for n in names)), F.col("file_ord") + 1) if names else F.lit("")


def _debezium_snapshot_rows(spark: SparkSession, read: DataFrame, names: list[str], first: int) -> DataFrame:
    """Debezium `r` events as snapshot rows, with their place in (file name, line) order."""
    ranks = {ordinal: rank for rank, ordinal in enumerate(sorted(range(first, len(names)), key=lambda i: names[i]))}
    rank_of = F.element_at(F.create_map(*(x for o, r in ranks.items() for x in (F.lit(o), F.lit(r)))),
                           F.col("file_ord")) if ranks else F.lit(0)
    return read.where(F.col("kind") == "snapshot").select(
        "table", _name_of(names).alias("file"), "line", (rank_of.cast("long") * F.lit(1 << 32) + F.col("line"))
        .alias("order"), "text")


class ModelSqlError(RunModelError):
    """A mapping's SQL that Spark cannot run (the message, one line, names the mapping and the SQL): a model
    the run cannot execute, as the reference's `UnsupportedSql` is."""


def unrunnable_sql(spark: SparkSession, model: Model) -> str | None:
    """The first `where` clause or `expression` method Spark's analyzer refuses over its source table's
    columns (a type it cannot apply an operator to: `F DIV 2` of a DOUBLE, `TS + 1` of a TIMESTAMP), or a
    `where` clause that is no condition; None when every one runs. Asked only after a run failed in
    analysis, to say which mapping's SQL it was."""
    from pyspark.errors import AnalysisException, ParseException
    from pyspark.sql.types import BooleanType

    from engine.spark.types import table_struct

    for mapping in model.mappings:
        source = model.table(mapping.source)
        if source is None:
            continue
        rows = spark.createDataFrame([], table_struct(source))
        texts = [("the where clause", mapping.where, True)] if mapping.where is not None else []
        texts += [(f"the expression of {column}", node.sql, False) for column, method in mapping.columns.items()
                  for _, node in method.walk() if node.method == "expression"]
        for what, text, condition in texts:
            try:
                kind = rows.selectExpr(f"({text}) AS _v").schema["_v"].dataType
            except (AnalysisException, ParseException) as exc:
                reason = " ".join(str(exc).split()).split(" SQLSTATE")[0][:300]
                return f"mapping {mapping.id}: {what} {text!r} does not run on Spark: {reason}"
            if condition and not isinstance(kind, BooleanType):
                return (f"mapping {mapping.id}: {what} {text!r} is no condition "
                        f"(Spark reads it as {kind.simpleString()})")
    return None


def _analysis_failure(exc: BaseException) -> bool:
    from pyspark.errors import AnalysisException

    return isinstance(exc, AnalysisException)


def _has_sql(model: Model) -> bool:
    return any(m.where is not None or any(node.method == "expression" for method in m.columns.values()
                                          for _, node in method.walk()) for m in model.mappings)


def _sql_failure(exc: BaseException) -> bool:
    """Whether a Spark failure is the model's SQL failing on a row (ANSI), not a fault of the run."""
    text = str(exc)
    condition = getattr(exc, "getCondition", lambda: None)() or getattr(exc, "getErrorClass", lambda: None)()
    return any(name in (condition or "") or f"[{name}" in text for name in SQL_FAILURES)


class _Stage:
    """Times a stage into `seconds`; tells `progress` as it starts and ends, and Spark's tasks meanwhile."""

    def __init__(self, name: str, seconds: dict[str, float], progress: Progress | None, spark: SparkSession) -> None:
        self.name, self.seconds, self.progress, self.spark = name, seconds, progress, spark
        self.start = 0.0
        self.watch: JobProgress | None = None

    def __enter__(self) -> _Stage:
        index = STAGES.index(self.name)
        if self.progress:
            self.progress(self.name, index, len(STAGES))
            self.watch = JobProgress(self.spark, lambda done, total: self.progress(  # type: ignore[misc]
                self.name, index, len(STAGES), tasks_done=done, tasks_total=total))
            self.watch.start()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.watch is not None:
            self.watch.stop()
        self.seconds[self.name] = self.seconds.get(self.name, 0.0) + time.perf_counter() - self.start
        if self.progress and exc[0] is None:
            self.progress(self.name, STAGES.index(self.name) + 1, len(STAGES))
