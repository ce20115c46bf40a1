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


RICH = """
CREATE TYPE mood AS ENUM ('ok', 'grumpy', 'delighted');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TABLE customer (
    id integer GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 5) PRIMARY KEY,
    name varchar(40) NOT NULL,
    email text,
    feeling mood DEFAULT 'ok',
    qty posint,
    tags text[],
    scores real[],
    token uuid,
    seen timestamptz,
    name_upper text GENERATED ALWAYS AS (upper(name)) STORED,
    CONSTRAINT ck_name CHECK (length(name) > 1)
);
COMMENT ON TABLE customer IS 'who buys';
COMMENT ON COLUMN customer.email IS 'where we write';
CREATE INDEX ix_customer_email ON customer (email);
CREATE INDEX ix_customer_lower ON customer (lower(name));
CREATE TABLE orders (
    no bigserial,
    customer_id integer NOT NULL REFERENCES customer (id) ON DELETE CASCADE ON UPDATE RESTRICT,
    placed date NOT NULL,
    total numeric(10,2) CHECK (total >= 0),
    PRIMARY KEY (no, placed)
) PARTITION BY RANGE (placed);
ALTER SEQUENCE orders_no_seq START WITH 1000 INCREMENT BY 10;
CREATE TABLE orders_2023 PARTITION OF orders FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE orders_2024 PARTITION OF orders FOR VALUES FROM ('2024-01-01') TO ('2025-01-01') PARTITION BY HASH (no);
CREATE TABLE orders_2024_h0 PARTITION OF orders_2024 FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE INDEX ix_orders_customer ON orders (customer_id);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
CREATE SCHEMA sales;
CREATE TABLE sales.ticket (id integer PRIMARY KEY, customer_id integer REFERENCES public.customer (id));
"""
"""A schema with what real PostgreSQL schemas hold (issue 36): an identity key, an enum, a domain, arrays, a uuid
and a timestamptz, a stored generated column, comments, indexes (one on an expression), a range-partitioned
table with a serial key and two partitions (one partitioned again), a foreign key with ON DELETE CASCADE,
check constraints, a view, and a second schema whose table references the first."""

RICH_PG18 = "ALTER TABLE customer ADD COLUMN name_len integer GENERATED ALWAYS AS (length(name) * 2) VIRTUAL;"
"""PostgreSQL 18's virtual generated column."""
