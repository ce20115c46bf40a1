"""The SQL home is small modules, one concept each (STYLE.md: a file past ~600 lines is two concepts), and
the evaluator's public names stay where other code imports them from."""

from __future__ import annotations

from pathlib import Path

import engine.sql

LIMIT = 600


def test_every_sql_module_is_under_the_limit() -> None:
    home = Path(engine.sql.__file__).parent
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in home.glob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines > LIMIT} == {}


def test_the_evaluators_public_names_are_importable_where_they_were() -> None:
    from engine.run import sqleval
    from engine.sql import evaluate

    for name in ("Evaluator", "evaluate_sql", "parse_sql", "predicate_holds", "rewritten", "_HANDLERS"):
        assert hasattr(evaluate, name), name
    assert sqleval.evaluate_sql is evaluate.evaluate_sql
    assert evaluate.evaluate_sql("if(B, 1, 2) + length(S)", {"B": True, "S": "ab"}) == 3
