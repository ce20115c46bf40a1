"""Change records as typed rows: Spark parses each line and types it by its table's replication definition.

Every line is parsed by Spark twice over, each parse for what it does best. `try_parse_json` gives a
VARIANT that keeps each JSON token's kind: one pattern over its `schema_of_variant` checks the record's
shape and the kind of every token against its table, version and op. `from_json`, with an explicit
schema (the envelope and each table's images, `decode_json`), reads the values: reading them out of the
VARIANT instead builds a cast per value: the decoding took about a quarter more CPU. The
values are checked against the version's and the table's current types (ranges, lengths, formats). A
record goes the native way when all of it holds, that is when Spark can show that the reference would
accept it and type it as Spark does (`clean`).

A line that is not clean is not guessed at: the reference's own decoder reads it (`records.decode_record`,
or `debezium.decode_event` for a Debezium file) over Arrow, in the executors. It says reject, with the
reference's reason, or accepts the record and writes it back *normalized* (each value a canonical token,
the images keyed by position in the version's columns), which the native reading types exactly. So the
reasons of rejects are the reference's, word for word, and a well-formed stream never leaves Spark.

A record's images are structs of its table's current columns (`b_<id>`, `a_<id>`), NULL where the
record's version lacks the column (`version` says which it has). A record whose version types a column
otherwise than the table does today (another decimal scale, another family) is read by the reference and
marked `force_python`: its transaction takes the reference's path (`neteffect`), which decodes its text.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from engine.core.types import SqlType, TypeFamily
from engine.core.values import INTEGER_BITS, REAL_MAX
from engine.model.io import dump_model
from engine.model.schema import Model, Table
from engine.run.input.keys import identity_columns
from engine.run.input.records import COMMIT_TS_END, COMMIT_TS_MIN, MAX_RECORD_BYTES, versions_of
from engine.spark import sqltext as sql
from engine.spark.canonical import READ_AS, typed_sql
from engine.spark.decode_json import image_reads
from engine.spark.decode_reference import read_by_reference
from engine.spark.decode_reference import record_of as record_of  # re-exported: `neteffect` reads it here
from engine.spark.jobs import observed
from engine.spark.types import binary_fits, rep, same_rep, table_ids, table_type_sql

SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""Names the kind pattern spells as they are; a table with other names is read by the reference."""

ISO_TIMESTAMP = (r"-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
                 r"([T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?"
                 r"(Z|[+-](0[0-9]|1[0-7]):[0-5][0-9])?)?\z")
"""Timestamps Spark's cast and Python's `fromisoformat` read alike, after their year (what either refuses
goes to the reference)."""
COMMIT_YEARS = r"^(19[0-9]{2}|[2-8][0-9]{3})"
VALUE_YEARS = r"^[1-8][0-9]{3}"
"""Years no offset can carry out of what either side holds: one pattern with the rest (`ISO_TIMESTAMP`), one
match a token (two were about a tenth of the decoding of 1,000,000 records)."""
HEX = r"^(0[xX])?([0-9a-fA-F]{2})*\z"
RED_FLAGS = r"\\u[dD][89a-fA-F]|[:\[,]\s*-0+(\.0+)?([eE][+-]?[0-9]+)?\s*[,}\]]"
"""What Spark's JSON reading holds otherwise than Python's: escaped surrogates (Python keeps a lone one,
which the reference refuses) and a negative zero (Spark drops its sign). Such a line goes to the reference
(a snapshot's line too: `snapshots`)."""
NEGATIVE_ZERO_NEXT = "0.eE,}] \t\n\x0b\f\r"
"""What may follow the `-0` of a negative zero `RED_FLAGS` finds (more zeros, a fraction, an exponent, blanks,
the token's end)."""
MAYBE_RED = "(" + " OR ".join(f"contains(text, {sql.string(chr(92) + 'u')})" if c is None else
                              f"contains(text, {sql.string('-0' + c)})" for c in [None, *NEGATIVE_ZERO_NEXT]) + ")"
"""What every red flag holds (cheap to look for; the pattern runs only on such lines): plain substrings, where
a pattern (`-0[^0-9]`) had been about a tenth of the decoding of every line, its search of each text."""
DECIMAL_15 = r"DECIMAL\(([1-9]|1[0-5]),[0-9]+\)"
"""A JSON number of at most 15 significant digits: Python's float of it prints back the same decimal, so
the reference's `Decimal(repr(float))` is the exact value Spark reads."""
DOUBLE_MAX = 1.7976931348623157e308

