"""Exports of a model: normalised JSON, the JSON Schema of the format, target DDL, an HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.schema import CreateTable

from engine.model.io import dump_model, write_atomic
from engine.model.schema import FORMAT, Model, Table
from engine.model.types import SqlType, TypeFamily
from engine.report import group_title, summary
from engine.rules import validate


class ExportError(Exception):
    """An export that cannot be made (for example an unknown SQL dialect)."""


def export_json(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, dump_model(model))


def format_schema() -> dict[str, Any]:
    schema = Model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"Mapwright model ({FORMAT})"
    return schema


def export_schema(model: Model, out: Path, **_: Any) -> None:
    write_atomic(out, json.dumps(format_schema(), indent=1) + "\n")


def sqlalchemy_type(t: SqlType) -> sa.types.TypeEngine[Any]:
    """The nearest portable SQLAlchemy type; user and complex types become text."""
    by_name: dict[str, Callable[[], sa.types.TypeEngine[Any]]] = {
        "SMALLINT": sa.SmallInteger, "INTEGER": sa.Integer, "INT": sa.Integer, "SERIAL": sa.Integer,
        "BIGINT": sa.BigInteger, "SERIAL8": sa.BigInteger, "REAL": sa.REAL, "FLOAT": sa.Float,
        "DOUBLE": sa.Double, "DATE": sa.Date, "TIMESTAMP": sa.DateTime, "DATETIME": sa.DateTime,
        "BOOLEAN": sa.Boolean, "BIT": sa.Boolean, "BLOB": sa.LargeBinary, "BYTE": sa.LargeBinary,
        "LONG RAW": sa.LargeBinary, "TEXT": sa.Text, "CLOB": sa.Text, "LONG": sa.Text,
    }
    if t.family is TypeFamily.CHARACTER:
        return sa.CHAR(t.length) if t.name in ("CHAR", "NCHAR") else sa.String(t.length)
    if t.family is TypeFamily.BINARY:
        return sa.LargeBinary(t.length)
    if t.family is TypeFamily.EXACT_NUMERIC and t.precision is not None:
        return sa.Numeric(t.precision, t.scale or 0)
    if t.name == "NUMBER":
        return sa.Numeric()
    return by_name.get(t.name, sa.Text)()


def table_ddl(table: Table, dialect: sa.engine.Dialect) -> str:
    meta = sa.MetaData()
    columns = [sa.Column(c.name, sqlalchemy_type(c.sql_type), nullable=c.nullable,
                         server_default=sa.text(str(c.default)) if c.default is not None else None)
               for c in table.columns]
    constraints: list[sa.schema.Constraint] = []
    known = set(table.column_names())
    if table.primary_key and set(table.primary_key) <= known:
        constraints.append(sa.PrimaryKeyConstraint(*table.primary_key))
    constraints += [sa.UniqueConstraint(*ux.columns, name=ux.name) for ux in table.unique_indexes
                    if set(ux.columns) <= known]
    sa_table = sa.Table(table.name, meta, *columns, *constraints)
    return str(CreateTable(sa_table).compile(dialect=dialect)).strip() + ";\n"


def export_ddl(model: Model, out: Path, dialect: str = "postgresql", **_: Any) -> None:
    """CREATE TABLE for every table a mapping writes to, in the given SQLAlchemy dialect."""
    try:
        sa_dialect = sa.dialects.registry.load(dialect)()
    except Exception:
        raise ExportError(f"unknown SQL dialect {dialect!r} (try postgresql, oracle, mssql, mysql, sqlite)") from None
    targets = dict.fromkeys(m.target for m in model.mappings)
    parts = [f"-- {model.name or 'model'}: target tables, {dialect} dialect\n"]
    for key in targets:
        table = model.table(key)
        if table is not None:
            parts.append(f"\n-- {key}\n{table_ddl(table, sa_dialect)}")
    write_atomic(out, "".join(parts))


def export_report(model: Model, out: Path, **_: Any) -> None:
    """A self-contained HTML page: servers, mappings and findings."""
    findings = validate(model)
    esc = html.escape
    rows = "".join(
        f"<tr class='{f.severity.value}'><td>{f.severity.value}</td><td>{f.code}</td>"
        f"<td>{esc(group_title(model, f))}</td><td>{esc(f.location.column or '')}</td><td>{esc(f.message)}</td></tr>"
        for f in findings)
    mappings = "".join(f"<tr><td>{esc(m.id)}</td><td>{esc(m.source)}</td><td>{esc(m.target)}</td>"
                       f"<td>{len(m.columns)}</td><td>{esc(m.reverse or '')}</td></tr>" for m in model.mappings)
    servers = "".join(f"<tr><td>{esc(s.id)}</td><td>{s.dbms}</td><td>{'' if s.priority is None else s.priority}</td>"
                      f"<td>{sum(1 for t in model.tables if t.server == s.id)}</td></tr>" for s in model.servers)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(model.name)} - Mapwright report</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin-bottom:2em}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}}th{{background:#f3f3f3}}
tr.error td:first-child{{color:#b00020;font-weight:bold}}tr.warning td:first-child{{color:#9a6700}}</style></head>
<body><h1>{esc(model.name or 'Model')}</h1><p>{esc(summary(findings))}</p>
<h2>Servers</h2><table><tr><th>id</th><th>DBMS</th><th>priority</th><th>tables</th></tr>{servers}</table>
<h2>Mappings</h2><table><tr><th>id</th><th>source</th><th>target</th><th>columns</th><th>reverse</th></tr>{mappings}</table>
<h2>Findings</h2><table><tr><th>severity</th><th>code</th><th>where</th><th>column</th><th>message</th></tr>{rows}</table>
</body></html>
"""
    write_atomic(out, page)


EXPORTERS: dict[str, Callable[..., None]] = {
    "json": export_json, "schema": export_schema, "ddl": export_ddl, "report": export_report,
}
