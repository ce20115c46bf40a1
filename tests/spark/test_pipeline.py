"""The Spark pipeline gives what the pure-Python reference gives: on the contract examples, and on
random small models, change streams and schedules (hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sparkkit import both, spark_run

from engine.model import Model, load_model
from engine.rules import Severity, validate
from engine.spark import pipeline

EXAMPLES_USED = ["ordering_conflict", "row_images"]


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("name", EXAMPLES_USED)
def test_examples_equal_the_reference(spark: Any, examples: Path, name: str, compiled: bool, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples are small inputs, planned as such (interpreted, one shuffle partition, no adaptive
    re-planning, no inferred constraints); planned as a large input is, they give the same."""
    session_partitions = spark.sparkContext.getConf().get("spark.sql.shuffle.partitions")  # as started
    if compiled:
        monkeypatch.setattr(pipeline, "SMALL_INPUT_BYTES", -1)
    model = load_model(examples / name / "model.json")
    data = examples / name / "data"
    got, want = both(spark, model, data, tmp_path)
    assert got == want
    seen: list[tuple[Any, ...]] = []
    spark_run(spark, model, data, tmp_path / "again", lambda *event, **tasks: seen.append(event))
    assert seen[0] == ("decode", 0, 4) and seen[-1] == ("converge", 4, 4)
    assert spark.conf.get("spark.sql.codegen.wholeStage") == str(compiled).lower()
    assert spark.conf.get("spark.sql.codegen.factoryMode") == ("FALLBACK" if compiled else "NO_CODEGEN")
    assert spark.conf.get("spark.sql.adaptive.enabled") == str(compiled).lower()
    assert spark.conf.get("spark.sql.constraintPropagation.enabled") == str(compiled).lower()
    assert spark.conf.get("spark.sql.shuffle.partitions") == (session_partitions if compiled else "1")


