"""A PostgreSQL database for the import tests: odd types, a second schema, a role that needs a password."""

from __future__ import annotations

from typing import Any

SECRET = "s3cret-Pa55word"
ODD_TYPES = """
CREATE TYPE mood AS ENUM ('ok', 'grumpy', 'delighted');
CREATE TABLE odd (
    id integer PRIMARY KEY,
    key uuid,
    doc jsonb,
    at timestamptz,
    tod time,
    span interval,
    feeling mood,
    price money,
    free varchar,
    addr inet,
    flags bit(8),
    tags integer[]
);
CREATE TABLE plain (id integer PRIMARY KEY, name varchar(20));
CREATE TABLE keyed (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a varchar(10), b varchar(10));
CREATE UNIQUE INDEX ux_keyed_lower ON keyed (lower(a));
CREATE UNIQUE INDEX ux_keyed_partial ON keyed (b) WHERE b IS NOT NULL;
CREATE SCHEMA sales;
CREATE TABLE sales."Orders" (no integer PRIMARY KEY, total numeric(8,2) DEFAULT 0);
CREATE TABLE sales.items (no integer, sku varchar(10));
CREATE ROLE reader LOGIN PASSWORD 's3cret-Pa55word';
GRANT USAGE ON SCHEMA sales TO reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public, sales TO reader;
"""


def reader_url(pg_server: Any, password: str | None = None, query: str = "") -> str:
    auth = f"reader:{password}" if password else "reader"
    return f"postgresql://{auth}@127.0.0.1:{pg_server.port}/import_cli{query}"
