"""MP006: a regular expression that may backtrack exponentially is a warning, and one that cannot is not.

A row that almost matches `^(a+)+$` takes Java's matcher (Spark's) and Python's (the reference's) time
exponential in its length; a validation warning names the part to rewrite before any run stalls on it.
"""

from __future__ import annotations

import pytest

from engine.rules import validate
from engine.sql.backtracking import backtracking_risk, pattern_literals
from tests.builders import col, mapping, model, server, table


@pytest.mark.parametrize(("pattern", "says"), [
    ("(a+)+", "nested quantifiers"), ("(a*)*", "nested quantifiers"), ("^([a-z]+)*@", "'[a-z]+'"),
    (r"(\w+\s?)*$", "nested quantifiers"), ("((ab)*)+", "'(ab)*'"), ("(?:x+x+)+y", "nested quantifiers"),
    ("(a|a)*", "begin with the same character ('a', 'a')"), ("(a|aa)+", "same character"),
    (r"(\d|\w)+", r"('\\d', '\\w')"), ("(?i)(x|[a-z])+", "same character"),
])
def test_what_can_backtrack_exponentially_is_named(pattern: str, says: str) -> None:
    risk = backtracking_risk(pattern)
    assert risk is not None and says in risk, risk


@pytest.mark.parametrize("pattern", [
    "(ab)+", "a+b+", "[a-z]+@[a-z]+", "(a|b)*", "(a|b)+c", "a{2,}", r"\d{3}-\d{4}", "(?>a+)+", "(a++)+",
    r"\Q(a+)+\E", "[(a+)+]", "(a?)+", "(.*a){10}", "(", "[a-z",
])
def test_what_cannot_is_not_reported(pattern: str) -> None:
    assert backtracking_risk(pattern) is None


def test_mp006_is_a_warning_at_the_where_clause_and_the_expression() -> None:
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    m = model([server("s"), server("t")], [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "NAME": {"method": "expression",
                                                               "sql": "regexp_replace(NAME, '(x+)*y', '')"}},
                       where="NAME RLIKE '^(a|ab)+$' AND NAME rlike '^(ab)+$'")])
    found = [(f.code, f.severity.value, f.location.column) for f in validate(m) if f.code == "MP006"]
    assert sorted(found, key=str) == [("MP006", "warning", "NAME"), ("MP006", "warning", None)]
    assert pattern_literals("regexp_replace(NAME, '(a+)+', '') || 'x'") == ["(a+)+"]
    assert pattern_literals("concat(NAME, ") == []
