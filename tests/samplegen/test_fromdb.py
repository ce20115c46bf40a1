"""`read_server_rows`: a server's rows read from a real SQLite file and a real PostgreSQL server, into a model
imported from them by `mapwright import`; typed as a run reads a snapshot, bounded, ordered, read-only."""

from __future__ import annotations

import re
import socket
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine import cli
from engine.authoring import (
    add_column,
    add_reverse,
    add_server,
    add_table,
    new_mapping,
    rename_table,
    replicate_table,
    set_keys,
)
from engine.model import load_model
from engine.model.schema import Model
from engine.samplegen.fromdb import SampleSourceError, make_read_only, read_server_rows

SECRET = "Sampl3-s3cret"
SHOP_SQL = """
CREATE TABLE customer (cust_no INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, balance DECIMAL(10,2),
                       joined TIMESTAMP);
INSERT INTO customer VALUES (3, 'Cy', 12.5, '2026-01-05 10:00:00'), (1, 'Ann', 0, '2026-01-04T09:30:00Z'),
                            (2, 'Bo', 7, '2026-01-01'), (4, 'Dee', NULL, NULL);
CREATE TABLE item (sku VARCHAR(8) PRIMARY KEY, qty INTEGER NOT NULL);
INSERT INTO item VALUES ('b-2', 5), ('a-1', 3);
CREATE TABLE odd (code TEXT PRIMARY KEY, label VARCHAR(5), qty INTEGER, price DECIMAL(6,2), at TIMESTAMP);
INSERT INTO odd VALUES (NULL, 'nul', 1, 1, NULL), ('k1', 'much too long', 1, 1, NULL),
                       ('k2', 'ok', 3000000000, 1, NULL), ('k3', 'ok', 'three', 1, NULL),
                       ('k4', 'ok', 4, 1.005, NULL), ('k5', 'ok', 5, 2, 'not a time'),
                       ('k6', 'fine', 6, 2.5, '2026-02-01 12:00:00');
CREATE TABLE dup (id INTEGER, name VARCHAR(10));
INSERT INTO dup VALUES (2, 'c'), (1, 'a'), (1, 'b'), (3, 'c');
"""
PG_SQL = """
CREATE TABLE customer (cust_no integer PRIMARY KEY, name varchar(20) NOT NULL, balance numeric(10,2),
                       joined timestamptz, born date, points bigint, active boolean, photo bytea);
INSERT INTO customer VALUES
  (30, 'Cy', 12.5, '2026-01-05 10:00:00+02', '1990-05-01', 9000000000, true, '\\x0102'),
  (10, 'Ann', 0.1, '2026-01-04 09:30:00+00', NULL, 1, false, NULL),
  (20, 'Bo', -3, NULL, '2000-02-29', NULL, NULL, '\\x');
CREATE TABLE "Orders" (order_no integer PRIMARY KEY, cust_no integer, note text, placed timestamp);
INSERT INTO "Orders" SELECT n, n % 3, 'order ' || n, timestamp '2026-01-05 08:00' + n * interval '1 minute'
  FROM generate_series(1, 25) AS n;
CREATE TABLE "Item" (id integer PRIMARY KEY);
CREATE TABLE item (id integer PRIMARY KEY);
CREATE ROLE sampler LOGIN PASSWORD 'PASSWORD';
CREATE TYPE mood AS ENUM ('ok', 'grumpy');
CREATE TABLE kinds (id integer PRIMARY KEY, key uuid, doc json, docb jsonb, span interval, addr inet, price money,
                    tags integer[], feeling mood, tod time, flags bit(8));
INSERT INTO kinds VALUES
  (1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1,  "a": [1,2]}', '{"b": 1, "a": [1,2]}', '1 day 02:00',
   '10.0.0.1', 1234.5, '{1,2}', 'grumpy', '10:15', NULL),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, B'10101010');
CREATE SCHEMA sales;
CREATE TABLE sales.region (code char(2) PRIMARY KEY, name varchar(30));
INSERT INTO sales.region VALUES ('NO', 'North'), ('EA', 'East');
GRANT USAGE ON SCHEMA sales TO sampler;
GRANT SELECT ON ALL TABLES IN SCHEMA public, sales TO sampler;
CREATE TABLE sales.secret (id integer PRIMARY KEY);
"""


def imported(url: str, server: str, out: Path, *options: str) -> Model:
    """The model `mapwright import` writes for the database at `url`: what a user would have."""
    assert cli.main(["import", url, "--server", server, "--out", str(out), *options]) == 0
    return load_model(out)


def edited(model: Model, *edits: Any) -> Model:
    for batch in edits:
        for edit in batch:
            edit.apply(model)
    return model


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(SHOP_SQL)
    connection.close()
    return path


