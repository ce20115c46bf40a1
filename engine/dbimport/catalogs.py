"""What SQLAlchemy's inspector does not say, read from the database's own catalog for `mapwright import`.

- PostgreSQL: the base type of a domain with its size (the inspector reflects `CREATE DOMAIN d AS
  varchar(200)` as a VARCHAR without length, which came in as TEXT), and which columns own the sequence
  their default reads (only those are SERIAL: `int DEFAULT nextval('other_seq')` is an integer that takes
  numbers from another table's sequence), with where that sequence starts and how it steps; and the schema
  each foreign key references (the inspector drops it when it is on the search path).
- SQLite: the shadow tables a virtual table keeps its data in (FTS5's `ft_data`, `ft_idx`, `ft_content`,
  `ft_docsize`, `ft_config`): the database's internals, not tables of the model.

Names go to the catalog as bound parameters, never into the SQL text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

ColumnKey = tuple[str, str]
"""(table, column) as the database stores them."""

_DOMAIN_BASES = sa.text("""
WITH RECURSIVE chain(domain, base, mod) AS (
    SELECT t.oid, t.typbasetype, t.typtypmod FROM pg_catalog.pg_type t WHERE t.typtype = 'd'
    UNION ALL
    SELECT chain.domain, t.typbasetype, CASE WHEN chain.mod <> -1 THEN chain.mod ELSE t.typtypmod END
    FROM chain JOIN pg_catalog.pg_type t ON t.oid = chain.base AND t.typtype = 'd')
SELECT c.relname, a.attname, pg_catalog.format_type(chain.base, chain.mod)
FROM chain
JOIN pg_catalog.pg_type b ON b.oid = chain.base AND b.typtype <> 'd'
JOIN pg_catalog.pg_attribute a ON a.atttypid = chain.domain AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = coalesce(:schema, current_schema()) AND c.relname = ANY(:names)
""")
"""Each column of the named tables whose type is a domain, with the type at the bottom of its domains, sized."""

_OWNED_SEQUENCES = sa.text("""
SELECT c.relname, a.attname, ps.seqstart, ps.seqincrement
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
JOIN pg_catalog.pg_depend d ON d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = c.oid
    AND d.refobjsubid = a.attnum AND d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'a'
JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'
JOIN pg_catalog.pg_sequence ps ON ps.seqrelid = s.oid
WHERE n.nspname = coalesce(:schema, current_schema()) AND c.relname = ANY(:names)
    AND pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) = format('nextval(%L::regclass)', s.oid::regclass)
""")
"""The columns of the named tables whose default is `nextval` of a sequence the column owns (a serial), with
where that sequence starts and how it steps."""


_REFERENCES = sa.text("""
SELECT c.relname, k.conname, rn.nspname, r.relname
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_class r ON r.oid = k.confrelid
JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
WHERE k.contype = 'f' AND n.nspname = coalesce(:schema, current_schema()) AND c.relname = ANY(:names)
""")
"""The schema and table each foreign key of the named tables references (the inspector leaves the schema out
when it is on the search path, and with `postgresql_ignore_search_path` gives the referencing table's)."""


@dataclass
class PgFacts:
    """Of a batch of PostgreSQL tables: each domain column's sized base type (`format_type` text) and the
    columns that own the sequence their default reads, with its (start, increment); the schema and table each
    foreign key references."""

    domain_bases: dict[ColumnKey, str] = field(default_factory=dict)
    own_sequence: dict[ColumnKey, tuple[int, int]] = field(default_factory=dict)
    references: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)  # (table, fk) -> (schema, table)


def pg_facts(connection: Connection, schema: str | None, tables: Sequence[str]) -> PgFacts:
    """`PgFacts` of `tables` in `schema` (the connection's current schema when None)."""
    params: dict[str, Any] = {"schema": schema, "names": list(tables)}
    facts = PgFacts()
    for table, column, base in connection.execute(_DOMAIN_BASES, params):
        facts.domain_bases[(str(table), str(column))] = str(base)
    facts.own_sequence = {(str(table), str(column)): (int(start), int(step))
                          for table, column, start, step in connection.execute(_OWNED_SEQUENCES, params)}
    facts.references = {(str(table), str(name)): (str(schema), str(target))
                        for table, name, schema, target in connection.execute(_REFERENCES, params)}
    return facts


_SIZED = re.compile(r"^(?P<name>[a-z ]+?)\s*(?:\((?P<args>[0-9, ]+)\))?(?P<rest>[a-z ]*)$")


def pg_base_type(dialect: Any, text: str) -> TypeEngine[Any] | None:
    """The SQLAlchemy type of a `format_type` text (`character varying(200)`, `numeric(10,2)`,
    `timestamp(3) without time zone`), or None for one this cannot read (an array, a user type)."""
    match = _SIZED.match(text.strip().lower())
    if match is None:
        return None
    name = " ".join(f"{match['name']}{match['rest']}".split())
    kind = getattr(dialect, "ischema_names", {}).get(name)
    if kind is None:
        return None
    args = [int(a) for a in (match["args"] or "").replace(" ", "").split(",") if a]
    try:
        if name.startswith(("timestamp", "time")):
            return kind(timezone="with time zone" in name, precision=args[0] if args else None)  # type: ignore[no-any-return]
        return kind(*args)  # type: ignore[no-any-return]
    except TypeError:
        return None


def sqlite_shadow_tables(connection: Connection, schema: str | None) -> dict[str, str]:
    """{shadow table: the virtual table it belongs to} of a SQLite schema (`PRAGMA table_list`, SQLite 3.37
    and later; none found on an older one)."""
    prefix = '"' + schema.replace('"', '""') + '".' if schema else ""
    rows = connection.exec_driver_sql(f"PRAGMA {prefix}table_list").fetchall()
    virtual = sorted((str(r[1]) for r in rows if r[2] == "virtual"), key=len, reverse=True)
    out: dict[str, str] = {}
    for row in rows:
        if row[2] == "shadow":
            name = str(row[1])
            out[name] = next((v for v in virtual if name.startswith(v + "_")), "a virtual table")
    return out
