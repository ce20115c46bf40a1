"""Column-map methods and `where` clauses evaluated on a source row (docs/contract.md §1)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import TypeAdapter

from engine.model.methods import MethodSpec
from engine.run.semantics.methods import SystemValues, evaluate_method
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.evaluate import evaluate_sql, predicate_holds

ROW = {"REGION": "EU", "NO": 42, "PRICE": Decimal("9.50"), "AT": datetime(2026, 1, 5, 10, 0, tzinfo=UTC),
       "NAME": "  Ada Lovelace ", "CODE": "a-b-c", "NOTHING": None, "OK": True}
SYSTEM = SystemValues("hq", datetime(2026, 1, 5, 11, 0, tzinfo=UTC), "t17", "U")
METHOD = TypeAdapter(MethodSpec)


def value(spec: Any) -> Any:
    return evaluate_method(METHOD.validate_python(spec), ROW, SYSTEM)


@pytest.mark.parametrize(("spec", "expected"), [
    ("REGION", "EU"),
    ("MISSING", None),
    ({"method": "concat", "inputs": ["REGION", "NO"], "sep": "-"}, "EU-42"),
    ({"method": "concat", "inputs": ["PRICE", "AT", "OK"], "sep": "|"}, "9.50|2026-01-05 10:00:00|true"),
    ({"method": "concat", "inputs": ["REGION", "NOTHING"]}, None),
    ({"method": "split", "input": "CODE", "sep": "-", "index": 1}, "b"),
    ({"method": "split", "input": "CODE", "sep": "-", "index": 5}, None),
    ({"method": "substring", "input": "REGION", "start": 2, "length": 1}, "U"),
    ({"method": "substring", "input": "CODE", "start": 3}, "b-c"),
    ({"method": "constant", "value": "HQ"}, "HQ"),
    ({"method": "system", "name": "site"}, "hq"),
    ({"method": "system", "name": "commit_ts"}, datetime(2026, 1, 5, 11, 0, tzinfo=UTC)),
    ({"method": "system", "name": "txn"}, "t17"),
    ({"method": "system", "name": "op"}, "U"),
    ({"method": "cast", "input": "NO", "type": "VARCHAR(5)"}, "42"),
    ({"method": "cast", "input": {"method": "constant", "value": "12.345"}, "type": "DECIMAL(5,2)"}, Decimal("12.35")),
    ({"method": "cast", "input": "PRICE", "type": "INTEGER"}, 9),
    ({"method": "cast", "input": "REGION", "type": "INTEGER"}, None),
    ({"method": "cast", "input": {"method": "constant", "value": "2026-01-05"}, "type": "DATE"},
     datetime(2026, 1, 5, tzinfo=UTC)),
    ({"method": "upper", "input": "CODE"}, "A-B-C"),
    ({"method": "lower", "input": "REGION"}, "eu"),
    ({"method": "trim", "input": "NAME"}, "Ada Lovelace"),
    ({"method": "upper", "input": {"method": "split", "input": "CODE", "sep": "-", "index": 2}}, "C"),
    ({"method": "expression", "sql": "NO * 2 + 1"}, 85),
    ({"method": "expression", "sql": "concat(REGION, '/', lower(trim(NAME)))"}, "EU/ada lovelace"),
    ({"method": "expression", "sql": "CASE WHEN PRICE > 5 THEN 'dear' ELSE 'cheap' END"}, "dear"),
])
def test_methods(spec: Any, expected: Any) -> None:
    assert value(spec) == expected


@pytest.mark.parametrize(("where", "holds"), [
    ("REGION = 'EU'", True),
    ("REGION <> 'EU'", False),
    ("NOTHING <> 'x'", False),  # NULL is not true
    ("NOT (NOTHING = 'x')", False),
    ("NOTHING IS NULL AND NO > 40", True),
    ("NOTHING = 1 OR NO = 42", True),
    ("NOTHING = 1 AND NO = 0", False),
    ("NO IN (1, 42)", True),
    ("NO IN (1, NULL)", False),
    ("NO BETWEEN 40 AND 50", True),
    ("CODE LIKE 'a-%'", True),
    ("CODE LIKE 'a_b%'", True),
    ("CODE LIKE 'a\\-%'", True),
    ("CODE LIKE 'a\\%'", False),  # an escaped % is a literal percent sign
    ("CODE LIKE 'A-%'", False),
    ("CODE ILIKE 'A-%'", True),
    ("upper(REGION) = 'EU' AND PRICE >= 9.5", True),
    ("AT > '2026-01-05 09:00:00'", True),
    ("coalesce(NOTHING, 'dflt') = 'dflt'", True),
    ("region = 'EU'", True),  # identifiers are case-insensitive
])
def test_where_clauses_use_three_valued_logic(where: str, holds: bool) -> None:
    assert predicate_holds(where, ROW) is holds


def test_null_propagates_through_comparison_and_arithmetic() -> None:
    assert evaluate_sql("NOTHING = 1", ROW) is None
    assert evaluate_sql("NOTHING + 1", ROW) is None
    assert evaluate_sql("NOTHING / 0", ROW) is None  # NULL before the division: no error
    with pytest.raises(SqlRuntimeError, match="DIVIDE_BY_ZERO"):  # Spark's ANSI mode, which runs set
        evaluate_sql("NO / 0", ROW)


def test_sql_outside_the_evaluated_subset_fails_loudly() -> None:
    with pytest.raises(UnsupportedSql):
        evaluate_sql("my_udf(NO)", ROW)
    with pytest.raises(UnsupportedSql):
        evaluate_sql("NO >", ROW)