RECORD_KINDS = "kind string, file_ord int, line long, text string, table string, reject string"
"""What the reference's reading of a line gives: `record` (a normalized record in `text`), `snapshot` (a
Debezium `r` event: the row as tokens in `text`, its table key in `table`), `skip`, `reject` (the
rejects.jsonl line in `reject`)."""

_RAW = {"text": "string", "int": "bigint", "decimal": "decimal(38,18)", "double": "double", "timestamp": "string",
        "bool": "string", "binary": "string", "opaque": "string"}
"""How a clean token is read before it is checked (`_fits`) and typed (`clean_typed_sql`)."""


@dataclass(frozen=True)
class Decoded:
    """The typed records (wide: a before and an after struct per table) and the reference's reading of
    the other lines (`RECORD_KINDS`)."""

    records: DataFrame
    read_by_reference: DataFrame
    tables: dict[str, str]  # table key -> id (`t3`)
    clean: int | None = None  # how many lines Spark typed itself, where the typing job counted them
    doubtful: int | None = None  # how many it left to the reference (Debezium files' lines aside), so counted
    reference_seconds: float = 0.0  # how long the reference's reading of the rest took, where `keep` ran it


def decode(lines: DataFrame, model: Model, names: Sequence[str], debezium: dict[int, str],
           keep: Callable[[DataFrame], DataFrame] = lambda frame: frame, observe: bool = False) -> Decoded:
    """`lines` (file_ord, line, text) -> typed records. `names` are the files as rejects name them (by
    file_ord); `debezium` maps the file_ord of each Debezium file to its server. `keep` materializes what
    is read twice: every line parsed and typed, and the reference's reading of the doubtful ones.

    `observe`: `keep` runs the frame it is given (the run's does). The typing job then also counts the
    clean lines and the doubtful ones, and where none is doubtful, the typed lines are not read again to
    find none (at a million lines, a scan of every kept row saved). Over Spark Connect, where a
    checkpoint's job reports no metrics, they are read again."""
    ids = table_ids(model)
    is_debezium = F.col("file_ord").isin(list(debezium)) if debezium else F.lit(False)
    parsed = _with_raw_images(lines.where(~is_debezium), model, ids, trusted=False)
    parsed = parsed.withColumn("clean", sql.col(clean(model, ids)))
    # one pass over every line: whether it is clean, and its typed record (kept for both readers below)
    parsed = parsed.select("size", "clean", *record_columns(model, ids, trusted=False))
    counted: dict[str, Any] = {}
    if observe:
        counting = Observation(f"decode_{uuid.uuid4().hex}")  # a name no other query of the session has
        parsed = keep(parsed.observe(counting, F.count(F.when(F.col("clean"), 1)).alias("clean"),
                                     F.count(F.when(~F.col("clean"), 1)).alias("doubtful")))
        counted = observed(counting)
    else:
        parsed = keep(parsed)
    started = time.perf_counter()
    if counted.get("doubtful") == 0 and not debezium:
        read = lines.sparkSession.createDataFrame([], RECORD_KINDS)
    else:
        doubtful = (parsed.where(~F.col("clean")).select("file_ord", "line", "text", "size")
                    .unionByName(lines.where(is_debezium).select("file_ord", "line", "text", "size")))
        read = keep(doubtful.select("file_ord", "line", F.col("text").cast("binary").alias("data"), "size")
                    .mapInArrow(read_by_reference(dump_model(model), list(names), debezium), RECORD_KINDS))
    seconds = time.perf_counter() - started
    normalized = _with_raw_images(read.where(F.col("kind") == "record").select(
        "file_ord", "line", "text", F.lit(0).alias("size")), model, ids, trusted=True)
    records = (parsed.where(F.col("clean")).drop("size", "clean")
               .unionByName(normalized.select(*record_columns(model, ids, trusted=True))))
    return Decoded(records, read, ids, counted.get("clean"), counted.get("doubtful"), seconds)


