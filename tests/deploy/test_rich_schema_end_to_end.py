"""A real PostgreSQL schema with what real schemas hold, end to end (issue 36): import it, validate it, write
its DDL, execute the DDL in a fresh database and find the same catalog; then deploy a two-site model of it on
two PostgreSQL 18 servers, insert rows into the partitioned table at one site and find them at the other,
with `verify` equal."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import psycopg
import pytest

from engine.cli import main
from engine.deploy.verify import verify
from engine.model import load_model
from engine.model.io import save_model
from engine.model.schema import Mapping, Model
from engine.rules import validate

SCHEMA_SQL = Path(__file__).resolve().parents[1] / "fixtures" / "rich_pg" / "schema.sql"

CATALOG_QUERIES = {
    "columns": """
        SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.character_maximum_length,
               c.numeric_precision, c.numeric_scale, c.is_nullable, c.is_generated, c.generation_expression,
               c.is_identity
        FROM information_schema.columns c JOIN pg_class k ON k.relname = c.table_name
        JOIN pg_namespace n ON n.oid = k.relnamespace AND n.nspname = c.table_schema
        WHERE c.table_schema = 'shop' AND NOT k.relispartition AND k.relkind IN ('r', 'p')""",
    "constraints": """
        SELECT k.relname, o.contype, pg_get_constraintdef(o.oid)
        FROM pg_constraint o JOIN pg_class k ON k.oid = o.conrelid JOIN pg_namespace n ON n.oid = k.relnamespace
        WHERE n.nspname = 'shop' AND NOT k.relispartition""",
    "indexes": """
        SELECT k.relname, i.indisunique, i.indisprimary, pg_get_indexdef(i.indexrelid, 0, true) LIKE '%btree%',
               array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY u(n, o)
                                     JOIN pg_attribute a ON a.attrelid = k.oid AND a.attnum = u.n ORDER BY u.o), ',')
        FROM pg_index i JOIN pg_class k ON k.oid = i.indrelid JOIN pg_namespace n ON n.oid = k.relnamespace
        WHERE n.nspname = 'shop' AND NOT k.relispartition""",
    "partitioning": """
        SELECT r.relname, pg_get_partkeydef(r.oid), p.relname, pg_get_expr(p.relpartbound, p.oid)
        FROM pg_inherits h JOIN pg_class r ON r.oid = h.inhparent JOIN pg_class p ON p.oid = h.inhrelid
        JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = 'shop' AND r.relkind = 'p'""",
    "enums": """
        SELECT t.typname, array_to_string(ARRAY(SELECT e.enumlabel FROM pg_enum e WHERE e.enumtypid = t.oid
                                                ORDER BY e.enumsortorder), ',')
        FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'shop' AND t.typtype = 'e'""",
}


def _catalog(url: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn:
        return {name: sorted(conn.execute(query).fetchall(), key=repr) for name, query in CATALOG_QUERIES.items()}


def test_a_rich_postgresql_schema_survives_import_ddl_and_a_fresh_database(pg_server: Any, tmp_path: Path,
                                                                         capsys: Any) -> None:
    source_url = pg_server.create_database("rich_source")
    with psycopg.connect(source_url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute(SCHEMA_SQL.read_text())
    model_path = tmp_path / "rich.json"
    assert main(["import", source_url, "--server", "a", "--schema", "shop", "--out", str(model_path)]) == 0
    err = capsys.readouterr().err
    assert "customer_info" in err and "view" in err  # the view is named as a view, once

    model = load_model(model_path)
    assert sorted(t.name for t in model.tables) == ["customer", "payment"]  # partitions are not tables
    payment = model.table("a.payment")
    assert payment is not None and payment.db_schema == "shop"
    assert payment.partitioning is not None and payment.partitioning.method == "range"
    assert sorted(p.name for p in payment.partitioning.partitions) == ["payment_2025", "payment_2026"]
    assert [fk.references for fk in payment.foreign_keys] == ["customer"]
    customer = model.table("a.customer")
    assert customer is not None
    assert {c.name: c.type for c in customer.columns}["tags"] == "ARRAY(TEXT)"
    assert [e for e in validate(model) if e.severity == "error"] == []

    ddl = tmp_path / "rich.sql"
    assert main(["export", str(model_path), "--to", "ddl", "--server", "a", "--dialect", "postgresql",
                 "--out", str(ddl)]) == 0
    copy_url = pg_server.create_database("rich_copy")
    with psycopg.connect(copy_url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute(ddl.read_text())
    source, copy = _catalog(source_url), _catalog(copy_url)
    for part in CATALOG_QUERIES:
        assert copy[part] == source[part], part


def _two_sites(model: Model) -> Model:
    """Every table of server a also at server b, each copied a -> b but for its generated columns."""
    b_tables = [t.model_copy(update={"server": "b"}) for t in model.tables]
    mappings = [Mapping(id=f"a_to_b_{t.name}", source=t.key, target=f"b.{t.name}",
                        columns={c.name: c.name for c in t.columns if c.generated is None}) for t in model.tables]
    servers = [*model.servers, model.servers[0].model_copy(update={"id": "b"})]
    return model.model_copy(update={"servers": servers, "tables": [*model.tables, *b_tables],
                                    "mappings": mappings})


@pytest.mark.slow
def test_a_two_site_deployment_of_it_carries_partitioned_rows(pg_server: Any, tmp_path: Path) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    source_url = pg_server.create_database("rich_deploy")
    with psycopg.connect(source_url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute(SCHEMA_SQL.read_text())
    imported = tmp_path / "one.json"
    assert main(["import", source_url, "--server", "a", "--schema", "shop", "--out", str(imported)]) == 0
    model = _two_sites(load_model(imported))
    save_model(model, tmp_path / "two.json")
    assert [f for f in validate(model) if f.severity == "error"] == []

    data = tmp_path / "data"
    (data / "changes").mkdir(parents=True)
    changes = [
        {"site": "a", "txn": "t1", "seq": 1, "commit_ts": "2026-01-05T09:00:00Z", "table": "customer", "op": "I",
         "after": {"id": 1, "name": "Ada", "mood": "happy", "token": "0b6b2c4e-8a4f-4d2e-9a37-2f8b9d1c0e11",
                   "seen": "2026-01-05T09:00:00Z", "email": "ada@example.com"}},
        {"site": "a", "txn": "t1", "seq": 2, "commit_ts": "2026-01-05T09:00:00Z", "table": "payment", "op": "I",
         "after": {"id": 1, "paid_on": "2025-06-01", "customer_id": 1, "amount": "12.50"}},
        {"site": "a", "txn": "t2", "seq": 1, "commit_ts": "2026-01-05T09:01:00Z", "table": "payment", "op": "I",
         "after": {"id": 2, "paid_on": "2026-02-01", "customer_id": 1, "amount": "99.00"}},
    ]
    (data / "changes" / "changes.jsonl").write_text("".join(json.dumps(c) + "\n" for c in changes))
    report = verify(model, data)
    assert report.equal, report.render()
    rows = {t.table: (t.mapwright_rows, t.postgresql_rows) for t in report.tables}
    assert rows["b.payment"] == (2, 2) and rows["b.customer"] == (1, 1)  # through the partition root
