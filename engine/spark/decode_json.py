"""A change line's values read by Spark's JSON reader (`from_json`) with explicit schemas, for `decode`.

`decode` tells a clean line by its VARIANT (`try_parse_json`): `schema_of_variant` shows every token's
kind and every key, which the reference's reasons turn on. Reading the *values* out of that VARIANT is
another matter: Spark's `try_variant_get` builds a `Literal` and a `Cast` (and reads the session's
configuration) for every value of every row, where `from_json`'s Jackson parser converts each token with
a converter made once: reading the values out of the VARIANT cost about twice the CPU. So the values come
from `from_json`, the kinds from the VARIANT.

On a clean line both read the same: the VARIANT's parser accepts no more than `from_json`'s (single
quotes, `NaN`, a second value after the first: `from_json` reads them, the VARIANT does not, and the line
is not clean); a clean line has no duplicate key (the VARIANT refuses one); every token is of a kind its
field's type reads whole (`decode.token_kinds`): a string as its text, an integer as its digits, a number
of at most 15 significant digits as the exact decimal. On any other line the values are never used.

A table's image is read as a struct of its columns in every plain version (`_RAW` types: `decode.raw_fields`);
tables whose structs name no column with two types share one struct, so that most models read each line
once, with its envelope; a model of several groups reads the envelope from every line, and each group
only from its tables' lines (`image_reads`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.model.schema import Table
from engine.run.input.records import MAX_RECORD_BYTES
from engine.spark import sqltext as sql

ENVELOPE = {"site": "string", "table": "string", "op": "string", "schema_version": "bigint", "txn": "string",
            "seq": "bigint", "commit_ts": "string"}
"""The envelope's fields as every line is read: the kinds a clean line's fields have read whole so."""
MAX_GROUP_FIELDS = 64
"""The most columns one shared image struct holds: each is a field of every line's row, NULL or not."""


@dataclass(frozen=True)
class ImageReads:
    """The `from_json` columns of a line, in the order they are to be projected, the first of them holding
    the envelope (`envelope`); and for each table key the column its images are read from."""

    columns: list[tuple[str, str]]  # (SQL, alias)
    envelope: str
    source: dict[str, str]  # table key -> the alias of its `from_json` column


def groups(tables: list[Table], fields_of: Callable[[Table], dict[str, str]]) -> list[list[Table]]:
    """`tables` in groups whose image structs can be one: no column read as two types, at most
    `MAX_GROUP_FIELDS` columns (a table of more has a group of its own). First come, first placed."""
    out: list[tuple[list[Table], dict[str, str]]] = []
    for table in tables:
        fields = fields_of(table)
        for members, union in out:
            merged = {**union, **fields}
            if all(union.get(n, t) == t for n, t in fields.items()) and len(merged) <= MAX_GROUP_FIELDS:
                members.append(table)
                union.update(fields)
                break
        else:
            out.append(([table], dict(fields)))
    return [members for members, _ in out]


def image_reads(tables: list[Table], fields_of: Callable[[Table], dict[str, str]], key: str = "_key") -> ImageReads:
    """How the lines of `tables` (those Spark reads itself) are read. One group: `_j0`, the envelope and the
    images, from every line within the size limit (one parse a line). Several: `_e`, the envelope alone,
    from every line, and `_j<k>` only from a line of its group's tables (`key` is the column of the line's
    table key, read from `_e`). The envelope is never read with another group's images: the JSON reader
    leaves NULL every field after one it cannot convert (a string `ID` of one table where another reads
    an integer), and the envelope may come after the images."""
    grouped = groups(tables, fields_of) or [[]]
    within = f"size <= {MAX_RECORD_BYTES}"
    columns, source = [], {}
    if len(grouped) > 1:
        columns.append((_from_json(ENVELOPE, within), "_e"))
    for k, members in enumerate(grouped):
        union: dict[str, str] = {}
        for table in members:
            union.update(fields_of(table))
            source[table.key] = f"_j{k}"
        image = "struct<" + ", ".join(f"{sql.ident(n)}: {t}" for n, t in union.items()) + ">"
        fields = {"before": image, "after": image} if union else {}
        if len(grouped) == 1:
            columns.append((_from_json({**ENVELOPE, **fields}, within), f"_j{k}"))
        else:
            members_in = f"{key} IN ({', '.join(sql.string(t.key) for t in members)})"
            columns.append((_from_json(fields, f"{within} AND {members_in}"), f"_j{k}"))
    return ImageReads(columns, columns[0][1], source)


def _from_json(fields: dict[str, str], where: str) -> str:
    ddl = ", ".join(f"{sql.ident(n)} {t}" for n, t in fields.items())
    return f"CASE WHEN {where} THEN from_json(text, {sql.string(ddl)}) END"
