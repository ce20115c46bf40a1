"""What Spark 4.3's optimizer decides before a row is read, and so whether a part that would fail is ever
evaluated: the reference makes the same decisions (`engine.sql.simplify`, `engine.sql.folding`).

Each test holds the reference's values without Spark, then the same expressions against Spark on the same
rows. The rules (found by the property test and by reading Spark's optimized plans):

- BooleanSimplification's common factors and absorption, NOT pushed into AND/OR/comparisons, and
  Spark's semantic equality (`2 < I1` is `I1 > 2`, `S LIKE 'a%'` is `startswith(S, 'a')`);
- SimplifyBinaryComparison (`x <=> x`), NullPropagation (`x IS NULL` of what is never NULL),
  ReplaceNullWithFalseInPredicate under `IS TRUE`;
- an integral `x + 0` / `x * 1` is `x`, so a conditional of such branches drops its condition (a
  `try_cast` branch, issue 2); PushFoldableIntoBranches (`if(c, 1, 2) * 0` is 0 without `c`);
- ConstantFolding: its first pass folds every constant but for the NULLs NullPropagation made first, and a
  conditional's every child (its condition, a coalesce's first argument) as a branch.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from sparkcompare import FAILED, mismatches, reference

from engine.core.types import parse_type

SCHEMA = "RID int, I1 bigint, I2 bigint, S1 string, S2 string, B1 boolean"
TYPES = {"I1": parse_type("BIGINT"), "I2": parse_type("BIGINT"), "S1": parse_type("VARCHAR(20)"),
         "S2": parse_type("VARCHAR(20)"), "B1": parse_type("BOOLEAN")}
ROWS: list[dict[str, Any]] = [
    {"I1": 1, "I2": 0, "S1": "x", "S2": "7", "B1": None},
    {"I1": None, "I2": 0, "S1": None, "S2": "a", "B1": True},
    {"I1": 2, "I2": 1, "S1": "ab", "S2": None, "B1": False},
]
ZERO = ROWS[0]  # I1 / I2 divides by zero, S1 is no number, B1 is NULL

BOOLEAN_SIMPLIFICATION = {  # each on ZERO: a part that would fail there is never evaluated
    "CAST(NULL AS BOOLEAN) OR ((I1 / I2 > 0) AND CAST(NULL AS BOOLEAN))": None,  # the example
    "B1 OR ((I1 / I2 > 0) AND B1)": None,
    "B1 AND (B1 OR (I1 / I2 > 0))": None,
    "(B1 AND (I1 / I2 > 0)) OR (B1 AND TRUE)": None,
    "(B1 AND (I2 = 0)) OR (B1 AND (I1 / I2 > 0))": None,  # B1 AND (I2 = 0 OR ...): the OR stops at TRUE
    "(B1 OR (I2 <> 0)) AND (B1 OR (I1 / I2 > 0))": None,  # B1 OR (I2 <> 0 AND ...)
    "B1 OR NOT (NOT B1 OR (I1 / I2 > 0))": None,
    "(S1 LIKE 'a%') OR (startswith(S1, 'a') AND (I1 / I2 > 0))": False,
    "(I1 IN (1, 2)) OR ((I1 IN (2, 1)) AND (I1 / I2 > 0))": True,
    "(I1 + 1 > 5) OR ((1 + I1 > 5) AND (I1 / I2 > 0))": False,
    "(I1 > 5) OR ((5 < I1) AND (I1 / I2 > 0))": False,
    "(I1 <> 1) OR (NOT (I1 = 1) AND (I1 / I2 > 0))": False,
    "(I1 div I2) <=> (I1 div I2)": True,
    "coalesce(I1 div I2, 3) IS NULL": False,
    "isnull(concat_ws('-', S1, cast(cast(S1 as bigint) as string)))": False,
    "coalesce(I1 div I2, 1) >= coalesce(I1 div I2, 1)": True,
    "((I1 / I2 > 0) AND CAST(NULL AS BOOLEAN)) IS TRUE": False,
    "((I1 / I2 > 0) AND CAST(NULL AS BOOLEAN)) <=> TRUE": False,
    "((I1 / I2 > 0) AND CAST(NULL AS BOOLEAN)) IS NOT TRUE": True,
}
STILL_EVALUATED = [  # near misses: Spark evaluates the failing part here too
    "(B1 AND (I2 > 0)) OR (B1 AND (I1 / I2 > 0))", "(I1 / I2 > 0) AND CAST(NULL AS BOOLEAN)",
    "CAST(NULL AS BOOLEAN) AND (I1 / I2 > 0)", "((I1 / I2 > 0) AND CAST(NULL AS BOOLEAN)) IS FALSE",
    "(I1 div I2) = (I1 div I2)", "(B1 OR (I2 = 0)) AND (NOT B1 OR (I1 / I2 > 0))",
]

BRANCHES_MADE_EQUAL = {  # each on ZERO, where the condition's cast of S1 would fail
    "if(B1 OR cast(S1 as bigint) > 0, try_cast(S2 as bigint) * 1, try_cast(S2 as bigint))": 7,
    "CASE WHEN cast(S1 as bigint) > 0 THEN try_cast(S2 as bigint) + 0 ELSE try_cast(S2 as bigint) END": 7,
    "if(cast(S1 as bigint) > 0, 0 + I1, I1)": 1,
    "if(cast(S1 as bigint) > 0, 1, 2) * 0": 0,
    "if(cast(S1 as bigint) > 0, 1, 2) div 10": 0,
    "abs(if(cast(S1 as bigint) > 0, 1, -1))": 1,
    "length(CASE WHEN cast(S1 as bigint) > 0 THEN 'ab' ELSE 'cd' END)": 2,
    "isnull(if(cast(S1 as bigint) > 0, 1, 2))": False,
    "round(if(cast(S1 as bigint) > 0, 1.24, 1.23), 1)": Decimal("1.2"),
}
BRANCHES_STILL_APART = [  # Spark keeps the condition, which fails
    "if(cast(S1 as bigint) > 0, I1 - 0, I1)", "if(cast(S1 as bigint) > 0, 1, 2) * 1",
    "if(cast(S1 as bigint) > 0, 1, 2.5) / 3", "if(cast(S1 as bigint) > 0, try_cast(S2 as bigint) + 0, I1)",
]

FOLDING = {  # on ZERO (I1 = 1) and on ROWS[1] (I1 is NULL)
    "cast(CAST(NULL AS BOOLEAN) AND CAST(NULL AS BOOLEAN) as int) / least(I1, mod(0, 0))": (FAILED, FAILED),
    "CAST(NULL AS BIGINT) / least(I1, mod(0, 0))": (None, None),
    "if(TRUE, I1 + 7 % 0, 1)": (FAILED, None),
    "coalesce(I1 + 7 % 0, 1)": (FAILED, 1),
    "if(I1 = 7 % 0, 1, 2)": (FAILED, 2),
    "CASE I1 WHEN 7 % 0 THEN 1 ELSE 2 END": (FAILED, 2),
    "if(I1 = 7 % 0, 1, 1)": (1, 1),
    "if((7 % 0 = 1) AND CAST(NULL AS BOOLEAN), 1, 2)": (FAILED, FAILED),
    "I1 IS NULL AND (7 % 0 = 1)": (FAILED, FAILED),
}


def test_boolean_simplification_leaves_unevaluated_what_spark_drops() -> None:
    for sql, value in BOOLEAN_SIMPLIFICATION.items():
        assert reference(sql, ZERO) == value, sql
    for sql in STILL_EVALUATED:
        assert reference(sql, ZERO) == FAILED, sql


def test_branches_equal_once_simplified_drop_the_condition() -> None:
    for sql, value in BRANCHES_MADE_EQUAL.items():
        assert reference(sql, ZERO, TYPES) == value, sql
    for sql in BRANCHES_STILL_APART:
        assert reference(sql, ZERO, TYPES) == FAILED, sql


def test_constant_folding_fails_the_query_only_outside_every_conditional() -> None:
    for sql, (on_number, on_null) in FOLDING.items():
        assert (reference(sql, ZERO), reference(sql, ROWS[1])) == (on_number, on_null), sql


@pytest.mark.slow
def test_boolean_simplification_equals_spark(spark: Any) -> None:
    exprs = [*BOOLEAN_SIMPLIFICATION, *STILL_EVALUATED]
    assert mismatches(spark, SCHEMA, ROWS, exprs) == []


@pytest.mark.slow
def test_branches_made_equal_equal_spark(spark: Any) -> None:
    assert mismatches(spark, SCHEMA, ROWS, [*BRANCHES_MADE_EQUAL, *BRANCHES_STILL_APART], TYPES) == []


@pytest.mark.slow
def test_constant_folding_equals_spark(spark: Any) -> None:
    assert mismatches(spark, SCHEMA, ROWS, list(FOLDING)) == []
