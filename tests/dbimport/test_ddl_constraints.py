"""DDL of what the model holds beyond columns (issue 36): foreign keys in an order that resolves them (a
cycle by ALTER TABLE), non-unique indexes, checks, enumerations, comments, identity and generated columns,
schemas, partitions, and the types UUID, TIMESTAMPTZ and ARRAY; user SQL in a check, generated column or
partition bound is parsed and refused unless it is exactly one expression.

Before: `export --to ddl` wrote each table's columns, key and unique indexes only, in model order.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.ddl import model_ddl
from engine.model import Model

HOSTILE = "qty > 0); DROP TABLE x; --"


def shop(dbms: str = "postgresql", schema: str | None = None) -> Model:
    """CHILD (listed first) references PARENT, and PARENT.FAV references CHILD back: a cycle; ORDERS is
    partitioned by REGION with a SERIAL key its partitions share."""
    child: dict[str, Any] = {
        "server": "s", "name": "CHILD", "columns": [
            {"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "PARENT_ID", "type": "INTEGER"},
            {"name": "PRICE", "type": "DECIMAL(10,2)"}, {"name": "QTY", "type": "INTEGER"},
            {"name": "TOTAL", "type": "DECIMAL(12,2)", "generated": {"expression": "price * qty"}},
            {"name": "U", "type": "UUID"}, {"name": "AT", "type": "TIMESTAMPTZ"},
            {"name": "TAGS", "type": "ARRAY(INTEGER)"}],
        "primary_key": ["ID"],
        "checks": [{"name": "positive", "sql": "price > 0 AND qty >= 1"}, {"sql": "qty < 100"},
                   {"name": "smuggler", "sql": HOSTILE}],
        "indexes": [{"name": "child_parent", "columns": ["PARENT_ID"]}],
        "foreign_keys": [{"name": "child_parent_fk", "columns": ["PARENT_ID"], "references": "PARENT",
                          "referenced_columns": ["ID"], "on_delete": "cascade"}]}
    if schema:
        child["schema"] = schema
    parent = {
        "server": "s", "name": "PARENT", "comment": "parent's rows", "columns": [
            {"name": "ID", "type": "INTEGER", "nullable": False,
             "identity": {"always": True, "start": 10, "increment": 5}},
            {"name": "CODE", "type": "VARCHAR(10)", "enum": {"name": "code_kind", "values": ["a", "b'c"]},
             "comment": "the kind"},
            {"name": "FAV", "type": "INTEGER"},
            {"name": "BAD", "type": "INTEGER", "generated": {"expression": "(SELECT 1); DROP TABLE x"}}],
        "primary_key": ["ID"],
        "foreign_keys": [{"columns": ["FAV"], "references": "CHILD", "referenced_columns": ["ID"],
                          "on_delete": "set_null"}]}
    orders = {
        "server": "s", "name": "ORDERS", "columns": [
            {"name": "ID", "type": "SERIAL", "nullable": False},
            {"name": "REGION", "type": "VARCHAR(5)", "nullable": False}],
        "primary_key": ["ID", "REGION"],
        "partitioning": {"method": "list", "columns": ["REGION"], "partitions": [
            {"name": "ORDERS_EU", "bound": "FOR VALUES IN ('eu')"}, {"name": "ORDERS_REST", "bound": "DEFAULT"},
            {"name": "ORDERS_BAD", "bound": "FOR VALUES IN ('x')); DROP TABLE x; --"}]}}
    return Model.model_validate({"format": "mapwright/1", "name": "shop", "servers": [{"id": "s", "dbms": dbms}],
                                 "tables": [child, parent, orders]})


def test_sqlite_ddl_has_foreign_keys_indexes_checks_and_generated_columns(tmp_path: Path) -> None:
    ddl = model_ddl(shop("sqlite"), "sqlite", server="s")
    assert all("DROP" not in line for line in ddl.splitlines() if not line.startswith("--")), ddl
    assert "-- check smuggler of table CHILD left out: the condition is not one SQL expression" in ddl
    assert "-- generated column BAD written as a plain column: the expression is 2 SQL statements" in ddl
    assert "-- column TAGS (ARRAY(INTEGER)) written as text: sqlite has no arrays" in ddl
    assert "-- table ORDERS written as one table: the model partitions it by list of REGION" in ddl
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(ddl)
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        inspector = sa.inspect(engine)
        fks = inspector.get_foreign_keys("CHILD")
        assert [(f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"], f["options"])
                for f in fks] == [("child_parent_fk", ["PARENT_ID"], "PARENT", ["ID"], {"ondelete": "CASCADE"})]
        assert [(f["referred_table"], f["options"]) for f in inspector.get_foreign_keys("PARENT")] == [
            ("CHILD", {"ondelete": "SET NULL"})]
        assert [(i["name"], i["column_names"], i["unique"]) for i in inspector.get_indexes("CHILD")] == [
            ("child_parent", ["PARENT_ID"], 0)]
        assert sorted(c["sqltext"] for c in inspector.get_check_constraints("CHILD")) == [
            '"PRICE" > 0 AND "QTY" >= 1', '"QTY" < 100']
        with engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys = ON")
            conn.exec_driver_sql("""INSERT INTO "PARENT" ("ID", "CODE") VALUES (1, 'b''c')""")
            conn.exec_driver_sql("""INSERT INTO "CHILD" ("ID", "PARENT_ID", "PRICE", "QTY") VALUES (7, 1, 2.5, 4)""")
            assert conn.exec_driver_sql('SELECT "TOTAL" FROM "CHILD"').scalar() == 10
            for bad in ("""INSERT INTO "PARENT" ("ID", "CODE") VALUES (2, 'z')""",  # not one of the enum's values
                        """INSERT INTO "CHILD" ("ID", "PRICE", "QTY") VALUES (8, 0, 1)""",  # check positive
                        """INSERT INTO "CHILD" ("ID", "PARENT_ID") VALUES (9, 99)"""):  # no parent 99
                with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():
                    conn.exec_driver_sql(bad)
            conn.exec_driver_sql('DELETE FROM "PARENT"')
            assert conn.exec_driver_sql('SELECT count(*) FROM "CHILD"').scalar() == 0  # ON DELETE CASCADE
    finally:
        engine.dispose()


@pytest.mark.parametrize(("dialect", "written", "noted"), [
    ("postgresql", ['"U" UUID', '"AT" TIMESTAMP WITH TIME ZONE', '"TAGS" INTEGER[]'], []),
    ("mssql", ["[U] UNIQUEIDENTIFIER", "[AT] DATETIMEOFFSET", "[TAGS] NVARCHAR(max)",
               "[ID] INTEGER NOT NULL IDENTITY(10,5)",
               "[TOTAL] AS ([PRICE] * [QTY]) PERSISTED"], ["TAGS (ARRAY(INTEGER)) written as text"]),
    ("oracle", ['"U" CHAR(36)', '"AT" TIMESTAMP WITH TIME ZONE', '"TAGS" CLOB',
                '"ID" INTEGER GENERATED ALWAYS AS IDENTITY (INCREMENT BY 5 START WITH 10)'],
     ["generated column TOTAL written VIRTUAL"]),
    ("mysql", ["`U` CHAR(36)", "`AT` DATETIME(6)", "`TAGS` TEXT", "CREATE SCHEMA IF NOT EXISTS `shop`;"],
     ["AT (TIMESTAMPTZ) written as DATETIME(6), which holds no time zone"]),
])
def test_types_identity_and_generated_columns_per_dialect(dialect: str, written: list[str], noted: list[str]) -> None:
    ddl = model_ddl(shop(schema="shop"), dialect, server="s")
    for text in written:
        assert text in ddl, (text, ddl)
    for text in noted:
        assert f"-- column {text}" in ddl or f"-- {text}" in ddl, (text, ddl)


def test_oracle_has_no_on_update_and_the_tables_come_parents_first() -> None:
    model = shop()
    model.tables[0].foreign_keys[0].on_update = "cascade"
    ddl = model_ddl(model, "oracle", server="s")
    assert "-- foreign key child_parent_fk: ON UPDATE CASCADE written as NO ACTION, which oracle has instead" in ddl
    assert "ON UPDATE" not in ddl.replace("-- foreign key child_parent_fk: ON UPDATE", "")
    # the cycle: both tables, then both foreign keys by ALTER TABLE
    assert ddl.index('CREATE TABLE "CHILD"') < ddl.index("ALTER TABLE") and ddl.count("ALTER TABLE") == 2


def psql_json(pg: Any, sql: str, db: str) -> Any:
    return json.loads(pg.psql(sql, db))


def test_postgresql_ddl_builds_the_catalog_the_model_says(pg_server: Any) -> None:
    """Run on a fresh database: enum type, schema, partitions of a shared serial key, generated and identity
    columns, checks, index, comments and foreign keys (a cycle) are all in the catalog."""
    ddl = model_ddl(shop(schema="shop"), "postgresql", server="s")
    assert "-- partition ORDERS_BAD of table ORDERS left out: the bound is not one SQL expression" in ddl
    db = "ddl_constraints"
    pg_server.create_database(db)
    pg_server.psql(ddl, db)
    parts = psql_json(pg_server, "SELECT json_agg(json_build_array(c.relname, pg_get_expr(c.relpartbound, c.oid)) "
                      "ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                      "WHERE i.inhparent = '\"ORDERS\"'::regclass", db)
    assert parts == [["ORDERS_EU", "FOR VALUES IN ('eu')"], ["ORDERS_REST", "DEFAULT"]]
    assert pg_server.psql("SELECT pg_get_partkeydef('\"ORDERS\"'::regclass)", db).strip() == 'LIST ("REGION")'
    pg_server.psql("""INSERT INTO "ORDERS" ("REGION") VALUES ('eu'), ('us'), ('eu')""", db)
    rows = psql_json(pg_server, """SELECT json_agg(json_build_array("ID", tableoid::regclass::text) ORDER BY "ID")
                     FROM "ORDERS" """, db)
    assert rows == [[1, '"ORDERS_EU"'], [2, '"ORDERS_REST"'], [3, '"ORDERS_EU"']]  # one sequence for all
    assert psql_json(pg_server, "SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e "
                     "JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typname = 'code_kind'", db) == ["a", "b'c"]
    columns = psql_json(pg_server, """SELECT json_object_agg(column_name, json_build_array(data_type, is_generated,
                        generation_expression, is_identity, identity_generation, identity_start, identity_increment))
                        FROM information_schema.columns WHERE column_name IN ('TOTAL', 'ID', 'CODE', 'U', 'AT', 'TAGS')
                        AND table_name IN ('CHILD', 'PARENT')
                        AND (table_name = 'PARENT') = (column_name IN ('ID', 'CODE'))""",
                        db)
    assert columns == {
        "ID": ["integer", "NEVER", None, "YES", "ALWAYS", "10", "5"],
        "CODE": ["USER-DEFINED", "NEVER", None, "NO", None, None, None],
        "TOTAL": ["numeric", "ALWAYS", '("PRICE" * ("QTY")::numeric)', "NO", None, None, None],
        "U": ["uuid", "NEVER", None, "NO", None, None, None],
        "AT": ["timestamp with time zone", "NEVER", None, "NO", None, None, None],
        "TAGS": ["ARRAY", "NEVER", None, "NO", None, None, None]}
    constraints = psql_json(pg_server, "SELECT json_agg(json_build_array(conrelid::regclass::text, contype, "
                            "pg_get_constraintdef(oid)) ORDER BY conrelid::regclass::text, contype, conname) "
                            "FROM pg_constraint WHERE contype IN ('c', 'f') AND conrelid <> 0", db)
    assert constraints == [
        ['"PARENT"', "f", 'FOREIGN KEY ("FAV") REFERENCES shop."CHILD"("ID") ON DELETE SET NULL'],
        ['shop."CHILD"', "c", 'CHECK (("QTY" < 100))'],
        ['shop."CHILD"', "c", 'CHECK ((("PRICE" > (0)::numeric) AND ("QTY" >= 1)))'],
        ['shop."CHILD"', "f", 'FOREIGN KEY ("PARENT_ID") REFERENCES "PARENT"("ID") ON DELETE CASCADE']]
    assert pg_server.psql("""SELECT indexdef FROM pg_indexes WHERE indexname = 'child_parent'""", db).strip() == (
        'CREATE INDEX child_parent ON shop."CHILD" USING btree ("PARENT_ID")')
    assert psql_json(pg_server, """SELECT json_build_array(obj_description('"PARENT"'::regclass, 'pg_class'),
                     col_description('"PARENT"'::regclass, 2))""", db) == ["parent's rows", "the kind"]
