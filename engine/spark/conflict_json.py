"""The conflicts Spark's windows resolved (`resolve_native`), written by Spark as the reference writes them.

A conflict's line (`rundir.write.jsonl_line`), its time-order key (`time_order_key`) and its flat columns
(`conflict_flat`) are Python's `json.dumps` of the record `detect.Delivery._conflict` makes. Here they are
SQL: what the model names (sites, tables, columns, methods) is encoded by `json.dumps` when the query is
planned, and each value of the data by an expression that writes what `json.dumps(to_json_value(v))` does
(`value_json`). Where that cannot be shown for a value (text that is not plain printable ASCII without a
quote or a backslash, a decimal Spark would write in exponent form, a double), the conflict is not
`encodable` and Python writes it (`resolve_conflicts`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from engine.model.schema import Table
from engine.run.semantics.context import RunContext
from engine.spark import sqltext as sql
from engine.spark.resolve_native import by_mapping
from engine.spark.types import rep

PLAIN = r"^[ !#-\[\]-~]*\z"
"""Text `json.dumps` writes as it is between two quotes: printable ASCII but the quote and the backslash."""

NUL = "char(0)"

COLUMNS = ("kind", "text", "sort", "site", "origin", "table", "mapping", "txn", "commit_ts", "delivered_at", "type",
           "column_group", "index", "method", "outcome", "reason", "methods_tried", "applied", "dkey", "local",
           "remote_old", "remote_new", "result")
"""What `conflicts` gives of each conflict (`resolve.OUTPUT`'s columns of a `conflict` row)."""


def literal(value: object) -> str:
    """SQL of a string literal holding `json.dumps(value)` (a name the model gives, planned once)."""
    return sql.string(json.dumps(value))


def plain(expr: str) -> str:
    """Whether a string `expr` is NULL or text `json.dumps` writes as it is, quoted."""
    return f"({expr} IS NULL OR {expr} RLIKE {sql.string(PLAIN)})"


def quoted(expr: str) -> str:
    """`json.dumps` of a plain string (`plain`), `null` for NULL."""
    return f"coalesce(concat('\"', {expr}, '\"'), 'null')"


def iso(expr: str) -> str:
    """A timestamp as `to_json_value` writes it (`datetime.isoformat` in UTC, `Z`): microseconds only where
    there are some. The session's time zone is UTC (`session.spark_session`)."""
    micros = f"pmod(unix_micros({expr}), 1000000)"
    return (f"concat(date_format({expr}, \"yyyy-MM-dd'T'HH:mm:ss\"), "
            f"CASE WHEN {micros} = 0 THEN '' ELSE concat('.', lpad(CAST({micros} AS STRING), 6, '0')) END, 'Z')")


def instant(expr: str) -> str:
    """A timestamp as `time_order_key` writes it (fixed width, no zone)."""
    return f"date_format({expr}, \"yyyy-MM-dd'T'HH:mm:ss.SSSSSS\")"


def value_json(expr: str, table: Table, column: str) -> tuple[str, str] | None:
    """(`json.dumps(to_json_value(v))` of a value of `column` as SQL, whether it is shown to be so), or None
    where no value of the column's type is encoded natively."""
    r = rep(table.column(column).sql_type)  # type: ignore[union-attr]
    if r.kind == "text":
        return quoted(expr), plain(expr)
    if r.kind == "int":
        return f"coalesce(CAST({expr} AS STRING), 'null')", "TRUE"
    if r.kind == "decimal":  # `format(d, "f")`, quoted: Spark's text of a decimal unless it has an exponent
        text = f"CAST({expr} AS STRING)"
        return quoted(text), f"({expr} IS NULL OR NOT contains({text}, 'E'))"
    if r.kind == "bool":
        return f"CASE WHEN {expr} IS NULL THEN 'null' WHEN {expr} THEN 'true' ELSE 'false' END", "TRUE"
    if r.kind == "timestamp":
        return quoted(iso(expr)), f"({expr} IS NULL OR year({expr}) BETWEEN 1 AND 9999)"
    if r.kind == "binary":
        return quoted(f"lower(hex({expr}))"), "TRUE"
    return None  # a double (Python's repr), an opaque value


def row_json(struct: str, table: Table, columns: Sequence[str], ordered: bool) -> tuple[str, str] | None:
    """`json.dumps` of a row of `columns` (the struct `struct`, NULL: `null`), its keys `ordered` (sorted,
    as `sort_keys` has them) or in the given order, and whether every value is shown to be so."""
    names = sorted(columns) if ordered else list(columns)
    parts, shown = [], []
    for name in names:
        encoded = value_json(f"{struct}.{sql.ident(name)}", table, name)
        if encoded is None:
            return None
        parts.append(f"{literal(name)}, ': ', {encoded[0]}")
        shown.append(encoded[1])
    body = ", ', ', ".join(parts) if parts else "''"
    return f"CASE WHEN {struct} IS NULL THEN 'null' ELSE concat('{{', {body}, '}}') END", sql.all_of(shown)


@dataclass(frozen=True)
class Encoding:
    """How Spark writes a table's resolved conflicts: `encodable`, SQL of whether it writes a resolved
    delivery's conflicts (over the native check's columns: `origin`, `txn`, `mapping`, `at`, `commit_ts`,
    `old`, `new`, `_conflicts`), and `columns`, each of `COLUMNS` as SQL over one conflicting group `_g`."""

    encodable: str
    columns: dict[str, str]

    def query(self, source: str) -> str:
        """The conflicts of `source`'s encodable resolved deliveries, a row a conflicting column group."""
        select = ", ".join(sql.named(self.columns[c], c) for c in COLUMNS)
        return (f"SELECT {select} FROM (SELECT *, explode(_conflicts.groups) AS _g FROM {source} "
                f"WHERE _conflicts IS NOT NULL AND {self.encodable})")


def encoding(table: Table, ctx: RunContext) -> Encoding | None:
    """How Spark writes the conflicts of deliveries into `table` that the native check resolved
    (`resolve_check.checked`'s `_conflicts`); None where it writes none of them."""
    every = [c.name for c in table.columns]
    mappings = ctx.into(table.key)
    if not mappings:
        return None
    present = {m.id: [c for c in m.columns if c in every] for m in mappings}  # as `map_image` orders an image
    row_parts: dict[str, dict[bool, tuple[str, str]]] = {}
    for side, struct in (("local", "_conflicts.local"), ("result", "_conflicts.result")):
        row_parts[side] = {}
        for ordered in (False, True):
            encoded = row_json(struct, table, every, ordered)
            if encoded is None:
                return None
            row_parts[side][ordered] = encoded
    image: dict[tuple[str, bool], tuple[str, str]] = {}
    dkey: dict[bool, tuple[str, str]] = {}
    for side in ("old", "new"):
        for ordered in (False, True):
            by, shown = {}, {}
            for m in mappings:
                encoded = row_json(side, table, present[m.id], ordered)
                if encoded is None:
                    return None
                by[m.id], shown[m.id] = encoded
            image[(side, ordered)] = (by_mapping(by, "'null'"), by_mapping(shown, "FALSE"))
    for ordered in (False, True):
        by, shown = {}, {}
        for m in mappings:
            encoded = row_json("new", table, list(m.dkey or ()), ordered)
            if encoded is None or not set(m.dkey or ()) <= set(present[m.id]):
                return None
            by[m.id], shown[m.id] = encoded
        dkey[ordered] = (by_mapping(by, "'null'"), by_mapping(shown, "FALSE"))
    encodable = sql.all_of([plain("origin"), plain("txn"), plain("mapping"),
                            f"forall(_conflicts.groups, g -> {plain('g.g')})",
                            row_parts["local"][False][1], row_parts["result"][False][1],
                            image[("old", False)][1], image[("new", False)][1], dkey[False][1]])
    site, name = literal(table.server), literal(table.key)
    tried = "concat('[', array_join(transform(_g.tried, x -> concat('\"', x, '\"')), ', '), ']')"
    fields = {  # the record in `jsonl_line`'s order: `resolve_conflicts` and `detect.Delivery._conflict`
        "site": site, "origin": quoted("origin"), "table": name, "dkey": dkey[False][0], "txn": quoted("txn"),
        "type": literal("update"), "column_group": quoted("_g.g"), "methods_tried": tried,
        "method": quoted("_g.method"), "outcome": quoted("_g.outcome"), "local": row_parts["local"][False][0],
        "remote_old": image[("old", False)][0], "remote_new": image[("new", False)][0],
        "result": row_parts["result"][False][0], "delivered_at": quoted(iso("at")), "mapping": quoted("mapping"),
        "commit_ts": quoted(iso("commit_ts")), "applied": "'true'"}
    sorted_fields = dict(fields, dkey=dkey[True][0], local=row_parts["local"][True][0],
                         remote_old=image[("old", True)][0], remote_new=image[("new", True)][0],
                         result=row_parts["result"][True][0])

    def obj(values: dict[str, str], keys: Sequence[str]) -> str:
        return "concat('{', " + ", ', ', ".join(f"{literal(k)}, ': ', {values[k]}" for k in keys) + ", '}')"

    line = obj(fields, list(fields))
    ordered_line = obj(sorted_fields, sorted(sorted_fields))
    sort = f"concat_ws({NUL}, {instant('at')}, {site}, {instant('commit_ts')}, {quoted('origin')}, " \
           f"{quoted('txn')}, '', {name}, {ordered_line})"
    columns = {
        "kind": "'conflict'", "text": line, "sort": sort, "site": sql.string(table.server), "origin": "origin",
        "table": sql.string(table.key), "mapping": "mapping", "txn": "txn", "commit_ts": iso("commit_ts"),
        "delivered_at": iso("at"), "type": "'update'", "column_group": "_g.g", "index": "CAST(NULL AS STRING)",
        "method": "_g.method", "outcome": "_g.outcome", "reason": "CAST(NULL AS STRING)",
        "methods_tried": "_g.tried", "applied": "TRUE", "dkey": dkey[True][0],
        "local": row_parts["local"][True][0], "remote_old": image[("old", True)][0],
        "remote_new": image[("new", True)][0], "result": row_parts["result"][True][0]}
    return Encoding(encodable, columns)