@pytest.fixture(scope="module")
def pg(pg_server: Any) -> Iterator[str]:
    """A database with a second schema and a role that must give a password (scram on loopback)."""
    url = pg_server.create_database("sample_from")
    pg_server.psql(PG_SQL.replace("'PASSWORD'", f"'{SECRET}'"), "sample_from")
    hba = pg_server.datadir / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text("host all sampler 127.0.0.1/32 scram-sha-256\n" + original)
    pg_server.psql("SELECT pg_reload_conf()")
    try:
        yield url
    finally:
        hba.write_text(original)
        pg_server.psql("SELECT pg_reload_conf()")


def sampler_url(pg_server: Any, auth: str = "sampler", query: str = "") -> str:
    return f"postgresql://{auth}@127.0.0.1:{pg_server.port}/sample_from{query}"


# --- SQLite -----------------------------------------------------------------------------------------------


def test_sqlite_rows_come_back_typed_bounded_and_ordered_with_what_did_not_fit_noted(shop: Path,
                                                                                   tmp_path: Path) -> None:
    url = f"sqlite:///{shop}"
    model = imported(url, "shop", tmp_path / "m.json")
    model = edited(model, add_table(model, "shop", "ghost", [{"name": "id", "type": "INTEGER"}]),
                   add_column(model, "shop.item", "colour", "VARCHAR(10)"),
                   set_keys(model, "shop.dup", ["id"], [{"name": "ux_name", "columns": ["name"]}]))
    before = shop.read_bytes()

    rows, notes = read_server_rows(url, model, "shop", 3)
    assert rows["shop.customer"] == [
        {"cust_no": 1, "name": "Ann", "balance": Decimal("0.00"), "joined": datetime(2026, 1, 4, 9, 30, tzinfo=UTC)},
        {"cust_no": 2, "name": "Bo", "balance": Decimal("7.00"), "joined": datetime(2026, 1, 1, tzinfo=UTC)},
        {"cust_no": 3, "name": "Cy", "balance": Decimal("12.50"), "joined": datetime(2026, 1, 5, 10, tzinfo=UTC)}]
    assert rows["shop.item"] == [{"sku": "a-1", "qty": 3, "colour": None}, {"sku": "b-2", "qty": 5, "colour": None}]
    assert "shop.ghost" not in rows
    assert len(read_server_rows(url, model, "shop", 10)[0]["shop.customer"]) == 4
    assert read_server_rows(url, model, "shop", 1)[0]["shop.customer"][0]["cust_no"] == 1

    rows, notes = read_server_rows(url, model, "shop", 10)
    assert rows["shop.odd"] == [{"code": "k4", "label": "ok", "qty": 4, "price": Decimal("1.01"), "at": None},
                                {"code": "k6", "label": "fine", "qty": 6, "price": Decimal("2.50"),
                                 "at": datetime(2026, 2, 1, 12, tzinfo=UTC)}]
    assert [r["id"] for r in rows["shop.dup"]] == [1, 2]  # which of the two 1s the database gives first is its own
    assert "shop.dup: 1 row(s) left out: their primary key repeats an earlier row's (as the model types it)" in notes
    assert "shop.dup: 1 row(s) left out: their unique index ux_name repeats an earlier row's (as the model types it)" \
        in notes
    assert "shop.ghost: the database has no table 'ghost' in the default schema; no rows read" in notes
    assert "shop.item: column colour: the database table has no such column; read as NULL" in notes
    assert "shop.odd: 1 row(s) left out: primary key column code is NULL" in notes
    assert "shop.odd: column price: 1 value(s) rounded to the column's scale" in notes
    unfit = [n for n in notes if n.startswith("shop.odd: 4 row(s) left out: a value does not fit")]
    assert len(unfit) == 1 and "column label: 13 characters do not fit VARCHAR(5)" in unfit[0], notes
    assert len(notes) == 7, notes
    assert shop.read_bytes() == before