def _with_raw_images(lines: DataFrame, model: Model, ids: dict[str, str], trusted: bool) -> DataFrame:
    """Lines with the envelope's fields read once (`_site`, `_name`, `_key`, `_op`, `_asked`, `_txn`, `_seq`,
    `_commit`, `_ts`) and each image of its table read as a struct of tokens (`_rb_<id>`, `_ra_<id>`; a
    normalized record's per version, `_rb_<id>_<k>`): one projection each, so that later expressions refer
    to columns instead of repeating the reads.

    A line as written (not `trusted`) keeps `_w`, its VARIANT (`parsed_line`), for the clean test; its values
    are read by `from_json` (`decode_json`: a tenth of the cost of reading them out of the VARIANT). A
    normalized record's values are read out of its VARIANT `v` (few lines: the reference's reading of the
    doubtful ones)."""
    parsed = lines.withColumn("_w", sql.col(f"CASE WHEN size <= {MAX_RECORD_BYTES} THEN {parsed_line('text')} END"))
    if trusted:
        parsed = parsed.withColumn("v", sql.col(first_value("_w")))
        parsed = parsed.select("*", *(sql.col(_get(f"$.{name}", t), f"_{alias}") for name, alias, t in _FIELDS))
    else:
        native = [t for t in model.tables if natively_read(t)]
        reads = image_reads(native, raw_fields)
        (first, alias), rest = reads.columns[0], reads.columns[1:]
        parsed = parsed.withColumn(alias, sql.col(first))
        parsed = parsed.select("*", *(F.col(f"{reads.envelope}.{name}").alias(f"_{short}")
                                      for name, short, _ in _FIELDS))
    parsed = parsed.select("*", F.concat(F.col("_site"), F.lit("."), F.col("_name")).alias("_key"),
                           sql.col("try_cast(_commit AS TIMESTAMP)", "_ts"))
    raws = []
    if not trusted:
        parsed = parsed.select("*", *(sql.col(text, alias) for text, alias in rest))
        for table in native:
            tid, source = ids[table.key], reads.source[table.key]
            this = f"_key = {sql.string(table.key)}"
            raws += [sql.col(sql.case([(this, f"{source}.{name}")]), f"_r{side}_{tid}")
                     for side, name in (("b", "before"), ("a", "after"))]
        return parsed.select("*", *raws)
    for table in model.tables:
        this = f"_key = {sql.string(table.key)}"
        for side, name in (("b", "before"), ("a", "after")):
            tid = ids[table.key]
            for k, number in enumerate(versions_of(table)):  # one column per version: their structs differ
                chosen = this if number is None else f"{this} AND {_version_asked(table)} = {number}"
                raws.append(sql.col(sql.case([(chosen, _canonical_raw(table, number, name))]),
                                    f"_r{side}_{tid}_{k}"))
    return parsed.select("*", *raws)


_FIELDS = (("site", "site", "string"), ("table", "name", "string"), ("op", "op", "string"),
           ("schema_version", "asked", "bigint"), ("txn", "txn", "string"), ("seq", "seq", "bigint"),
           ("commit_ts", "commit", "string"))
"""The envelope's fields: (name in a record, the column it is read into less its `_`, its type)."""


def _version_asked(table: Table) -> str:
    latest = table.latest_definition()
    return f"coalesce(_asked, {latest.version if latest else -1})"


def record_columns(model: Model, ids: dict[str, str], trusted: bool) -> list[Column]:
    """file_ord, line, text (the line; a normalized record's tokens, `normalized`), the envelope, and two
    image structs per table (see `_with_raw_images`)."""
    return [F.col("file_ord"), F.col("line"), F.col("text"), F.lit(trusted).alias("normalized"), *_envelope(model),
            *(sql.col(_image(table, ids[table.key], side, trusted), f"{side}_{ids[table.key]}")
              for table in model.tables for side in ("b", "a"))]


def natively_read(table: Table) -> bool:
    """Whether Spark may read `table`'s records itself: its names are spelled plainly in the kind pattern."""
    names = [table.name, table.server, *(c for v in versions_of(table).values() for c in v.types)]
    return all(SIMPLE_NAME.fullmatch(n) for n in names)


def plain_versions(table: Table) -> dict[int | None, dict[str, SqlType | None]]:
    """The table's versions whose columns hold values as the table's current columns do (`same_rep`):
    only their records can be read natively."""
    out = {}
    for number, definition in versions_of(table).items():
        if all(table.column(c) is None or same_rep(t, table.column(c).sql_type)  # type: ignore[union-attr]
               for c, t in definition.types.items()):
            out[number] = definition.types
    return out


# --- the clean test -------------------------------------------------------------------------------------


