"""`if`, CASE, `coalesce` and `nvl2` give one type, the wider of their branches' (Spark 4.3's ANSI type
coercion, `engine.sql.coercion`), and the value taken is cast to it: `if(c, 1, 2.5)` is 1.0, text beside an
integer is a BIGINT (so `'a'` fails where it is taken), text beside a DECIMAL a DOUBLE."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from sparkcompare import FAILED, mismatches, reference, same

from engine.core.types import parse_type

SCHEMA = "RID int, I int, L bigint, D decimal(12,2), F double, S string, N string, B boolean, DT date"
TYPES = {"I": parse_type("INTEGER"), "L": parse_type("BIGINT"), "D": parse_type("DECIMAL(12,2)"),
         "F": parse_type("DOUBLE"), "S": parse_type("VARCHAR(10)"), "N": parse_type("VARCHAR(10)"),
         "B": parse_type("BOOLEAN")}
TRUE_ROW = {"I": 5, "L": 7, "D": Decimal("1.25"), "F": 2.5, "S": "abc", "N": "12", "B": True, "DT": date(2020, 1, 2)}
FALSE_ROW = {**TRUE_ROW, "B": False}
NULL_ROW = {name: None for name in TRUE_ROW}

WIDENED = {  # expression: (where B is TRUE, where B is FALSE)
    "if(B, 1, 2.5)": (Decimal("1.0"), Decimal("2.5")),
    "if(B, I, D)": (Decimal("5.00"), Decimal("1.25")),
    "if(B, L, 2.5)": (Decimal("7.0"), Decimal("2.5")),
    "if(B, I, F)": (5.0, 2.5),
    "if(B, 1, 'a')": (1, FAILED),
    "if(B, N, 1)": (12, 1),
    "if(B, 1.5, S)": (1.5, FAILED),
    "if(B, D, N)": (1.25, 12.0),
    "if(B, B, 'true')": (True, True),
    "if(B, DT, '2020-01-03')": (date(2020, 1, 2), date(2020, 1, 3)),
    "CASE WHEN B THEN 1 ELSE 'a' END": (1, FAILED),
    "CASE WHEN B THEN 1 ELSE 2.50 END": (Decimal("1.00"), Decimal("2.50")),
    "CASE WHEN B THEN 1 WHEN NOT B THEN 2.5 ELSE 'x' END": (1.0, 2.5),  # left to right: DECIMAL, then DOUBLE
    "CASE WHEN B THEN 'x' WHEN NOT B THEN 1 ELSE 2.5 END": (FAILED, Decimal("1.0")),  # BIGINT, then DECIMAL
    "CASE I WHEN 5 THEN 2.5 ELSE 1 END": (Decimal("2.5"), Decimal("2.5")),
    "nvl2(S, 1, 2.5)": (Decimal("1.0"), Decimal("1.0")),
    "nvl2(S, I, F)": (5.0, 5.0),
    "coalesce(I, 2.5)": (Decimal("5.0"), Decimal("5.0")),
    "ifnull(I, D)": (Decimal("5.00"), Decimal("5.00")),
    "coalesce(NULL, 1, 'a')": (1, 1),
    "cast(if(B, 1, 2.5) AS STRING)": ("1.0", "2.5"),
    "if(B, CAST(1 AS DECIMAL(30,0)), CAST(1 AS DECIMAL(30,20)))": (Decimal("1.00000000"), Decimal("1.00000000")),
    "if(B, 1, 2.5) / 3": (Decimal("0.333333"), Decimal("0.833333")),
    # the property test's find: ceil of a BIGINT (NULL here) is a BIGINT, so the text beside it is cast
    "CASE WHEN B THEN ceil(abs(CAST(NULL AS BIGINT))) ELSE S END": (None, FAILED),
    "if(B, floor(F), N)": (2, 12),
    "if(B, round(D, 1), 2)": (Decimal("1.3"), Decimal("2.0")),
}


@pytest.mark.parametrize(("sql", "values"), list(WIDENED.items()))
def test_a_conditional_takes_its_value_as_the_wider_type_of_its_branches(sql: str, values: tuple[Any, Any]) -> None:
    got = (reference(sql, TRUE_ROW, TYPES), reference(sql, FALSE_ROW, TYPES))
    assert all(same(g, v) for g, v in zip(got, values, strict=True)), f"{sql}: {got!r}, not {values!r}"


@pytest.mark.slow
def test_branch_types_equal_spark(spark: Any) -> None:
    typed = [sql for sql in WIDENED if "DT" not in sql]  # DT has no type here: where it is NULL, none is known
    assert mismatches(spark, SCHEMA, [TRUE_ROW, FALSE_ROW, NULL_ROW], typed, TYPES) == []
    assert mismatches(spark, SCHEMA, [TRUE_ROW, FALSE_ROW], [sql for sql in WIDENED if sql not in typed], TYPES) == []
