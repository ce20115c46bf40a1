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


def test_the_evaluators_public_names_are_importable_from_engine_sql() -> None:
    from engine.sql import evaluate

    for name in ("Evaluator", "evaluate_sql", "parse_sql", "predicate_holds", "rewritten", "_HANDLERS"):
        assert hasattr(evaluate, name), name
    assert evaluate.evaluate_sql("if(B, 1, 2) + length(S)", {"B": True, "S": "ab"}) == 3
