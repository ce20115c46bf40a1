"""`export --to ddl` of a hostile model: executed in SQLite and PostgreSQL, it makes exactly the model's tables.

Names with quotes, brackets, backticks and newlines; defaults that try to end the statement; a model name
that tries to leave its comment. Also: each target server's DDL is in its own DBMS's dialect.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.ddl import DdlError, model_ddl
from engine.model import Model

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"

HOSTILE_TABLES = ['users"; DROP TABLE users; --', "new\nline); DROP TABLE users; --", "plain", "brack]`et",
                  "per%cent %s %%"]  # PostgreSQL's and MySQL's DDL had doubled every %
INJECTED = "'x'); DROP TABLE users; CREATE TABLE pwned (x int); --"


def hostile_model(dbms: str) -> dict[str, Any]:
    source_cols = [{"name": "ID", "type": "INTEGER", "nullable": False}]
    target_cols = [
        {"name": "ID", "type": "INTEGER", "nullable": False},
        {"name": 'na"me\n); DROP TABLE users; --', "type": "VARCHAR(40)", "default": INJECTED},
        {"name": "n2", "type": "VARCHAR(40)", "default": "1; CREATE TABLE pwned (x int)"},
        {"name": "n3", "type": "VARCHAR(40)", "default": "'it''s''); DROP TABLE users; --'"},  # one literal: kept
        {"name": "n4", "type": "INTEGER", "default": "(SELECT 1)"},
    ]
    return {
        "format": "mapwright/1", "name": "evil\nDROP TABLE users; --",
        "servers": [{"id": "s", "dbms": "postgresql"}, {"id": "t", "dbms": dbms}],
        "tables": [{"server": "s", "name": "SRC", "columns": source_cols, "primary_key": ["ID"]}] + [
            {"server": "t", "name": name, "columns": target_cols, "primary_key": ["ID"],
             "unique_indexes": [{"name": f"ux{i}\"; DROP TABLE users; --", "columns": ["n3"]}]}
            for i, name in enumerate(HOSTILE_TABLES)],
        "mappings": [{"id": f"m{i}", "source": "s.SRC", "target": f"t.{name}", "columns": {"ID": "ID"}}
                     for i, name in enumerate(HOSTILE_TABLES)],
    }


def export(tmp_path: Path, dbms: str, *extra: str) -> str:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile_model(dbms)))
    out = tmp_path / "hostile.sql"
    refused = subprocess.run([MAPWRIGHT, "export", str(path), "--to", "ddl", "--out", str(out), *extra],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "TB003" in refused.stderr  # errors: refused unless forced
    forced = subprocess.run([MAPWRIGHT, "export", str(path), "--to", "ddl", "--out", str(out), "--force", *extra],
                            capture_output=True, text=True, timeout=120)
    assert forced.returncode == 0, forced.stderr
    ddl = out.read_text()
    assert "pwned" not in ddl  # the injected defaults are left out, and not quoted in the comments either
    assert ddl.count("CREATE TABLE") == len(HOSTILE_TABLES)
    assert ddl.count("left out") == 3 * len(HOSTILE_TABLES)
    return ddl


def test_hostile_ddl_in_sqlite_makes_exactly_the_models_tables(tmp_path: Path) -> None:
    ddl = export(tmp_path, "sqlite")
    db = tmp_path / "target.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE users (id INTEGER)")
        conn.executescript(ddl)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = [r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", ("plain",))]
        defaults = {r[1]: r[4] for r in conn.execute("SELECT * FROM pragma_table_info(?)", ("plain",))}
    assert tables == {"users", *HOSTILE_TABLES}
    assert columns == ["ID", 'na"me\n); DROP TABLE users; --', "n2", "n3", "n4"]
    assert defaults == {"ID": None, 'na"me\n); DROP TABLE users; --': None, "n2": None,
                        "n3": "'it''s''); DROP TABLE users; --'", "n4": None}


def test_hostile_ddl_in_postgresql_makes_exactly_the_models_tables(pg_server: Any, tmp_path: Path) -> None:
    ddl = export(tmp_path, "postgresql")
    pg_server.create_database("hostile_ddl")
    pg_server.psql("CREATE TABLE users (id integer)", "hostile_ddl")
    pg_server.psql(ddl, "hostile_ddl")
    listed = pg_server.psql("SELECT json_agg(tablename) FROM pg_tables WHERE schemaname = 'public'", "hostile_ddl")
    assert set(json.loads(listed)) == {"users", *HOSTILE_TABLES}
    default = pg_server.psql("SELECT column_default FROM information_schema.columns "
                             "WHERE table_name = 'plain' AND column_name = 'n3'", "hostile_ddl")
    assert default.strip() == "'it''s''); DROP TABLE users; --'::character varying"


def test_each_target_server_gets_its_own_dialect_unless_one_is_given() -> None:
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(20)"},
            {"name": "AT", "type": "TIMESTAMP", "default": "CURRENT_TIMESTAMP"},
            {"name": "DOC", "type": "CLOB"}]
    servers = ["oracle", "db2", "postgresql", "mssql"]
    model = Model.model_validate({
        "format": "mapwright/1", "name": "dialects",
        "servers": [{"id": "src", "dbms": "postgresql"}] + [{"id": d, "dbms": d} for d in servers],
        "tables": [{"server": s, "name": "T", "columns": cols, "primary_key": ["ID"]} for s in ["src", *servers]],
        "mappings": [{"id": f"to_{d}", "source": "src.T", "target": f"{d}.T", "columns": {"ID": "ID"}}
                     for d in servers]})
    ddl = model_ddl(model)
    sections = {part.split(")", 1)[0]: part for part in ddl.split("-- server ")[1:]}
    assert sorted(sections) == ["db2 (db2", "mssql (mssql", "oracle (oracle", "postgresql (postgresql"]
    assert '"NAME" VARCHAR2(20 CHAR)' in sections["oracle (oracle"] and '"DOC" CLOB' in sections["oracle (oracle"]
    assert "standard SQL" in sections["db2 (db2"] and '"DOC" CLOB' in sections["db2 (db2"]
    assert '"AT" TIMESTAMP DEFAULT CURRENT_TIMESTAMP' in sections["db2 (db2"]
    assert '"DOC" TEXT' in sections["postgresql (postgresql"]
    assert "[AT] DATETIME2 NULL DEFAULT GETDATE()" in sections["mssql (mssql"]
    forced = model_ddl(model, "sqlite")
    assert forced.count(": sqlite\n") == 4 and "VARCHAR2" not in forced


@pytest.mark.parametrize("name", ["a\rb", "a\u2028b", "a\x85b", "a\nb"])
def test_a_name_in_a_comment_cannot_end_the_comment(name: str) -> None:
    from engine.ddl import comment

    text = comment(f"{name} DROP TABLE users;")
    assert text.count("\n") == 1 and text.endswith("\n") and text.startswith("-- ")
    assert all(ch.isprintable() for ch in text[:-1])


def test_export_server_option_is_for_ddl_and_an_unmapped_model_says_how_to_get_tables(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    columns = [{"name": "A", "type": "INTEGER"}]
    model.write_text(json.dumps({"format": "mapwright/1", "servers": [{"id": "s", "dbms": "sqlite"}],
                                 "tables": [{"server": "s", "name": "T", "columns": columns}]}))
    out = tmp_path / "out"
    wrong = subprocess.run([MAPWRIGHT, "export", str(model), "--to", "json", "--server", "s", "--out", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "--server is for --to ddl" in wrong.stderr
    empty = subprocess.run([MAPWRIGHT, "export", str(model), "--to", "ddl", "--out", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert empty.returncode == 0 and "--server ID writes every table" in empty.stderr
    assert "CREATE TABLE" not in out.read_text()
    one = subprocess.run([MAPWRIGHT, "export", str(model), "--to", "ddl", "--server", "s", "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 0 and one.stderr == "" and out.read_text().count('CREATE TABLE "T"') == 1
    unknown = subprocess.run([MAPWRIGHT, "export", str(model), "--to", "ddl", "--server", "x", "--out", str(out)],
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and "no server 'x' in the model (servers: s)" in unknown.stderr


def _one_table(columns: list[dict[str, Any]], dbms: str = "postgresql") -> Model:
    cols = [{"name": "ID", "type": "INTEGER", "nullable": False}, *columns]
    return Model.model_validate({
        "format": "mapwright/1", "name": "limits",
        "servers": [{"id": "s", "dbms": "postgresql"}, {"id": "t", "dbms": dbms}],
        "tables": [{"server": s, "name": "T", "columns": cols, "primary_key": ["ID"]} for s in ("s", "t")],
        "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID"}}]})


@pytest.mark.parametrize(("column", "says"), [
    ({"name": "x" * 62 + "é", "type": "INTEGER"}, "is longer than postgresql's 63 bytes"),  # 64 bytes, 63 characters
    ({"name": "NOTE", "type": "VARCHAR(20000000)"}, "t.T.NOTE: VARCHAR(20000000) is longer than PostgreSQL's 10485760"),
    ({"name": "N", "type": "DECIMAL(1001,0)"}, "t.T.N: DECIMAL(1001,0) has more digits than PostgreSQL's 1000"),
])
def test_ddl_a_postgresql_server_would_refuse_or_cut_is_not_written(column: dict[str, Any], says: str) -> None:
    """PostgreSQL cuts a name to 63 bytes (two long names could become one column: `specified more than
    once`) and refuses a VARCHAR over 10,485,760 and a NUMERIC over 1,000 digits: the DDL export says so
    instead of writing DDL the server refuses (a hostile probe's finds)."""
    with pytest.raises(DdlError, match=re.escape(says)):
        model_ddl(_one_table([column]))
    ddl = model_ddl(_one_table([column]), "sqlite")  # SQLite takes them all
    assert "CREATE TABLE" in ddl


def test_names_at_postgresql_s_limit_are_written() -> None:
    widest = [{"name": "x" * 63, "type": "VARCHAR(10485760)"}, {"name": "D", "type": "DECIMAL(1000,2)"}]
    ddl = model_ddl(_one_table(widest))
    assert f'"{"x" * 63}" VARCHAR(10485760)' in ddl and '"D" DECIMAL(1000, 2)' in ddl
