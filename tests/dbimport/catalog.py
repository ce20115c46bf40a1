"""A database's catalog, read through SQLAlchemy's inspector, in a form two schemas can be compared in.

Only what the model can carry is compared: columns (name, type as the database spells it, nullability,
default), primary keys, and unique column sets (a unique constraint and a unique index are one thing in
the model, so both are read, by name). Defaults are compared as the catalog prints them, with the schema
name taken out (a sequence's qualified name) and, for SQLite, one pair of outer parentheses (SQLAlchemy
writes `DEFAULT (2.5)` where the original said `DEFAULT 2.5`; SQLite keeps the text as written).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa


def _default(text: str | None, schema: str | None) -> str | None:
    if text is None:
        return None
    if schema:
        text = text.replace(f"{schema}.", "")
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return text


def catalog(url: str, schema: str | None = None) -> dict[str, Any]:
    engine = sa.create_engine(url)
    try:
        inspector = sa.inspect(engine)
        out: dict[str, Any] = {}
        for table in sorted(inspector.get_table_names(schema=schema)):
            columns = [(c["name"], str(c["type"].compile(dialect=engine.dialect)), c["nullable"],
                        _default(c.get("default"), schema)) for c in inspector.get_columns(table, schema=schema)]
            uniques = {u["name"]: tuple(u["column_names"]) for u in inspector.get_unique_constraints(table, schema)}
            uniques |= {i["name"]: tuple(i["column_names"]) for i in inspector.get_indexes(table, schema)
                        if i["unique"]}
            out[table] = {"columns": columns,
                          "primary_key": inspector.get_pk_constraint(table, schema)["constrained_columns"],
                          "unique": uniques}
        return out
    finally:
        engine.dispose()
