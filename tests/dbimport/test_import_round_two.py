"""`mapwright import` changes no column without a note, and echoes no id raw (issue 35, round two):

- a PostgreSQL domain over varchar(200) had come in as TEXT with a note that the type "has no length";
- `int DEFAULT nextval('other_table_seq')` had become SERIAL: only a column that owns its sequence is one;
- SQLite FTS5's shadow tables (ft_data, ft_idx, ft_content, ft_docsize, ft_config) had come in as tables;
- a server id holding U+202E had been taken and printed raw.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine import cli
from engine.dbimport import ImportFailure, parse_source, read_database

PG_TABLES = """
CREATE DOMAIN short_name AS varchar(200);
CREATE DOMAIN price AS numeric(10,2) CHECK (VALUE >= 0);
CREATE DOMAIN nested AS short_name;
CREATE SEQUENCE other_table_seq;
CREATE TABLE item (id serial PRIMARY KEY, label short_name, cost price, alias nested,
                   borrowed int DEFAULT nextval('other_table_seq'), big bigserial);
"""


def test_postgresql_domains_keep_their_size_and_only_an_owned_sequence_is_serial(pg_server: Any) -> None:
    url = pg_server.create_database("import_round_two")
    pg_server.psql(PG_TABLES, "import_round_two")
    imported = read_database(parse_source(url), "pg")
    (item,) = imported.tables
    assert {c.name: c.type for c in item.columns} == {"id": "SERIAL", "label": "VARCHAR(200)", "cost": "NUMERIC(10,2)",
                                                      "alias": "VARCHAR(200)", "borrowed": "INTEGER",
                                                      "big": "SERIAL8"}
    assert item.column("borrowed").default is None  # type: ignore[union-attr]
    notes = {n.column: n.message for n in imported.notes}
    assert notes["label"] == ("short_name is a domain (its checks are not kept) over VARCHAR(200); "
                              "imported as VARCHAR(200)")
    assert notes["cost"].startswith("price is a domain") and "no length" not in " ".join(notes.values())
    assert notes["alias"].startswith("nested is a domain") and notes["alias"].endswith("imported as VARCHAR(200)")
    assert notes["borrowed"] == ("default nextval('other_table_seq'::regclass) takes numbers from a sequence the "
                                 "column does not own; imported as INTEGER without that default")
    assert sorted(notes) == ["alias", "borrowed", "cost", "label"]  # the serial columns come in unremarked


def test_sqlite_fts5_shadow_tables_are_skipped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "search.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("CREATE VIRTUAL TABLE ft USING fts5(title, body);"
                         "CREATE TABLE ft_data_log (id INTEGER PRIMARY KEY, at TEXT);")
    imported = read_database(parse_source(f"sqlite:///{path}"), "s")
    assert sorted(t.name for t in imported.tables) == ["ft", "ft_data_log"]
    skipped = {n.table: n.message for n in imported.notes if n.column is None}
    assert skipped == {f"s.ft_{part}": "a shadow table, where virtual table ft keeps its data; not imported"
                       for part in ("config", "content", "data", "docsize", "idx")}


@pytest.mark.parametrize("server", ["hq\u202eqh", "hq\x1b[2J", "a\u2028b"])
def test_a_server_id_with_a_control_or_bidirectional_character_is_refused_escaped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], server: str) -> None:
    path = tmp_path / "one.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    with pytest.raises(ImportFailure):
        read_database(parse_source(f"sqlite:///{path}"), server)
    out = tmp_path / "m.json"
    assert cli.main(["import", f"sqlite:///{path}", "--server", server, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.isascii() and "a server name cannot hold" in err
    assert not out.exists()