def test_a_warm_session_runs_a_model_again_without_compiling_its_code_again(
        spark: Any, examples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session keeps the generated code of a run (about 160 classes for this example, where Spark keeps
    100 by default), so the designer's next preview of the model compiles next to nothing."""
    monkeypatch.setattr(pipeline, "SMALL_INPUT_BYTES", -1)  # compiled, as a large input is
    model = load_model(examples / "ordering_conflict" / "model.json")
    compiled = spark.sparkContext._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    counts = []
    for n in range(2):
        before = compiled.getCount()
        pipeline.run_spark(spark, model, examples / "ordering_conflict" / "data", tmp_path / str(n))
        counts.append(compiled.getCount() - before)
    assert counts[1] <= 20, counts  # where Spark's 100 were kept, about 150 again


def test_a_run_says_where_python_ran(spark: Any, examples: Path, tmp_path: Path) -> None:
    """The run counts what the reference's folds took in Python, the benchmark's account of where Python
    still runs: the conflicting keys' events reached the fold, and no line needed the reference to decode."""
    example = examples / "ordering_conflict"
    ran = pipeline.run_spark(spark, load_model(example / "model.json"), example / "data", tmp_path / "out")
    expected = json.loads((example / "expected.json").read_text())
    assert ran.counts.conflicts == len(expected["conflicts"]) > 0
    resolve = ran.python["resolve"]
    assert resolve["groups"] >= 1 and resolve["rows"] >= 2 * resolve["groups"] > 0  # a conflict needs two events
    assert resolve["cpu_seconds"] > 0
    assert ran.python["decode"]["lines"] == 0  # every line typed by Spark
    assert ran.python["net_effect"]["rows"] == 0  # the example's transactions are all Spark's to map


def test_a_large_run_after_a_small_one_gets_the_sessions_partitions_back(spark: Any) -> None:
    """A warm session serves small and large runs in turn: a small run's one partition does not stay."""
    own = spark.sparkContext.getConf().get("spark.sql.shuffle.partitions")  # as the session started
    assert pipeline.configure(spark, input_bytes=0) is True  # a small run: its frames kept in one partition
    pipeline.configure(spark, input_bytes=0)  # twice: the session's own value is kept once, not overwritten
    assert spark.conf.get("spark.sql.shuffle.partitions") == "1"
    assert pipeline.configure(spark, input_bytes=pipeline.SMALL_INPUT_BYTES + 1) is False
    assert spark.conf.get("spark.sql.shuffle.partitions") == own != "1"
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"
    assert spark.conf.get("spark.sql.files.minPartitionNum") == str(2 * int(own))  # splits to balance the cores



def _held(spark: Any) -> set[int]:
    """The RDDs whose blocks Spark holds (cached or checkpointed)."""
    return {info.id() for info in spark.sparkContext._jsc.sc().getRDDStorageInfo()}


def test_release_frees_what_a_checkpoint_kept(spark: Any) -> None:
    frame = spark.range(1000).localCheckpoint(eager=True)
    rdd = frame._jdf.queryExecution().analyzed().rdd().id()
    frame.unpersist()
    assert rdd in _held(spark)  # unpersist frees a cached frame only: why the run has `release`
    pipeline.release(frame)
    assert rdd not in _held(spark)


def test_a_run_frees_every_frame_it_kept(spark: Any, examples: Path, tmp_path: Path) -> None:
    before = _held(spark)
    model = load_model(examples / "ordering_conflict" / "model.json")
    spark_run(spark, model, examples / "ordering_conflict" / "data", tmp_path / "run")
    assert _held(spark) - before == set()

def test_a_large_run_keeps_its_frames_serialized_and_a_small_one_as_objects(
        spark: Any, examples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large run's kept frames are byte buffers the collector does not trace row by row; a small run's
    few rows are kept as they are (nothing to serialize and read back)."""
    model = load_model(examples / "ordering_conflict" / "model.json")
    data = examples / "ordering_conflict" / "data"

    def kept_at_resolve(small: bool) -> set[bool]:
        monkeypatch.setattr(pipeline, "SMALL_INPUT_BYTES", 1 << 40 if small else -1)
        before, levels = _held(spark), set()

        def progress(stage: str, done: int, total: int, **tasks: int) -> None:
            if stage == "resolve" and done == 2 and not tasks:
                levels.update(info.storageLevel().deserialized()
                              for info in spark.sparkContext._jsc.sc().getRDDStorageInfo() if info.id() not in before)
        spark_run(spark, model, data, tmp_path / f"small-{small}", progress)
        return levels

    assert kept_at_resolve(small=False) == {False}
    assert kept_at_resolve(small=True) == {True}


SITES = ["A", "B", "C"]
CHAINS = [
    [{"method": "latest_timestamp", "column": "TS"}, {"method": "site_priority"}],
    [{"method": "site_priority"}],
    [{"method": "maximum", "column": "X"}, {"method": "discard"}],
    [{"method": "minimum", "column": "X"}, {"method": "overwrite"}],
    [{"method": "earliest_timestamp", "column": "TS"}, {"method": "site_priority"}],
    [{"method": "overwrite"}],
]


@st.composite
def workloads(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(model, change records, snapshots per site, schedule)."""
    sites = SITES[: draw(st.integers(2, 3))]
    pairs = [(a, b) for a in sites for b in sites if a != b]
    links = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    unique_s = draw(st.booleans())
    columns = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "X", "type": "INTEGER"},
               {"name": "TS", "type": "TIMESTAMP"}, {"name": "S", "type": "VARCHAR(12)"}]
    tables = [{"server": s, "name": "T", "columns": columns, "primary_key": ["ID"],
               "unique_indexes": [{"name": "UX_S", "columns": ["S"]}] if unique_s else []} for s in sites]
    where = draw(st.sampled_from([None, "X >= 2", "S <> 'hide'"]))
    mappings = [{"id": f"{a}_{b}", "source": f"{a}.T", "target": f"{b}.T",
                 "columns": {"ID": "ID", "X": "X", "TS": "TS", "S": "S"}, **({"where": where} if where else {})}
                for a, b in links]
    chain = draw(st.sampled_from(CHAINS))
    conflicts = [{"table": f"{s}.T", "column_groups": [{"name": "x_cg", "columns": ["X", "TS"], "resolution": chain}],
                  "on_insert_exists": draw(st.sampled_from(["error", "discard", "overwrite", "as_update"])),
                  "on_update_missing": draw(st.sampled_from(["error", "discard", "insert"])),
                  "on_delete_missing": draw(st.sampled_from(["error", "discard"])),
                  "scope": draw(st.sampled_from(["row", "row", "transaction"])),
                  "unique": [{"index": "UX_S", "resolution": draw(st.sampled_from(
                      ["append_site_name", "append_sequence", "discard", "error"]))}] if unique_s else []}
                 for s in sites if draw(st.booleans())]
    model = {"format": "mapwright/1", "name": "random", "servers": [
        {"id": s, "dbms": "postgresql", "priority": p} for s, p in zip(sites, [30, 25, 10], strict=False)],
        "tables": tables, "mappings": mappings, "conflicts": conflicts}
    snapshot = [{"ID": i, "X": i, "TS": "2026-01-05T09:00:00Z", "S": f"s{i}"} for i in range(1, 4)]
    records: list[dict[str, Any]] = []
    for n in range(draw(st.integers(1, 8))):
        site = draw(st.sampled_from(sites))
        minute = draw(st.integers(0, 30))
        for seq in range(1, draw(st.integers(1, 3)) + 1):
            op = draw(st.sampled_from("IUUD"))
            key, new_key = draw(st.integers(1, 5)), draw(st.sampled_from([None, None, 1, 6]))
            x = draw(st.integers(0, 6))
            s_val = draw(st.sampled_from(["s1", "s2", "hide", "new"]))
            before = {"ID": key, "X": x, "TS": "2026-01-05T09:00:00Z", "S": f"s{key}"}
            after = {"ID": new_key or key, "X": x + 1, "TS": f"2026-01-05T10:{minute:02d}:00Z", "S": s_val}
            rec: dict[str, Any] = {"site": site, "txn": f"t{n}", "seq": seq, "table": "T", "op": op,
                                   "commit_ts": f"2026-01-05T10:{minute:02d}:00Z"}
            if op != "I":
                rec["before"] = before
            if op != "D":
                rec["after"] = after
            records.append(rec)
    if draw(st.booleans()):
        records.append({"site": sites[0], "txn": "bad", "seq": 1, "table": "NOPE", "op": "I", "after": {}})
    schedule = {"links": [{"from": a, "to": b, "delay_s": draw(st.integers(0, 900)),
                           "down": [["2026-01-05T10:05:00Z", "2026-01-05T10:20:00Z"]] if draw(st.booleans()) else []}
                          for a, b in pairs]}
    return model, records, {s: snapshot for s in sites}, schedule


