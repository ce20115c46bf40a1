"""A SQLite file comes in with its foreign keys (inline ones with their ON DELETE too), indexes, check
constraints and generated columns with their expressions; a view is said to be one (issue 36).

SQLAlchemy's inspector misreads two of these in SQLite: a generated column's expression (read to the last
parenthesis of the whole CREATE TABLE) and an inline REFERENCES clause's actions (left out).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.dbimport import ImportFailure, reflect_tables
from engine.model.schema import Check, ForeignKey, Generated, Index

SCHEMA = """
CREATE TABLE customer (id integer PRIMARY KEY, name varchar(40) NOT NULL CHECK (length(name) > 1),
    age int CONSTRAINT ck_age CHECK (age >= 0), up text GENERATED ALWAYS AS (upper(name)) VIRTUAL,
    twice int AS (age * 2) STORED, CONSTRAINT ck_both CHECK (age < 200 OR name <> 'x'));
CREATE TABLE orders (no integer PRIMARY KEY, customer_id int REFERENCES customer (id) ON DELETE CASCADE,
    other int, CONSTRAINT fk_other FOREIGN KEY (other) REFERENCES customer (id) ON UPDATE SET NULL);
CREATE INDEX ix_orders_customer ON orders (customer_id);
CREATE VIEW big AS SELECT * FROM orders WHERE no > 100;
"""


def test_a_sqlite_file_comes_in_with_keys_indexes_checks_and_generated_columns(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
    db.close()
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            imported = reflect_tables(connection, "s")
            with pytest.raises(ImportFailure, match=r"^big is a view, not a table \(views are not imported\)$"):
                reflect_tables(connection, "s", tables=["big"])
    finally:
        engine.dispose()
    tables = {t.name: t for t in imported.tables}
    customer, orders = tables["customer"], tables["orders"]
    columns = {c.name: c for c in customer.columns}
    assert columns["up"].generated == Generated(expression="UPPER(name)", stored=False)
    assert columns["twice"].generated == Generated(expression="age * 2", stored=True)
    assert sorted(customer.checks, key=lambda c: c.sql) == [
        Check(name="ck_both", sql="age < 200 OR name <> 'x'"), Check(name="ck_age", sql="age >= 0"),
        Check(sql="length(name) > 1")]
    assert sorted(orders.foreign_keys, key=lambda f: f.columns) == [
        ForeignKey(columns=["customer_id"], references="customer", referenced_columns=["id"], on_delete="cascade"),
        ForeignKey(name="fk_other", columns=["other"], references="customer", referenced_columns=["id"],
                   on_update="set_null")]
    assert orders.indexes == [Index(name="ix_orders_customer", columns=["customer_id"])]
    assert [str(n) for n in imported.notes] == [
        "the default schema: 1 view(s) not imported (views are not tables): big"]
