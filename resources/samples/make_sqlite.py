"""Write `shop.sqlite`, the small SQLite database `mapwright import` and its tests read.

It has composite primary keys, named unique constraints and unique indexes, defaults (literals, a
negative number, CURRENT_TIMESTAMP, an expression) and NOT NULL columns over the common types. Rebuild it
after changing the schema below:

    python resources/samples/make_sqlite.py [OUT]
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

SCHEMA = """
CREATE TABLE customer (
    region CHAR(2) NOT NULL,
    cust_no INTEGER NOT NULL,
    name VARCHAR(80) NOT NULL,
    email VARCHAR(120),
    status VARCHAR(10) DEFAULT 'new' NOT NULL,
    credit_limit NUMERIC(12, 2) DEFAULT 0,
    points BIGINT DEFAULT -1,
    vip BOOLEAN DEFAULT 0 NOT NULL,
    joined DATE DEFAULT CURRENT_DATE,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (region, cust_no),
    CONSTRAINT uq_customer_email UNIQUE (email)
);
CREATE TABLE product (
    sku VARCHAR(20) NOT NULL PRIMARY KEY,
    ean CHAR(13),
    description TEXT NOT NULL,
    unit_price DECIMAL(10, 2) NOT NULL,
    weight REAL,
    volume DOUBLE,
    rating FLOAT DEFAULT 2.5,
    qty SMALLINT DEFAULT (1 + 2) NOT NULL,
    photo BLOB,
    listed_at DATETIME
);
CREATE UNIQUE INDEX ux_product_ean ON product (ean);
CREATE TABLE order_line (
    order_no BIGINT NOT NULL,
    line_no SMALLINT NOT NULL,
    sku VARCHAR(20) NOT NULL,
    quantity INTEGER DEFAULT 1 NOT NULL,
    note VARCHAR(200) DEFAULT 'it''s: fine',
    PRIMARY KEY (order_no, line_no)
);
CREATE UNIQUE INDEX ux_order_line_sku ON order_line (order_no, sku);
INSERT INTO customer (region, cust_no, name, email) VALUES ('EU', 1, 'Ada', 'ada@example.com');
INSERT INTO product (sku, ean, description, unit_price) VALUES ('P-1', '4006381333931', 'Pencil', 1.20);
"""

DEFAULT_OUT = Path(__file__).resolve().parent / "shop.sqlite"


def write(out: Path = DEFAULT_OUT) -> Path:
    out.unlink(missing_ok=True)
    with sqlite3.connect(out) as db:
        db.executescript(SCHEMA)
    return out


if __name__ == "__main__":
    print(f"wrote {write(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)}")