def write_data(root: Path, records: list[dict[str, Any]], snapshots: dict[str, Any], schedule: dict[str, Any]) -> None:
    (root / "changes").mkdir(parents=True)
    half = len(records) // 2
    (root / "changes" / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:half]))
    (root / "changes" / "b.jsonl").write_text("\n" + "".join(json.dumps(r) + "\n" for r in records[half:]))
    for site, rows in snapshots.items():
        (root / "snapshots" / site).mkdir(parents=True)
        (root / "snapshots" / site / "T.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "schedule.json").write_text(json.dumps(schedule))


@given(workloads())
@settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_spark_equals_reference_on_random_workloads(spark: Any, tmp_path_factory: pytest.TempPathFactory,
                                                    workload: Any) -> None:
    model_doc, records, snapshots, schedule = workload
    model = Model.model_validate(model_doc)
    assert not [f for f in validate(model) if f.severity is Severity.ERROR]
    data = tmp_path_factory.mktemp("data")
    write_data(data, records, snapshots, schedule)
    got, want = both(spark, model, data, tmp_path_factory.mktemp("runs"))
    assert got == want


def test_the_session_runs_the_throughput_collector(spark: Any) -> None:
    """A run is a batch: the JVM collects with the parallel (throughput) collector, not G1."""
    beans = spark._jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    assert {bean.getName() for bean in beans} == {"PS Scavenge", "PS MarkSweep"}


@pytest.mark.parametrize("size", [None, 1 << 20, 64 << 20, 1 << 30])
def test_every_jvm_a_run_starts_takes_its_jit_options(size: int | None) -> None:
    """The JIT options of each size of run are ones the JVM takes (a flag it does not know stops it: every
    run of that size would fail), and a large run's C2 inlines less."""
    import subprocess

    from engine.java import require_java
    from engine.spark.session import C1_INPUT_BYTES, jit_options

    options = jit_options(size)
    ran = subprocess.run([require_java(), *options.split(), "-XX:+PrintFlagsFinal", "-version"],
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    flags = {parts[1]: parts[3] for line in ran.stdout.splitlines() for parts in [line.split()] if len(parts) > 3}
    assert flags["UseParallelGC"] == "true"
    assert flags["MaxNodeLimit"] == ("40000" if size is not None and size > C1_INPUT_BYTES else "80000")


def test_a_failing_query_writes_nothing_on_standard_error(spark: Any, capfd: pytest.CaptureFixture[str]) -> None:
    """PySpark would log a SQL error with its query context (a JSON line holding the Java stack) before the
    run decides what to do with it: a row's ANSI failure goes to the reference, a run's to its one line."""
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT id / (id - id) FROM range(3)").collect()
    assert "DIVIDE_BY_ZERO" not in capfd.readouterr().err


def test_any_column_name_runs_as_on_the_reference(spark: Any, tmp_path: Path) -> None:
    """Column names with spaces, quotes, dots, brackets, tabs, non-ASCII letters, an emoji, SQL keywords and
    the pipeline's own column names (`_key`, `seq`, `row`, `kind`...): every Spark type string quotes them
    (a hostile probe's case; Spark had refused `struct<my col:string>`)."""
    folder = Path(__file__).parent.parent / "fixtures" / "odd_names"
    model = load_model(folder / "model.json")
    got, want = both(spark, model, folder / "data", tmp_path)
    assert got == want
    assert got["manifest"]["counts"]["applied"] > 0


def test_defaults_in_the_servers_sql_fill_as_on_the_reference(spark: Any, tmp_path: Path) -> None:
    """Unmapped target columns take their defaults, read in the target server's SQL (Oracle's `'it''s'`,
    `SYSDATE`), on the native fold as on the reference's."""
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "A", "type": "INTEGER"}]
    extra = [{"name": "NOTE", "type": "VARCHAR(20)", "default": "'it''s'"},
             {"name": "AT", "type": "TIMESTAMP", "default": "SYSDATE"}]
    model = Model.model_validate({
        "format": "mapwright/1", "servers": [{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
        "tables": [{"server": "s", "name": "T", "columns": cols, "primary_key": ["ID"]},
                   {"server": "t", "name": "T", "columns": cols + extra, "primary_key": ["ID"]}],
        "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID", "A": "A"}}]})
    (tmp_path / "data" / "changes").mkdir(parents=True)
    (tmp_path / "data" / "changes" / "s.jsonl").write_text("\n".join(json.dumps(
        {"site": "s", "txn": f"x{i}", "seq": 1, "commit_ts": f"2026-01-05T10:00:0{i}Z", "table": "T", "op": "I",
         "after": {"ID": i, "A": i}}) for i in (1, 2)) + "\n")
    got, want = both(spark, model, tmp_path / "data", tmp_path)
    assert got == want
    [table] = [pq.read_table(p) for p in (tmp_path / "spark" / "tables" / "t").glob("T.parquet")]
    assert table.column("NOTE").to_pylist() == ["it's", "it's"]
    assert [str(v)[:19] for v in table.column("AT").to_pylist()] == ["2026-01-05 10:00:01", "2026-01-05 10:00:02"]


