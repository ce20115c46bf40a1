"""`\\b` and `\\B` in RLIKE and regexp_replace are Java 17's word boundaries (`engine.sql.patterns`): its word
characters are Unicode letters and decimal digits and `_` (not `½`, `Ⅻ`, `²`, which Python's `\\w` takes),
and a combining mark after a letter or digit, however many marks follow it; `\\w` stays ASCII's.

Not modelled (found here): Java's matcher walks UTF-16 units, so an empty match (`\\B`, `x*`) may fall
between the two halves of a character beyond U+FFFF, which Spark then writes as `?` (`regexp_replace('𝐀b',
'\\B', '|')` is `?|?|b` there); text has no such position in Python. `\\b` never matches there."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from engine.sql import parse_expression
from engine.sql.evaluate import evaluate_sql
from engine.sql.spark import checked_sql

MARK, MARK2 = "\u0301", "\u0302"
TEXTS = ["éb", "ab", "_b", "1b", "½b", "Ⅻb", "²b", f"e{MARK}b", f"_{MARK}b", f"-{MARK}b", f"a{MARK}{MARK2}b",
         f"a{MARK * 5}b", f"-{MARK * 3}b", "٣b", " b", "b", "\U0001d400b", "a-b c_d", f"{MARK}b", f"x{MARK}",
         "日本b", f"ab{MARK}", "ǅb", "ﬁb", "été à l'eau", "x\u200bb", "ß-ẞ", ""]
BEYOND_BMP = "\U0001d400b"  # a letter beyond U+FFFF: `\\b` only (see the module)
EXPRS = ["S RLIKE '\\\\bb'", "S RLIKE 'b\\\\b'", "regexp_replace(S, '\\\\b', '|')", "regexp_replace(S, '\\\\B', '|')",
         "regexp_replace(S, '\\\\b', '|', 2)", "regexp_replace(S, '\\\\b\\\\w', '<$0>')", "S RLIKE '^\\\\w+\\\\b'"]


@pytest.mark.parametrize(("text", "marked"), [
    ("éb", "|éb|"), ("½b", "½|b|"), (f"e{MARK}b", f"|e{MARK}b|"), (f"_{MARK}b", f"|_|{MARK}|b|"),
    (f"a{MARK * 5}b", f"|a{MARK * 5}b|"), ("a-b c_d", "|a|-|b| |c_d|"), ("日本b", "|日本b|"),
])
def test_word_boundaries_are_javas(text: str, marked: str) -> None:
    assert evaluate_sql("regexp_replace(S, '\\\\b', '|')", {"S": text}) == marked


def test_a_boundary_in_a_class_is_refused_as_java_refuses_it() -> None:
    assert parse_expression("S RLIKE '[\\\\b]'").problem is not None


@pytest.mark.slow
def test_word_boundaries_equal_spark(spark: Any) -> None:
    texts = [*TEXTS, BEYOND_BMP]
    df = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "RID int, S string")
    columns = [F.expr(checked_sql(sql)).alias(f"e{i}") for i, sql in enumerate(EXPRS)]
    got = df.select("RID", *columns).orderBy("RID").collect()
    for i, sql in enumerate(EXPRS):
        for text, row in zip(texts, got, strict=True):
            if text == BEYOND_BMP and "\\\\B" in sql:
                continue
            expected = evaluate_sql(sql, {"S": text})
            assert row[f"e{i}"] == expected, f"{sql} of {text!r}: Spark {row[f'e{i}']!r}, reference {expected!r}"
    with pytest.raises(Exception, match="(?i)escape|regex|pattern"):
        df.select(F.expr("S RLIKE '[\\\\b]'")).collect()
