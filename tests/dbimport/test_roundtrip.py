"""Import, validate, export DDL, execute it afresh: the two catalogs are equal (PostgreSQL and SQLite)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from catalog import catalog

from resources import ROOT as RESOURCES

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
SHOP = RESOURCES / "samples" / "shop.sqlite"

PG_SCHEMA = """
CREATE SCHEMA src;
CREATE TABLE src.customer (
    region char(2) NOT NULL,
    cust_no integer NOT NULL,
    name varchar(80) NOT NULL,
    email varchar(120),
    status varchar(10) NOT NULL DEFAULT 'new',
    credit numeric(12,2) DEFAULT 0,
    points bigint DEFAULT -1,
    visits smallint NOT NULL DEFAULT 0,
    vip boolean NOT NULL DEFAULT false,
    weight real,
    volume double precision DEFAULT 1.5,
    joined date DEFAULT CURRENT_DATE,
    updated_at timestamp DEFAULT CURRENT_TIMESTAMP,
    notes text DEFAULT 'it''s: (fine); --',
    photo bytea,
    PRIMARY KEY (region, cust_no),
    CONSTRAINT uq_customer_email UNIQUE (email)
);
CREATE UNIQUE INDEX ux_customer_name ON src.customer (region, name);
CREATE TABLE src.orders (
    id serial PRIMARY KEY,
    ref varchar(24) NOT NULL,
    amount numeric(10,2) NOT NULL DEFAULT 0.00,
    currency char(3) NOT NULL DEFAULT 'EUR',
    placed date NOT NULL DEFAULT '2020-01-01',
    created timestamp NOT NULL DEFAULT '2020-01-01 08:30:00',
    CONSTRAINT uq_orders_ref UNIQUE (ref, currency)
);
CREATE TABLE src.order_line (
    order_id integer NOT NULL,
    line_no smallint NOT NULL,
    sku varchar(20) NOT NULL,
    qty integer NOT NULL DEFAULT (1 + 2),
    PRIMARY KEY (order_id, line_no)
);
"""


def mw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120)


def import_validate_export(url: str, tmp_path: Path, *extra: str) -> tuple[dict[str, Any], str]:
    model = tmp_path / "imported.json"
    out = mw("import", url, "--server", "db", "--out", str(model), *extra)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr  # every type maps exactly: no notes
    checked = mw("validate", str(model), "--format", "json")
    assert checked.returncode == 0, checked.stdout
    ddl = tmp_path / "db.sql"
    exported = mw("export", str(model), "--to", "ddl", "--server", "db", "--out", str(ddl))
    assert exported.returncode == 0, exported.stderr
    return json.loads(model.read_text()), ddl.read_text()


def test_postgresql_schema_round_trips_through_a_model(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_roundtrip")
    pg_server.psql(PG_SCHEMA, "import_roundtrip")
    model, ddl = import_validate_export(url, tmp_path, "--schema", "src")
    assert model["servers"] == [{"id": "db", "dbms": "postgresql"}]
    orders = next(t for t in model["tables"] if t["name"] == "orders")
    assert orders["columns"][0] == {"name": "id", "type": "SERIAL", "nullable": False}
    assert "-- server db (postgresql): postgresql" in ddl
    assert "CREATE TABLE src.customer" in ddl or 'CREATE TABLE "src"."customer"' in ddl  # the model keeps the schema
    copy_url = pg_server.create_database("import_roundtrip_copy")
    pg_server.psql(ddl, "import_roundtrip_copy")  # a fresh database: the DDL makes its schema and tables
    original, copy = catalog(url, "src"), catalog(copy_url, "src")
    assert sorted(original) == ["customer", "order_line", "orders"]
    assert copy == original
    customer = original["customer"]
    assert customer["unique"] == {"uq_customer_email": ("email",), "ux_customer_name": ("region", "name")}
    assert ("notes", "TEXT", True, "'it''s: (fine); --'::text") in customer["columns"]


def test_sqlite_sample_round_trips_through_a_model(tmp_path: Path) -> None:
    rebuilt = tmp_path / "rebuilt.sqlite"
    subprocess.run([sys.executable, str(RESOURCES / "samples" / "make_sqlite.py"), str(rebuilt)], check=True,
                   capture_output=True)
    assert catalog(f"sqlite:///{rebuilt}") == catalog(f"sqlite:///{SHOP}")  # the shipped file is current
    model, ddl = import_validate_export(f"sqlite:///{SHOP}", tmp_path)
    assert {t["name"] for t in model["tables"]} == {"customer", "product", "order_line"}
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(copy) as db:
        db.executescript(ddl)
    original = catalog(f"sqlite:///{SHOP}")
    assert catalog(f"sqlite:///{copy}") == original
    assert original["order_line"]["primary_key"] == ["order_no", "line_no"]
    assert original["product"]["unique"] == {"ux_product_ean": ("ean",)}