def clean(model: Model, ids: dict[str, str]) -> str:
    """True when Spark reads the line (the kinds of its VARIANT `_w`, the values `from_json` read) exactly as
    the reference would accept it."""
    line_ok = sql.all_of(["is_valid_utf8(text)", f"size <= {MAX_RECORD_BYTES}",
                          f"NOT ({MAYBE_RED} AND text RLIKE {sql.string(RED_FLAGS)})",
                          one_json_value("_w", "text"), _txn_ok(), _commit_ok()])
    shape = "schema_of_variant(_w)"
    by_table = []
    for table in model.tables:
        if not natively_read(table):
            continue  # read by the reference
        latest = table.latest_definition()
        by_version = []
        for number, types in plain_versions(table).items():
            if number is None:
                chosen = "(_asked IS NULL OR _asked = 1)"
            elif latest is not None and latest.version == number:
                chosen = f"(_asked IS NULL OR _asked = {number})"
            else:
                chosen = f"_asked = {number}"
            shaped = [(f"_op = {sql.string(kind)}", f"{shape} RLIKE {sql.string(pattern)}")
                      for kind in ("I", "U", "D") for pattern in [record_pattern(table, types, kind)] if pattern]
            if shaped:
                by_version.append((chosen, sql.all_of([sql.case(shaped), _values_ok(table, types, ids[table.key])])))
        if by_version:
            by_table.append((f"_key = {sql.string(table.key)}", sql.case(by_version)))
    if not by_table:
        return "FALSE"
    return f"coalesce({line_ok} AND {sql.case(by_table)}, FALSE)"


def shape_of(value: str) -> str:
    """The shape of a VARIANT as the record and snapshot patterns match it: `schema_of_variant` with each `>`
    written `, >`, so that every field ends with `, ` (a plain `replace`: a pattern was about 3 s of the
    typing of 1,000,000 records)."""
    return f"replace(schema_of_variant({value}), '>', ', >')"


def parsed_line(text: str) -> str:
    """The line `text` parsed inside an array (`[line]`): its first element is the line's first JSON value
    (`first_value`), and whether a second one follows is read off the same parse (`one_json_value`)."""
    return f"try_parse_json(concat('[', {text}, ']'))"


def first_value(parsed: str) -> str:
    """The line's first JSON value, from its `parsed_line`."""
    return f"try_variant_get({parsed}, '$[0]', 'variant')"


def one_json_value(parsed: str, text: str) -> str:
    """Whether the line `text` is one JSON value and nothing after it (blanks aside), as the reference's
    `json.loads` wants, from its `parsed_line`. Spark's JSON functions read the first value of a text and
    ignore what follows (`{"a": 1} junk` parses), so the line is read inside an array: with a trailing rest,
    `[line]` fails or holds more than one element, unless the rest starts with `]` (`{"a": 1}] x` reads as
    `[{"a": 1}]`). A line holding a `]` is read once more, inside an object (`{"x": line}`), which fails
    where a rest follows. One parse a line, where counting the array's elements had been a second (a
    sixth of the typing job)."""
    in_array = f"({parsed} IS NOT NULL AND try_variant_get({parsed}, '$[1]', 'variant') IS NULL)"
    in_object = f"json_object_keys(concat('{{\"x\":', {text}, '}}')) IS NOT NULL"
    return f"({in_array} AND (NOT contains({text}, ']') OR {in_object}))"


def record_pattern(table: Table, types: dict[str, SqlType | None], op: str) -> str | None:
    """The pattern the shape of a clean record of `table` in this version and op matches, as
    `schema_of_variant` writes it of the line's `parsed_line` (`ARRAY<OBJECT<after: ..., txn: STRING>>`);
    None when no record of it can be clean (the version lacks a key column, or a column no clean token can
    fill). Each field ends with `, ` or, the last, before the `>` that closes its object (a lookahead)."""
    keys = set(identity_columns(table)) if table.primary_key or table.unique_indexes else set()
    if not keys <= set(types):
        return None
    items = []
    for name in sorted(types):
        kinds = token_kinds(types[name])
        if name in keys and not kinds:
            return None
        if name not in keys:
            kinds = [*kinds, "VOID"]
        optional = "" if name in keys else "?"
        items.append(f"(?:{re.escape(name)}: (?:{'|'.join(kinds)})(?:, |(?=>))){optional}")
    # an empty image (`OBJECT<>`) only where no column is needed (every item optional): the reference
    # rejects a missing key
    image = f"OBJECT<{''.join(items)}>"
    after = f"after: {image}, " if op in ("I", "U") else "(?:after: VOID, )?"
    before = f"before: {image}, " if op in ("U", "D") else "(?:before: VOID, )?"
    return (f"^ARRAY<OBJECT<{after}{before}commit_ts: STRING, op: STRING, (?:schema_version: (?:BIGINT|VOID), )?"
            "(?:seq: BIGINT, )?site: STRING, table: STRING, txn: (?:STRING|BIGINT)>>\\z")