def test_a_blob_default_fills_its_bytes_on_both_folds(spark: Any, tmp_path: Path) -> None:
    """SQLite's `x'00ff'` default is two bytes on the native fold as on the reference's (it had been the
    text of the literal)."""
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}]
    model = Model.model_validate({
        "format": "mapwright/1", "servers": [{"id": "s", "dbms": "sqlite"}, {"id": "t", "dbms": "sqlite"}],
        "tables": [{"server": "s", "name": "T", "columns": cols, "primary_key": ["ID"]},
                   {"server": "t", "name": "T", "primary_key": ["ID"],
                    "columns": cols + [{"name": "B", "type": "BLOB", "default": "x'00ff'"}]}],
        "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID"}}]})
    (tmp_path / "data" / "changes").mkdir(parents=True)
    (tmp_path / "data" / "changes" / "s.jsonl").write_text(json.dumps(
        {"site": "s", "txn": "x1", "seq": 1, "commit_ts": "2026-01-05T10:00:01Z", "table": "T", "op": "I",
         "after": {"ID": 1}}) + "\n")
    got, want = both(spark, model, tmp_path / "data", tmp_path)
    assert got == want
    [table] = [pq.read_table(p) for p in (tmp_path / "spark" / "tables" / "t").glob("T.parquet")]
    assert table.column("B").to_pylist() == [b"\x00\xff"]


@pytest.mark.parametrize(("where", "says"), [
    ("F DIV 2 >= 0", "does not run on Spark: [DATATYPE_MISMATCH"),  # DIV takes no DOUBLE
    ("F + 1", "is no condition (Spark reads it as double)")])
def test_sql_spark_cannot_run_fails_the_run_in_one_line_naming_the_mapping(spark: Any, tmp_path: Path, where: str,
                                                                           says: str) -> None:
    """A clause the analyzer refuses failed the run with Spark's whole plan and no mapping named."""
    from builders import col, mapping, model, server, table

    cols = [col("ID", nullable=False), col("F", "DOUBLE")]
    built = model([server("s"), server("t")], [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
                  [mapping("m", "s.T", "t.T", {"ID": "ID", "F": "F"}, where=where)])
    record = {"site": "s", "txn": "x", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I",
              "after": {"ID": 1, "F": 2.5}}
    write_data(tmp_path / "data", [record], {}, {"links": []})
    with pytest.raises(pipeline.ModelSqlError) as raised:
        pipeline.run_spark(spark, built, tmp_path / "data", tmp_path / "out")
    message = str(raised.value)
    assert message.startswith(f"mapping m: the where clause {where!r} ") and says in message
    assert "\n" not in message and "Project [" not in message


def test_a_models_sql_never_reads_the_sessions_settings(spark: Any) -> None:
    """Spark substitutes `${name}` in SQL text with a setting of the session by default: a model's where
    clause or expression could have read (and shown in a table) any of them."""
    pipeline.configure(spark, 0)
    assert spark.sql("SELECT '${spark.app.name}' AS v").first()["v"] == "${spark.app.name}"
