"""`mapwright import` of a SQLite file brings every UNIQUE constraint, inline or table-level, as a unique index.

SQLite keeps an inline `email varchar(80) unique` only as an automatic index (`sqlite_autoindex_...`), which
SQLAlchemy's inspector leaves out: it came in as nothing, and DK009 could not see that the key is unique.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engine import cli

SCHEMA = """
CREATE TABLE customer (
    id integer PRIMARY KEY,
    email varchar(80) unique,
    code text CONSTRAINT uq_code UNIQUE,
    a int, b int,
    CONSTRAINT uq_ab UNIQUE (a, b),
    UNIQUE (b, a)
);
CREATE INDEX "UQ_customer_email" ON customer (a);
CREATE UNIQUE INDEX ix_b ON customer (b);
CREATE TABLE tag (name text NOT NULL PRIMARY KEY, label text UNIQUE);
"""


def test_inline_and_table_level_unique_constraints_come_in_once_each(tmp_path: Path) -> None:
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(SCHEMA)
    conn.close()
    out = tmp_path / "m.json"
    assert cli.main(["import", f"sqlite:///{db}", "--server", "shop", "--out", str(out)]) == 0
    tables = {t["name"]: t for t in json.loads(out.read_text())["tables"]}
    customer = {u["name"]: u["columns"] for u in tables["customer"]["unique_indexes"]}
    assert customer == {
        "UQ_customer_email_2": ["email"],  # generated; "UQ_customer_email" is another index's name
        "uq_code": ["code"],  # an inline constraint's own name
        "uq_ab": ["a", "b"],
        "UQ_customer_b_a": ["b", "a"],
        "ix_b": ["b"],
    }
    assert len(tables["customer"]["unique_indexes"]) == 5  # none twice
    assert tables["tag"]["unique_indexes"] == [{"name": "UQ_tag_label", "columns": ["label"]}]  # not the key's