def token_kinds(t: SqlType | None) -> list[str]:
    """The JSON token kinds a clean value of type `t` may be (a JSON null, VOID, is added by the caller)."""
    if t is None:
        return []
    return {"text": ["STRING", "BIGINT"], "int": ["BIGINT"], "decimal": ["BIGINT", DECIMAL_15],
            "double": ["BIGINT", DECIMAL_15, "DOUBLE"], "timestamp": ["STRING"], "bool": ["BOOLEAN", "BIGINT"],
            "binary": ["STRING"]}.get(rep(t).kind, [])


def _values_ok(table: Table, types: dict[str, SqlType | None], tid: str) -> str:
    """Every value of the record's images fits its version's type and the table's current type."""
    checks = []
    for side in ("b", "a"):
        for name, t in types.items():
            value = f"_r{side}_{tid}.{sql.ident(name)}"
            current = table.column(name)
            for check in {str(x): x for x in (t, current.sql_type if current else None) if x is not None}.values():
                fits = token_fits(value, check)
                if fits is not None:
                    checks.append(f"({value} IS NULL OR coalesce({fits}, FALSE))")
    return sql.all_of(checks)


def token_fits(value: str, t: SqlType) -> str | None:
    """Whether a clean token read as `_RAW` (not NULL; for a decimal, also a snapshot's text or Parquet value)
    is a value of type `t`; None when every one is."""
    kind = rep(t).kind
    if kind == "text":
        if t.family is TypeFamily.CHARACTER and t.length is not None:
            return f"char_length({value}) <= {t.length}"
        return None
    if kind == "int":
        bits = INTEGER_BITS.get(t.name, 64)
        return f"{value} BETWEEN {-(2 ** (bits - 1))} AND {2 ** (bits - 1) - 1}" if bits < 64 else None
    if kind == "decimal":
        # rounded to the column's scale as the reference rounds it; `try_cast`: a value read as `_RAW` holds
        # up to 20 digits before the point, more than DECIMAL(38, s) holds for s > 18, and an ANSI cast of
        # it would fail the query where this only wants FALSE
        scale = t.scale or 0
        digits = (t.precision or 38) - scale
        scaled = f"try_cast({value} AS DECIMAL(38,{scale}))"
        if digits >= 38 - scale:
            return f"{scaled} IS NOT NULL"  # DECIMAL(38, s) holds every value the cast gives
        return f"abs({scaled}) < CAST('{10 ** digits}' AS DECIMAL(38,0))"
    if kind == "double":
        limit = REAL_MAX if t.name == "REAL" else DOUBLE_MAX
        return f"(NOT isnan({value}) AND abs({value}) <= {sql.lit(limit)})"
    if kind == "timestamp":
        pattern = sql.string(VALUE_YEARS + ISO_TIMESTAMP)
        return f"({value} RLIKE {pattern} AND try_cast({value} AS TIMESTAMP) IS NOT NULL)"
    if kind == "bool":
        return f"lower({value}) IN ('true', 'false', '0', '1')"
    if kind == "binary":
        data = f"unhex(regexp_replace({value}, '^0[xX]', ''))"
        return sql.all_of([f"{value} RLIKE {sql.string(HEX)}", binary_fits(data, t)])
    return "FALSE"



def _txn_ok() -> str:
    return "coalesce(_txn <> '', FALSE)"


def _commit_ok() -> str:
    return (f"coalesce(_commit RLIKE {sql.string(COMMIT_YEARS + ISO_TIMESTAMP)}"
            f" AND _ts >= {sql.lit(COMMIT_TS_MIN)} AND _ts < {sql.lit(COMMIT_TS_END)}, FALSE)")


# --- reading typed values -------------------------------------------------------------------------------


