"""Deploying real schemas to PostgreSQL: generated columns are never published nor copied into, a
partitioned table is published through its root, and every statement names tables with their schema.
The SQL text and the findings are checked without a server; one test runs the export's scripts on two
PostgreSQL 18 servers with a partitioned, schema-qualified table with a serial key and generated columns."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from engine.deploy.pgcluster import restart, running_servers
from engine.deploy.pgexport import export_postgresql, server_tokens
from engine.deploy.postgresql import plan_deployment, publications_sql, tables_sql
from engine.deploy.verify import compare_table, read_table
from engine.model.io import parse_model
from engine.model.schema import Model

STORED = {"name": "TOTAL", "type": "DECIMAL(12,2)", "generated": {"expression": '"AMOUNT" * 2'}}
VIRTUAL = {"name": "TAX", "type": "DECIMAL(12,2)", "generated": {"expression": '"AMOUNT" / 10', "stored": False}}
COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False, "identity": {}},
           {"name": "AMOUNT", "type": "DECIMAL(10,2)"}, STORED, VIRTUAL]
PARTITIONS = {"method": "range", "columns": ["ID"],
              "partitions": [{"name": "ORDERS_LOW", "bound": "FOR VALUES FROM (1) TO (1000)"},
                             {"name": "ORDERS_HIGH", "bound": "FOR VALUES FROM (1000) TO (MAXVALUE)"}]}


def doc(**changes: Any) -> dict[str, Any]:
    """Servers a and b, each with sales.ORDERS partitioned by ID; mapping a_to_b copies every column."""
    table = {"name": "ORDERS", "schema": "sales", "columns": COLUMNS, "primary_key": ["ID"],
             "partitioning": PARTITIONS}
    return {"format": "mapwright/1", "name": "partitions",
            "servers": [{"id": s, "dbms": "postgresql"} for s in "ab"],
            "tables": [{**table, "server": s, **changes.get(s, {})} for s in "ab"],
            "mappings": [{"id": "a_to_b", "source": "a.ORDERS", "target": "b.ORDERS", "distribution_key": ["ID"],
                          "columns": {c["name"]: c["name"] for c in COLUMNS}, **changes.get("mapping", {})}]}


def load(d: dict[str, Any]) -> Model:
    return parse_model(json.dumps(d), "m.json")


def not_deployed(m: Model) -> dict[str, str]:
    """{where: message} of the not_deployed findings."""
    return {f.where: f.message for f in plan_deployment(m).findings if f.kind == "not_deployed"}


def test_generated_columns_are_never_published_and_a_partitioned_root_is_published_via_root() -> None:
    m = load(doc())
    plan = plan_deployment(m)
    assert [(p.mapping, p.columns) for p in plan.publications] == [("a_to_b", ("ID", "AMOUNT"))]
    assert publications_sql(plan, "a") == [
        'CREATE PUBLICATION "mw_a_to_b" FOR TABLE ONLY "sales"."ORDERS" ("ID", "AMOUNT") '
        "WITH (publish = 'insert, update, delete', publish_via_partition_root = true)"]
    missing = not_deployed(m)
    assert sorted(missing) == ["a_to_b.TAX", "a_to_b.TOTAL"]
    assert all(message.startswith("the target column is generated") for message in missing.values())


def test_a_generated_source_column_copied_into_a_plain_one_is_left_out() -> None:
    plain = [c if c["name"] != "TOTAL" else {"name": "TOTAL", "type": "DECIMAL(12,2)"} for c in COLUMNS]
    m = load(doc(b={"columns": plain}))
    assert plan_deployment(m).publications[0].columns == ("ID", "AMOUNT")
    assert not_deployed(m)["a_to_b.TOTAL"].startswith("the source column is generated: PostgreSQL does not publish")


def test_publishing_per_partition_or_across_schemas_is_not_deployed() -> None:
    per_partition = load(doc(a={"partitioning": {**PARTITIONS, "publish_via_partition_root": False}}))
    assert plan_deployment(per_partition).publications == []
    assert "publish_via_partition_root false" in not_deployed(per_partition)["a_to_b"]
    other_schema = load(doc(b={"schema": "archive"}))
    assert plan_deployment(other_schema).publications == []
    assert "the target is in schema archive, the source in sales" in not_deployed(other_schema)["a_to_b"]


def test_replica_identity_full_is_set_on_every_partition_and_refused_with_generated_columns() -> None:
    plain = COLUMNS[:2]
    columns = {"ID": "ID", "AMOUNT": "AMOUNT"}
    keyless = load(doc(a={"columns": plain}, b={"columns": plain, "primary_key": []},
                       mapping={"columns": columns}))
    plan = plan_deployment(keyless)
    assert [p.columns for p in plan.publications] == [None]
    statements = tables_sql(plan, "a")
    assert statements[0] == 'CREATE SCHEMA IF NOT EXISTS "sales"'
    assert statements[-3:] == ['ALTER TABLE "sales"."ORDERS" REPLICA IDENTITY FULL',
                               'ALTER TABLE "sales"."ORDERS_LOW" REPLICA IDENTITY FULL',
                               'ALTER TABLE "sales"."ORDERS_HIGH" REPLICA IDENTITY FULL']
    generated = load(doc(b={"primary_key": []}, mapping={"columns": columns}))
    assert plan_deployment(generated).publications == []
    assert "PostgreSQL 18 then refuses every UPDATE and DELETE" in not_deployed(generated)["a_to_b"]


# --- on two PostgreSQL 18 servers ---------------------------------------------------------------------

CREATE = [
    'CREATE SCHEMA "sales"',
    'CREATE TABLE "sales"."ORDERS" ("ID" serial, "AMOUNT" numeric(10,2), '
    '"TOTAL" numeric(12,2) GENERATED ALWAYS AS ("AMOUNT" * 2) STORED, '
    '"TAX" numeric(12,2) GENERATED ALWAYS AS ("AMOUNT" / 10) VIRTUAL, PRIMARY KEY ("ID")) PARTITION BY RANGE ("ID")',
    'CREATE TABLE "sales"."ORDERS_LOW" PARTITION OF "sales"."ORDERS" FOR VALUES FROM (1) TO (1000)',
    'CREATE TABLE "sales"."ORDERS_HIGH" PARTITION OF "sales"."ORDERS" FOR VALUES FROM (1000) TO (MAXVALUE)',
]


@pytest.mark.slow
def test_the_scripts_replicate_a_partitioned_table_with_generated_columns(tmp_path: Path) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    m = load(doc())
    plan = plan_deployment(m)
    folder = tmp_path / "deploy"
    export_postgresql(m, folder)
    tokens = server_tokens(plan)
    with running_servers(plan.servers) as servers:
        conninfo = {f"conninfo_{tokens[s]}": server.conninfo() for s, server in servers.items()}
        for site, server in servers.items():
            server.psql_file(folder / tokens[site] / "1-settings.sql", conninfo)
            restart(server)
            with server.connect() as conn:
                for statement in CREATE:
                    conn.execute(statement.encode())
        for n, step in ((3, "publications"), (4, "subscriptions")):
            for site, server in servers.items():
                server.psql_file(folder / tokens[site] / f"{n}-{step}.sql", conninfo)
        with servers["a"].connect() as conn:
            conn.execute("""INSERT INTO "sales"."ORDERS" ("AMOUNT") VALUES (10), (20)""")  # the serial: 1, 2
            conn.execute("""INSERT INTO "sales"."ORDERS" ("ID", "AMOUNT") VALUES (1500, 30)""")
            conn.execute("""UPDATE "sales"."ORDERS" SET "AMOUNT" = 25 WHERE "ID" = 2""")
            conn.execute("""DELETE FROM "sales"."ORDERS" WHERE "ID" = 1""")
        expected = [(2, 25, 50, 2.5), (1500, 30, 60, 3)]
        table = m.table("b.ORDERS")
        assert table is not None
        deadline, rows = time.monotonic() + 20, []
        while time.monotonic() < deadline:
            rows = sorted((r["ID"], r["AMOUNT"], r["TOTAL"], r["TAX"]) for r in read_table(servers["b"], table))
            if rows == expected:
                break
            time.sleep(0.1)
        assert rows == expected
        with servers["b"].connect() as conn:  # each row in its partition, the subscription still running
            assert conn.execute('SELECT count(*) FROM "sales"."ORDERS_HIGH"').fetchone() == (1,)
            assert conn.execute("SELECT bool_and(subenabled) FROM pg_subscription").fetchone() == (True,)


def test_verify_compares_what_both_sides_hold_and_not_the_generated_columns() -> None:
    """A generated column is computed by the server, never by Mapwright's run; a DATE comes back from
    PostgreSQL as a date and a UUID as a UUID, which Mapwright's run holds as midnight UTC and text."""
    m = load(doc(a={"columns": [*COLUMNS, {"name": "DAY", "type": "DATE"}, {"name": "TOKEN", "type": "UUID"}]}))
    table = m.table("a.ORDERS")
    assert table is not None
    token = "0b6b2c4e-8a4f-4d2e-9a37-2f8b9d1c0e11"
    mapwright = [{"ID": 1, "AMOUNT": Decimal("10.00"), "TOTAL": None, "TAX": None,
                  "DAY": datetime(2025, 6, 1, tzinfo=UTC), "TOKEN": token}]
    postgresql = [{"ID": 1, "AMOUNT": Decimal("10"), "TOTAL": Decimal("20.00"), "TAX": Decimal("1.00"),
                   "DAY": date(2025, 6, 1), "TOKEN": UUID(token)}]
    assert compare_table(table, mapwright, postgresql).equal
    postgresql[0]["DAY"] = date(2025, 6, 2)
    assert compare_table(table, mapwright, postgresql).differing_keys == [{"ID": "1"}]
