"""Column defaults as a run fills them: SQL of the target's server, read in that server's dialect.

A target column no mapping writes takes its default on insert (docs/contract.md §5). The model holds a
default as its server's SQL, and the run's evaluator reads Spark SQL: Oracle's `'it''s'` read as Spark SQL
is two literals joined (`its`), and `SYSDATE` a column of no row (NULL).
"""

from __future__ import annotations

from datetime import datetime

from runkit import T0, build, rec, run, table

from engine.core.types import parse_type
from engine.spark.resolve_check import default_value_sql
from engine.sqldefaults import run_default


def _model(dbms: str, defaults: dict[str, str]) -> object:
    target = table("t", "T", {"ID": "INTEGER", "A": "INTEGER", "NOTE": "VARCHAR(20)", "AT": "TIMESTAMP"}, ["ID"])
    for column in target["columns"]:
        if column["name"] in defaults:
            column["default"] = defaults[column["name"]]
    return build([{"id": "s", "dbms": dbms}, {"id": "t", "dbms": dbms}],
                 [table("s", "T", {"ID": "INTEGER", "A": "INTEGER"}, ["ID"]), target],
                 [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID", "A": "A"}}])


def test_an_insert_fills_defaults_as_the_targets_server_reads_them() -> None:
    cases = {"oracle": {"NOTE": "'it''s'", "AT": "SYSDATE"},
             "mssql": {"NOTE": "N'it''s'", "AT": "getdate()"},
             "db2": {"NOTE": "'it''s'", "AT": "CURRENT TIMESTAMP"},
             "postgresql": {"NOTE": "'it''s'", "AT": "now()"}}
    for dbms, defaults in cases.items():
        result = run(_model(dbms, defaults), [rec("s", "x1", "I", after={"ID": 1, "A": 5})])  # type: ignore[arg-type]
        [row] = result.tables["t.T"]
        assert row["NOTE"] == "it's", dbms
        assert isinstance(row["AT"], datetime) and row["AT"].isoformat().startswith(T0[:19]), (dbms, row["AT"])


def test_a_hex_literal_fills_its_bytes_and_oracles_empty_text_null() -> None:
    """SQLite's `x'00ff'` is a blob (the evaluator has no binary literal: it had filled the text `X'00ff'`),
    and Oracle reads `''` as NULL."""
    blob = table("t", "T", {"ID": "INTEGER", "B": "BLOB"}, ["ID"])
    blob["columns"][1]["default"] = "x'00ff'"
    note = table("o", "T", {"ID": "INTEGER", "NOTE": "VARCHAR(20)"}, ["ID"])
    note["columns"][1]["default"] = "''"
    model = build([{"id": "s", "dbms": "sqlite"}, {"id": "t", "dbms": "sqlite"}, {"id": "o", "dbms": "oracle"}],
                  [table("s", "T", {"ID": "INTEGER"}, ["ID"]), blob, note],
                  [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID"}},
                   {"id": "n", "source": "s.T", "target": "o.T", "columns": {"ID": "ID"}}])
    result = run(model, [rec("s", "x1", "I", after={"ID": 1})])
    assert result.tables["t.T"] == [{"ID": 1, "B": b"\x00\xff"}]
    assert result.tables["o.T"] == [{"ID": 1, "NOTE": None}]
    assert default_value_sql(run_default("x'00ff'", "sqlite"), parse_type("BLOB")) == "unhex('00ff')"
    assert default_value_sql(run_default("''", "oracle"), parse_type("VARCHAR(20)")) == "CAST(NULL AS string)"


def test_spark_fills_the_same_defaults() -> None:
    """The Spark fold writes a default as a literal, or the event's time for the current timestamp."""
    assert default_value_sql(run_default("SYSDATE", "oracle"), parse_type("TIMESTAMP")) == "CAST(at AS timestamp)"
    assert "it\\'s" in str(default_value_sql(run_default("'it''s'", "oracle"), parse_type("VARCHAR(20)")))


def test_a_default_the_rules_refuse_is_read_as_written() -> None:
    assert run_default("X'0A'", "oracle") == "X'0A'"  # TB003: Oracle has no hex literal; read as before
    assert run_default(7, "oracle") == 7