def _get(json_path: str, spark_type: str) -> str:
    """The value at `json_path` of the line's VARIANT `v`, read as `spark_type` (NULL for a JSON null)."""
    return f"try_variant_get(v, {sql.string(json_path)}, {sql.string(spark_type)})"


def raw_fields(table: Table) -> dict[str, str]:
    """How a clean record's image of `table` is read: each of its columns in every plain version, as `_RAW`
    reads it (a field the image lacks is NULL)."""
    fields: dict[str, str] = {}
    for types in plain_versions(table).values():
        for name, t in types.items():
            current = table.column(name)
            typed = current.sql_type if current is not None else t
            fields.setdefault(name, _RAW[rep(typed).kind] if typed is not None else "string")
    return fields


def _canonical_raw(table: Table, number: int | None, side: str) -> str:
    """A normalized record's image (keys `c0`, `c1`... in the version's column order) as a struct."""
    types = versions_of(table)[number].types
    ddl = ", ".join(f"c{i}: {READ_AS[rep(t).kind] if t is not None else 'string'}"
                    for i, t in enumerate(types.values()))
    return _get(f"$.{side}", f"struct<{ddl}>")


def _envelope(model: Model) -> list[Column]:
    """site, txn, seq, commit_ts, table (key), op, version (NULL: the implicit one), force_python."""
    numbers, odd = [], []
    for table in model.tables:
        latest = table.latest_definition()
        this = f"_key = {sql.string(table.key)}"
        resolved = "CAST(NULL AS INT)" if latest is None else f"coalesce(_asked, {latest.version})"
        numbers.append((this, resolved))
        versions = [v for v in versions_of(table) if v not in plain_versions(table)]
        if versions:
            flag = f"{resolved} IN ({', '.join(str(v) for v in versions)})" if latest is not None else "TRUE"
            odd.append((this, flag))
    return [F.col("_site").alias("site"), F.col("_txn").alias("txn"), sql.col("coalesce(_seq, 0)", "seq"),
            F.col("_ts").alias("commit_ts"),
            F.col("_key").alias("table"), F.col("_op").alias("op"),
            sql.col(f"CAST({sql.case(numbers)} AS INT)", "version"),
            sql.col(f"coalesce({sql.case(odd)}, FALSE)", "force_python")]


def _image(table: Table, tid: str, side: str, trusted: bool) -> str:
    """The record's before (`b`) or after (`a`) image of `table` as a struct of its current columns; NULL
    for a record of another table or without that image."""
    empty = f"CAST(NULL AS {table_type_sql(table)})"
    if not trusted and not natively_read(table):
        return empty
    if trusted:
        branches = []
        for k, definition in enumerate(versions_of(table).values()):
            raw = f"_r{side}_{tid}_{k}"
            positions = {c: i for i, c in enumerate(definition.types)}
            fields = [f"CAST({typed_sql(f'{raw}.c{positions[c.name]}', c.sql_type)} AS {rep(c.sql_type).ddl})"
                      if c.name in positions else f"CAST(NULL AS {rep(c.sql_type).ddl})" for c in table.columns]
            branches.append((f"{raw} IS NOT NULL", _struct(table, fields)))
        return sql.case(branches, empty)
    raw = f"_r{side}_{tid}"
    known = {n for types in plain_versions(table).values() for n in types}
    fields = [clean_typed_sql(f"{raw}.{sql.ident(c.name)}", c.sql_type) if c.name in known
              else f"CAST(NULL AS {rep(c.sql_type).ddl})" for c in table.columns]
    # only a clean line's values are known to fit (ANSI casts fail on the rest, which the reference reads)
    return sql.case([(f"clean AND {raw} IS NOT NULL", _struct(table, fields))], empty)


def _struct(table: Table, fields: list[str]) -> str:
    return "named_struct(" + ", ".join(f"{sql.string(c.name)}, {f}" for c, f in zip(table.columns, fields,
                                                                                     strict=True)) + ")"


def clean_typed_sql(value: str, t: SqlType) -> str:
    """A clean token read as `_RAW` in the column's Spark type."""
    r = rep(t)
    kind = r.kind
    if kind == "decimal":
        return f"CAST(CAST({value} AS DECIMAL(38,{t.scale or 0})) AS {r.ddl})"
    if kind == "bool":
        return f"lower({value}) IN ('true', '1')"
    return typed_sql(value, t)