def test_tables_and_columns_are_found_as_the_import_finds_them(shop: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{shop}"
    model = imported(url, "shop", tmp_path / "m.json", "--tables", "item")
    model = edited(model, rename_table(model, "shop.item", "ITEM"))
    rows, notes = read_server_rows(url, model, "shop", 5)
    assert rows == {"shop.ITEM": [{"sku": "a-1", "qty": 3}, {"sku": "b-2", "qty": 5}]} and notes == []


def test_a_bad_source_is_one_line_naming_it(shop: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{shop}"
    model = imported(url, "shop", tmp_path / "m.json", "--tables", "item")
    cases = {
        f"sqlite:///{tmp_path / 'absent.db'}": "no such SQLite database file",
        "no url at all": "not a database URL",
        f"sqlite://me:pw@/{shop}": "not a usable database URL",
        "nosuchdialect://h/db": "SQLAlchemy has no dialect",
    }
    for bad, words in cases.items():
        with pytest.raises(SampleSourceError) as caught:
            read_server_rows(bad, model, "shop", 5)
        assert words in str(caught.value) and "\n" not in str(caught.value)
        assert ":pw@" not in str(caught.value)  # the password is hidden
    with pytest.raises(SampleSourceError, match=r"^no server 'nope' in the model \(servers: shop\)$"):
        read_server_rows(url, model, "nope", 5)
    with pytest.raises(SampleSourceError, match="0 or more"):
        read_server_rows(url, model, "shop", -1)
    assert read_server_rows(url, model, "shop", 0) == ({"shop.item": []}, [])
    with pytest.raises(SampleSourceError, match=r"^sqlite:///.*shop\.db: no schema 'sales' in the database"):
        read_server_rows(url, model, "shop", 5, schema="sales")


# --- PostgreSQL -------------------------------------------------------------------------------------------


def test_postgresql_rows_come_back_typed_bounded_and_ordered(pg: str, pg_server: Any, tmp_path: Path) -> None:
    model = imported(pg, "pg", tmp_path / "m.json", "--tables", "customer,Orders,Item,item")
    model = edited(model, add_table(model, "pg", "ITEM", [{"name": "id", "type": "INTEGER"}]))
    reader = sampler_url(pg_server, f"sampler:{SECRET}")
    rows, notes = read_server_rows(reader, model, "pg", 20)
    assert rows["pg.customer"] == [
        {"cust_no": 10, "name": "Ann", "balance": Decimal("0.10"), "joined": datetime(2026, 1, 4, 9, 30, tzinfo=UTC),
         "born": None, "points": 1, "active": False, "photo": None},
        {"cust_no": 20, "name": "Bo", "balance": Decimal("-3.00"), "joined": None,
         "born": datetime(2000, 2, 29, tzinfo=UTC), "points": None, "active": None, "photo": b""},
        {"cust_no": 30, "name": "Cy", "balance": Decimal("12.50"), "joined": datetime(2026, 1, 5, 8, tzinfo=UTC),
         "born": datetime(1990, 5, 1, tzinfo=UTC), "points": 9000000000, "active": True, "photo": b"\x01\x02"}]
    assert date(2000, 2, 29) != rows["pg.customer"][1]["born"]  # a DATE is read as a run reads it: a UTC datetime
    orders = rows["pg.Orders"]
    assert [o["order_no"] for o in orders] == list(range(1, 21))
    assert orders[0] == {"order_no": 1, "cust_no": 1, "note": "order 1",
                         "placed": datetime(2026, 1, 5, 8, 1, tzinfo=UTC)}
    assert rows["pg.Item"] == [] and rows["pg.item"] == []
    assert notes == ["pg.ITEM: the default schema has tables Item, item, which differ from 'ITEM' only in case; "
                     "none is read (name one exactly in the model)"]

    sales = imported(pg, "pg", tmp_path / "s.json", "--schema", "sales", "--tables", "region")
    rows, notes = read_server_rows(reader, sales, "pg", 1, schema="SALES")
    assert rows == {"pg.region": [{"code": "EA", "name": "East"}]} and notes == []


def test_postgresql_types_the_import_took_the_nearest_type_for_come_as_postgresql_writes_them(
        pg: str, tmp_path: Path) -> None:
    model = imported(pg, "pg", tmp_path / "m.json", "--tables", "kinds")
    rows, notes = read_server_rows(pg, model, "pg", 10)
    assert rows["pg.kinds"] == [
        {"id": 1, "key": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "doc": '{"b": 1,  "a": [1,2]}',
         "docb": '{"a": [1, 2], "b": 1}', "span": "1 day 02:00:00", "addr": "10.0.0.1", "price": Decimal("1234.5000"),
         "tags": [1, 2], "feeling": "grumpy", "tod": datetime(1970, 1, 1, 10, 15, tzinfo=UTC), "flags": None}]
    assert notes == ["pg.kinds: 1 row(s) left out: a value does not fit the model's column (first: column flags: "
                     "expected a boolean for BIT, got '10101010')",
                     "pg.kinds: column tod: 1 time(s) of day read as that time on 1970-01-01 (the model's type is "
                     "a timestamp)"]


def test_passwords_are_taken_as_import_takes_them_and_never_shown(pg: str, pg_server: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    model = imported(pg, "pg", tmp_path / "m.json", "--schema", "sales", "--tables", "region")
    monkeypatch.setenv("MW_SAMPLE_PW", SECRET)
    by_env = read_server_rows(sampler_url(pg_server, query="?password_env=MW_SAMPLE_PW"), model, "pg", 5,
                              schema="sales")
    asked: list[str] = []
    by_prompt = read_server_rows(sampler_url(pg_server), model, "pg", 5, schema="sales",
                                 prompt=lambda text: asked.append(text) or SECRET)
    assert by_env == by_prompt and len(by_env[0]["pg.region"]) == 2
    assert asked == [f"Password for postgresql+psycopg://sampler@127.0.0.1:{pg_server.port}/sample_from: "]

    shown = f"postgresql+psycopg://sampler@127.0.0.1:{pg_server.port}/sample_from"
    for url, words in [(sampler_url(pg_server, "sampler:Wr0ng-secret"), "password authentication failed"),
                       (sampler_url(pg_server), "asks for a password"),
                       (sampler_url(pg_server, query="?password=Wr0ng-secret"), "asks for a password")]:
        with pytest.raises(SampleSourceError) as caught:
            read_server_rows(url, model, "pg", 5, schema="sales")
        message = str(caught.value)
        assert message.startswith(f"cannot connect to {shown}") and words in message, message
        assert "Wr0ng" not in message and "\n" not in message
    port = closed_port()
    secret = imported(pg, "pg", tmp_path / "s.json", "--schema", "sales", "--tables", "secret")
    with pytest.raises(SampleSourceError, match=f"^reading pg.secret from {re.escape(shown)}: permission denied "
                       "for table secret$"):
        read_server_rows(sampler_url(pg_server, f"sampler:{SECRET}"), secret, "pg", 5, schema="sales")
    unreachable = f"^cannot connect to postgresql\\+psycopg://sampler@127.0.0.1:{port}/x: "
    with pytest.raises(SampleSourceError, match=unreachable):
        read_server_rows(f"postgresql://sampler:{SECRET}@127.0.0.1:{port}/x", model, "pg", 5)


def closed_port() -> int:
    """A local port nothing listens on (bound, then released): a server that cannot be reached."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_connection_refuses_writes(shop: Path, pg: str) -> None:
    for url in (f"sqlite:///{shop}", pg):
        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"), poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as connection:
                make_read_only(connection)
                with pytest.raises(sa.exc.DBAPIError, match="readonly|read-only"):
                    connection.exec_driver_sql("CREATE TABLE written (x integer)")
        finally:
            engine.dispose()


# --- end to end: the database's rows as one site's snapshot of a generated sample ---------------------------


def two_sites(model: Model, server: str, other: str) -> Model:
    """`model` with a second server holding a copy of each of `server`'s tables, mapped both ways."""
    model = edited(model, add_server(model, other, "postgresql"))
    for table in [t for t in model.tables if t.server == server]:
        there, mapping = f"{other}.{table.name}", f"{server}_{table.name}_to_{other}"
        model = edited(model, replicate_table(model, table.key, other))
        model = edited(model, new_mapping(model, table.key, there, mapping))
        model = edited(model, add_reverse(model, mapping))
    return model


@pytest.mark.slow
def test_a_sample_starts_from_the_databases_rows_and_runs_with_conflicts(shop: Path, pg: str, tmp_path: Path,
                                                                          spark: Any) -> None:
    """Models imported from a real SQLite file and a real PostgreSQL server, made two-site: their samples start
    from the databases' rows, and run with conflicts and no rejects, to equal run directories on Spark and in
    process."""
    from sparkkit import both

    from engine.run.input.snapshots import read_snapshots
    from engine.samplegen import generate_sample
    from engine.samplegen.options import SampleOptions

    sources = [(f"sqlite:///{shop}", "shop", "customer,item", 4 + 2), (pg, "pg", "customer,Orders", 3 + 10)]
    for url, server, tables, count in sources:
        model = two_sites(imported(url, server, tmp_path / f"{server}.json", "--tables", tables), server, "branch")
        rows, notes = read_server_rows(url, model, server, 10)
        assert notes == [] and sum(len(r) for r in rows.values()) == count
        out = tmp_path / f"{server}-data"
        generate_sample(model, out, SampleOptions(seed=3, rows=10, changes=80, conflict_rate=0.3), initial=rows)
        snapshots = read_snapshots(out, model)
        assert {k: v for k, v in snapshots.items() if k.startswith(f"{server}.")} == rows
        spark_doc, inprocess_doc = both(spark, model, out, tmp_path / f"{server}-runs")
        assert spark_doc == inprocess_doc
        counts = inprocess_doc["manifest"]["counts"]
        assert counts["rejects"] == 0 and counts["records"] > 0 and counts["conflicts"] > 0, counts
