"""The one SQL home without Spark: the allow-list in MP003/MP004 and the run, lineage through
expressions (DK009), the current-time test of convergence, and the reference's ANSI edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import col, mapping, model, server, table

from engine.cli import main
from engine.model import Model
from engine.model.methods import Expression
from engine.rules import validate
from engine.run.converge import event_dependent
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.evaluate import evaluate_sql, predicate_holds
from engine.sql.lineage import columns_read
from engine.sql.parse import parse_expression

REFUSED = {  # SQL -> the name the finding must give
    "reflect('java.lang.System', 'exit', 1)": "the function reflect",
    "java_method('java.lang.Runtime', 'getRuntime')": "the function java_method",
    "read_files('/etc/passwd')": "the function read_files",
    "my_udf(NAME)": "the function my_udf",
    "year(NAME)": "the function year",
    "lpad(NAME, 5, 'x')": "the function lpad",
    "date_format(NAME, 'yyyy')": "the function date_format",
    "upper(input_file_name())": "the function input_file_name",
    "rand() > 0.5": "the function rand",
    "NAME IN (SELECT NAME FROM other)": "a subquery",
    "transform(array(ID), x -> x + 1)": "the function transform",
    "other.NAME": "a qualified column (other.NAME)",
    "cast(NAME as timestamp_ntz)": "a cast to TIMESTAMP_NTZ",  # DATE and TIMESTAMP are allowed
}


def _two_tables(columns: dict[str, Any], where: str | None = None,
                src_unique: dict[str, list[str]] | None = None) -> Model:
    src = [col("ID", nullable=False), col("CODE", "CHAR(4)"), col("NAME", "VARCHAR(40)")]
    tgt = [col("K", "VARCHAR(40)", nullable=False), col("NAME", "VARCHAR(40)")]
    extra = {"where": where} if where else {}
    return model([server("s"), server("t")],
                 [table("s", "T", src, pk=["ID"], unique=src_unique), table("t", "T", tgt, pk=["K"])],
                 [mapping("m", "s.T", "t.T", columns, **extra)])


@pytest.mark.parametrize(("sql", "name"), sorted(REFUSED.items()))
def test_mp004_refuses_a_function_outside_the_allow_list_by_name(sql: str, name: str) -> None:
    m = _two_tables({"K": "ID", "NAME": {"method": "expression", "sql": sql}})
    found = [f for f in validate(m) if f.code == "MP004"]
    assert len(found) == 1, found
    assert f"uses {name}, which Mapwright does not run" in found[0].message
    assert found[0].location.column == "NAME"


@pytest.mark.parametrize(("sql", "name"), sorted(REFUSED.items()))
def test_mp003_refuses_a_function_outside_the_allow_list_by_name(sql: str, name: str) -> None:
    m = _two_tables({"K": "ID", "NAME": "NAME"}, where=f"{sql} IS NOT NULL")
    found = [f for f in validate(m) if f.code == "MP003"]
    assert [f"uses {name}" in f.message for f in found] == [True]


@pytest.mark.parametrize("sql", ["upper(trim(NAME))", "concat_ws('-', NAME, CODE)", "coalesce(NAME, 'x')",
                                 "CASE WHEN ID % 2 = 0 THEN 'even' ELSE substring(NAME, -3, 2) END",
                                 "try_cast(CODE as int) div 2", "regexp_replace(NAME, '[0-9]+', '#')",
                                 "cast(ID as decimal(10,2)) / 3", "if(NAME rlike '^A', lower(NAME), NAME)"])
def test_the_allow_list_accepts_pure_scalar_sql(sql: str) -> None:
    m = _two_tables({"K": "ID", "NAME": {"method": "expression", "sql": sql}}, where=f"length({sql}) > 0")
    assert [f for f in validate(m) if f.code in ("MP003", "MP004")] == []


def test_the_run_refuses_a_model_calling_a_function_outside_the_allow_list(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = _two_tables({"K": "ID", "NAME": {"method": "expression", "sql": "reflect('java.lang.Thread', 'sleep', 1)"}})
    path = tmp_path / "model.json"
    path.write_text(m.model_dump_json(exclude_none=True))
    (tmp_path / "data").mkdir()
    code = main(["run", str(path), "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run"),
                 "--master", "local[1]"])
    assert code == 1
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "validation error" in manifest["reason"]


def test_the_evaluator_refuses_outside_the_allow_list_too() -> None:
    with pytest.raises(UnsupportedSql, match="uses the function reflect"):
        evaluate_sql("reflect('java.lang.System', 'exit', 1)", {})
    with pytest.raises(UnsupportedSql, match="uses the function year"):
        predicate_holds("year(AT) = 2026", {"AT": None})


@pytest.mark.parametrize("sql", ["upper(CODE)", "concat(CODE, '-', 'x')", "cast(CODE as int) + 0"])
def test_a_key_built_by_an_expression_from_a_unique_column_is_no_dk009(sql: str) -> None:
    unique = _two_tables({"K": {"method": "expression", "sql": sql}, "NAME": "NAME"},
                         src_unique={"UX_CODE": ["CODE"]})
    assert [f.code for f in validate(unique) if f.code == "DK009"] == []
    plain = _two_tables({"K": {"method": "expression", "sql": sql}, "NAME": "NAME"})
    found = [f for f in validate(plain) if f.code == "DK009"]
    assert len(found) == 1 and "fed by CODE" in found[0].message


def test_lineage_matches_an_expression_s_columns_case_insensitively() -> None:
    m = _two_tables({"K": {"method": "expression", "sql": "concat(code, '-', Id)"}, "NAME": "NAME"})
    assert [f.code for f in validate(m) if f.code == "DK009"] == []  # fed by CODE and ID, the primary key


def test_lineage_comes_from_the_tree() -> None:
    assert parse_expression("CURRENT_BAL + `odd col` * 2 - CURRENT_BAL").columns == ("CURRENT_BAL", "odd col")
    assert parse_expression("'NAME' || ID").columns == ("ID",)  # a string is not a column


def test_a_column_named_current_something_is_not_the_current_time() -> None:
    assert not event_dependent(Expression(method="expression", sql="CURRENT_BAL + 1"))
    assert not event_dependent(Expression(method="expression", sql="concat('current_', NAME)"))
    assert event_dependent(Expression(method="expression", sql="coalesce(AT, current_timestamp())"))
    assert event_dependent(Expression(method="expression", sql="CURRENT_TIMESTAMP"))


@pytest.mark.parametrize(("sql", "value"), [
    ("substring('abc', 0, 1)", "a"),      # position 0 counts as 1
    ("substring('abc', -1, 2)", "c"),
    ("substring('abc', -5, 3)", "a"),     # the window is cut to the text
    ("substring('abc', 2, -1)", ""),
    ("substring(NULL, 1, 1)", None),
    ("7 / 2", 3.5),
    ("-7 div 2", -3),
    ("-7 % 2", -1),
    ("cast(' 12 ' as int)", 12),
    ("cast(2.7 as int)", 2),
    ("try_cast('2.7' as int)", None),
    ("cast('yes' as boolean)", True),
    ("'10' > 9", True),
    ("trim('\t a ')", "\t a"),          # Spark's trim takes off spaces only
    ("regexp_replace('a1b22', '([0-9])', '<$1>')", "a<1>b<2><2>"),
    ("NULL / 0", None),
])
def test_the_reference_follows_spark_ansi(sql: str, value: Any) -> None:
    assert evaluate_sql(sql, {}) == value


@pytest.mark.parametrize(("sql", "error"), [
    ("1 / 0", "DIVIDE_BY_ZERO"), ("1 div 0", "DIVIDE_BY_ZERO"), ("5 % 0", "REMAINDER_BY_ZERO"),
    ("cast('2.7' as int)", "CAST_INVALID_INPUT"), ("'abc' = 1", "CAST_INVALID_INPUT"),
    ("cast(300 as tinyint)", "CAST_OVERFLOW"),
])
def test_the_reference_fails_where_spark_ansi_fails(sql: str, error: str) -> None:
    with pytest.raises(SqlRuntimeError, match=error):
        evaluate_sql(sql, {})


def test_columns_read_gives_each_name_once_in_order() -> None:
    import sqlglot

    assert columns_read(sqlglot.parse_one("b + a * b - c", read="spark")) == ("b", "a", "c")


@pytest.mark.parametrize(("sql", "row", "value"), [
    ("(coalesce(S2, S2) = -3) AND (-10 IN (2, -1))", {"S2": "B "}, False),  # x AND <constant FALSE>
    ("cast(S1 as bigint) + try_cast('-' as bigint)", {"S1": "2.7"}, None),  # a constant that is NULL
    ("if(TRUE, try_cast('x' as bigint), if(B1, 1, 7)) / (cast(S1 as bigint) % I2)", {"S1": "2.7", "I2": 2}, None),
    ("if(I1 > 0, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT)) / (-1 div I2)", {"I1": 5, "I2": 0}, None),
    ("cast((CAST(NULL AS BIGINT) BETWEEN I1 AND CAST(NULL AS BIGINT)) as int) / cast(S1 as bigint)",
     {"S1": "abc"}, None),
    ("lower(upper(upper('_ß-1B')))", {}, "_ss-1b"),  # a constant chain is folded whole
    ("lower(upper(S1))", {"S1": "_ß-1B"}, "_ß-1b"),  # a column's chain is simplified to its last step
])
def test_the_reference_folds_constants_as_sparks_optimizer_does(sql: str, row: dict[str, object],
                                                                 value: object) -> None:
    """Spark folds constants before a row is read, so a side that would fail is never evaluated (found by the
    property test against Spark; each case here was a disagreement)."""
    assert evaluate_sql(sql, row) == value
