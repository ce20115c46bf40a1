"""A default that validation refuses because its column cannot hold its value (TB003) is left out of the
DDL with its comment, as the README says: `INTEGER DEFAULT 99999999999999999999999` and `REAL DEFAULT 1e999`
had been written, and PostgreSQL then made the table and refused every insert."""

from __future__ import annotations

import json
from typing import Any

from builders import one_table

from engine.ddl import model_ddl
from engine.rules import validate

UNFIT = {"N": ("INTEGER", "99999999999999999999999"), "R": ("REAL", "1e999"), "D": ("DECIMAL(5,2)", "12345.5"),
         "OK": ("INTEGER", "7")}


def test_defaults_their_columns_cannot_hold_are_left_out_with_a_comment_and_postgresql_inserts(
        pg_server: Any) -> None:
    model = one_table("postgresql", UNFIT)
    assert sorted(f.location.column for f in validate(model) if f.code == "TB003") == ["D", "N", "R"]
    ddl = model_ddl(model, server="s")
    for column in ("N", "R", "D"):
        assert f"-- default of column {column} left out: its value does not fit" in ddl
    assert "99999999999999999999999" not in ddl.split("CREATE TABLE")[1] and "DEFAULT 7" in ddl
    pg_server.create_database("ddl_unfit_defaults")
    pg_server.psql(ddl, "ddl_unfit_defaults")
    pg_server.psql('INSERT INTO "T" ("ID") VALUES (1)', "ddl_unfit_defaults")
    row = json.loads(pg_server.psql('SELECT row_to_json(t) FROM "T" t', "ddl_unfit_defaults"))
    assert row == {"ID": 1, "N": None, "R": None, "D": None, "OK": 7}
    assert "left out" in model_ddl(model, "sqlite", server="s")  # and for another dialect alike
