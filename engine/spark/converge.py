"""Convergence after the last delivery (docs/contract.md §5, step 6) as one aggregation by distribution key.

For each mapping, the source's final rows that satisfy its `where`, mapped through it, are compared with
the target's rows by DKey on the mapped columns (`converge.compare_mapping` is the reference): a key
diverges when one side lacks it or the two sides' rows differ (as multisets: equal sorted arrays). A
target key another mapping into the table gives is not counted against this one, nor a target row whose
value in a column this mapping sets to a constant differs from that constant.

Each mapping's sides are brought to one shape (typed distribution key, side, and three 32-bit
halves of two independent 64-bit hashes of the compared values, cast to the target's types) and grouped
by key: per key, each side's row count and hash sums stand for its multiset of rows, so unequal
multisets agree on all of them about once in 2^96 keys, the checksum comparison replication
verification tools make, and no row's values travel as text. Only a diverged key is written as JSON.
The counts are one aggregation of that; the examples (up to 20 per mapping) are the first diverged keys
in key order, whose few rows the driver gives to the reference's own `compare_mapping` to write them as
it does. A mapping whose methods Spark cannot compute exactly (see `methods`) maps its source rows with
the reference over Arrow instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from engine.core.types import SqlType
from engine.core.values import ConversionError, conform
from engine.model.io import dump_model
from engine.model.methods import Constant
from engine.model.schema import Model, Table
from engine.run.semantics.context import MappingPlan, RunContext, build_context
from engine.run.semantics.converge import MAX_EXAMPLES, compare_mapping, event_dependent, mapped_source
from engine.spark import sqltext as sql
from engine.spark.canonical import row_values, struct_ddl, token, typed_sql, write_row_sql
from engine.spark.inworker import model_of
from engine.spark.methods import Binding, compile_method, spark_kind_of, where
from engine.spark.methods import conform as conform_sql
from engine.spark.types import key_sql, order_sql, rep, row_from_arrow, type_sql

JSON_OPTIONS = {"timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX", "ignoreNullFields": "false"}
"""`to_json`/`from_json` options that keep a typed key exactly (microseconds, NULL fields)."""


def reports(rows: dict[str, DataFrame], model: Model, sql_natively: bool = True,
            keep: Callable[[DataFrame], DataFrame] = lambda frame: frame) -> list[dict[str, Any]]:
    """Each mapping's convergence report (`{"mapping", "compared", "diverged", "examples"}`), by id, from
    each table's final rows (`row`)."""
    ctx = build_context(model)
    mappings = [m for m in sorted(ctx.mappings.values(), key=lambda m: m.id) if m.dkey is not None]
    mapped = {m.id: _mapped_source(rows[m.source], m, model, sql_natively) for m in mappings}
    out = []
    if mappings:
        keys = keep(sql.union([_compared(group, explaining, mapped, rows, model)
                            for group, explaining in _groups(mappings)]))
        counts = {r["mapping"]: (int(r["compared"]), int(r["diverged"])) for r in keys.groupBy("mapping").agg(
            F.count(F.when(F.col("counted"), 1)).alias("compared"),
            F.count(F.when(F.col("diverged"), 1)).alias("diverged")).collect()}
        diverged = [m for m in mappings if counts.get(m.id, (0, 0))[1]]
        examples = _examples(keys, diverged, mapped, rows, model, ctx) if diverged else {}
    else:
        counts, examples = {}, {}
    for mapping_id in sorted(ctx.mappings):
        mapping = ctx.mappings[mapping_id]
        if mapping.dkey is None:
            out.append({"mapping": mapping.id, "compared": 0, "diverged": 0, "examples": [],
                        "note": "a journal mapping has no distribution key to compare by"})
            continue
        n, d = counts.get(mapping_id, (0, 0))
        out.append({"mapping": mapping.id, "compared": n, "diverged": d, "examples": examples.get(mapping_id, [])})
    return out


def _groups(mappings: list[MappingPlan]) -> list[tuple[list[MappingPlan], list[MappingPlan]]]:
    """The mappings compared in one aggregation: those into one target with one distribution key, in one
    order (each with the others' mapped rows explaining target keys, as `_compared` says), and the
    mappings into it by the same key columns in another order (they only explain)."""
    by_key: dict[tuple[str, tuple[str, ...]], list[MappingPlan]] = {}
    for mapping in mappings:
        by_key.setdefault((mapping.target, tuple(mapping.dkey or ())), []).append(mapping)
    return [(group, [m for m in mappings if m.target == target and m.dkey is not None and tuple(m.dkey) != dkey
                     and set(m.dkey) == set(dkey)]) for (target, dkey), group in by_key.items()]


def _compared(group: list[MappingPlan], explaining: list[MappingPlan], mapped: dict[str, DataFrame],
              rows: dict[str, DataFrame], model: Model) -> DataFrame:
    """The keys of the mappings of one target and distribution key (`_groups`): per mapping and key,
    `mapping`, `counted`, `diverged`, and `key_json` for a diverged one. One aggregation by the typed key
    over the target's rows and each mapping's mapped source rows: a target key another mapping of the
    group (or one of `explaining`) gives is not counted against a mapping. Each side's rows compare as a
    multiset by their count and two independent 64-bit hashes of their values (xxhash64 and murmur3,
    summed in halves so no sum overflows): unequal multisets agree on all three about once in 2^96 keys,
    the checksum comparison replication verification tools make.

    One aggregation a group, not one a mapping: every mapping of a target has the same keys (the union of
    the target's and of the group's mapped rows), and the target's rows are read and hashed once for all
    (B2's mappings in pairs: half the rows shuffled)."""
    target = _table(model, group[0].target)
    dkey = list(group[0].dkey or ())
    key_ddl = _struct_ddl(target, dkey)
    haves = list(dict.fromkeys(tuple(_compared_columns(m)) for m in group))  # the target's values, hashed once each

    def side(frame: DataFrame, name: str, key: str, have: tuple[str, ...] | None, vals: str, extra: list[Any]) \
            -> DataFrame:
        typed = f"CAST({vals} AS {_struct_ddl(target, list(have)) if have else 'struct<_: int>'})"
        hashes = [f"xxhash64({typed}) & 4294967295", f"shiftrightunsigned(xxhash64({typed}), 32)",
                  f"CAST(hash({typed}) AS BIGINT) & 4294967295"] if have is not None else ["0", "0", "0"]
        return frame.select(sql.col(f"CAST({key} AS {key_ddl})", "key"), F.lit(name).alias("side"),
                            *(sql.col(h, f"h{i}") for i, h in enumerate(hashes)), *extra)

    coulds = [sql.col(_could(m, target), f"could{i}") for i, m in enumerate(group)]
    nothing = [F.lit(None).cast("boolean").alias(f"could{i}") for i in range(len(group))]
    parts = [side(rows[target.key], f"t{j}", _key_struct("row", dkey, target), have, _vals("row", target, list(have)),
                  [F.lit(False).alias("unfit"), *coulds]) for j, have in enumerate(haves)]
    for i, mapping in enumerate(group):
        have = tuple(_compared_columns(mapping))
        parts.append(side(mapped[mapping.id], f"s{i}", _key_struct("vals", dkey, target, list(have)), have,
                          _vals("vals", target, list(have)),
                          [F.col("unfit"), *nothing]))
    parts += [side(mapped[other.id], "x", _key_struct("vals", dkey, target, _compared_columns(other)), None, "vals",
                   [F.lit(False).alias("unfit"), *nothing]) for other in explaining]

    def sums(name: str) -> list[Any]:
        this = F.col("side") == name
        return [F.count(F.when(this, 1)).alias(f"n_{name}"),
                *(F.sum(F.when(this, F.col(f"h{i}"))).alias(f"h{i}_{name}") for i in range(3))]

    sides = [f"t{j}" for j in range(len(haves))] + [f"s{i}" for i in range(len(group))]
    aggregated = sql.union(parts).groupBy("key").agg(
        *(c for name in sides for c in sums(name)), F.count(F.when(F.col("side") == "x", 1)).alias("n_x"),
        *(F.max(F.when(F.col("side") == "t0", F.col(f"could{i}").cast("int"))).alias(f"could{i}")
          for i in range(len(group))),
        *(F.max(F.when(F.col("side") == f"s{i}", F.col("unfit").cast("int"))).alias(f"unfit{i}")
          for i in range(len(group))))
    verdicts = []
    for i, mapping in enumerate(group):
        t = f"t{haves.index(tuple(_compared_columns(mapping)))}"
        others = " + ".join(["n_x", *(f"n_s{k}" for k in range(len(group)) if k != i)])
        counted = f"(n_s{i} > 0 OR ({others} = 0 AND coalesce(could{i}, 0) = 1))"
        same = sql.all_of([f"n_s{i} = n_{t}", *(f"h{h}_s{i} <=> h{h}_{t}" for h in range(3))])
        verdicts.append(f"named_struct('mapping', {sql.string(mapping.id)}, 'counted', {counted}, 'diverged', "
                        f"{counted} AND (coalesce(unfit{i}, 0) = 1 OR NOT {same}))")
    return (aggregated.select("key", sql.col(f"inline(array({', '.join(verdicts)}))"))
            .select("mapping", "counted", "diverged",
                    sql.col(f"CASE WHEN diverged THEN to_json(key, {_options()}) END", "key_json")))


def _options() -> str:
    return "map(" + ", ".join(f"{sql.string(k)}, {sql.string(v)}" for k, v in JSON_OPTIONS.items()) + ")"


def _table(model: Model, key: str) -> Table:
    table = model.table(key)
    assert table is not None
    return table


def _type(table: Table, name: str) -> SqlType:
    column = table.column(name)
    assert column is not None
    return column.sql_type


def _compared_columns(mapping: MappingPlan) -> list[str]:
    return [c for c, m in mapping.columns.items() if not event_dependent(m)]


def _key_struct(struct: str, dkey: list[str], target: Table, have: list[str] | None = None) -> str:
    """A row's DKey as a struct in the target's types (`have`: the columns a mapped row holds; the others
    are NULL, as the reference's `mapped.get` gives them)."""
    return "named_struct(" + ", ".join(
        f"{sql.string(c)}, {key_sql(f'{struct}.{sql.ident(c)}', _type(target, c))}" if have is None or c in have
        else f"{sql.string(c)}, CAST(NULL AS {rep(_type(target, c)).ddl})" for c in dkey) + ")"


def _key_json(struct: str, dkey: list[str], target: Table, have: list[str] | None = None) -> str:
    return f"to_json({_key_struct(struct, dkey, target, have)}, {_options()})"


def _struct_ddl(table: Table, columns: list[str]) -> str:
    return "struct<" + ", ".join(f"{sql.ident(c)}: {rep(_type(table, c)).ddl}" for c in columns) + ">"


def _vals(struct: str, table: Table, columns: list[str]) -> str:
    """A row's compared values as a struct to hash, each as it compares (`types.key_sql`: `2.0` and `2` of a
    NUMBER hash alike)."""
    if not columns:
        return "named_struct('_', 0)"
    return "named_struct(" + ", ".join(f"{sql.string(c)}, {key_sql(f'{struct}.{sql.ident(c)}', _type(table, c))}"
                                       for c in columns) + ")"


def _could(mapping: MappingPlan, target: Table) -> str:
    """A target row the mapping could have written: it holds each constant the mapping sets."""
    checks = []
    for name, method in mapping.columns.items():
        if isinstance(method, Constant) and target.column(name) is not None:
            t = _type(target, name)
            try:
                value = conform(method.value, t)
            except ConversionError:
                continue
            checks.append(f"row.{sql.ident(name)} <=> {_literal(value, t)}")
    return sql.all_of(checks)


def _literal(value: Any, t: SqlType) -> str:
    r = rep(t)
    written = token(value, t)
    if r.kind in ("decimal", "double", "timestamp", "opaque"):
        return f"CAST({sql.string(str(written))} AS {r.ddl})"
    if r.kind == "binary":
        return f"unhex({sql.string(str(written))})"
    return sql.lit(value, r.ddl)


# --- the source rows, mapped ----------------------------------------------------------------------------


def _mapped_source(source_rows: DataFrame, mapping: MappingPlan, model: Model, sql_natively: bool) -> DataFrame:
    """The source rows that satisfy the `where`, mapped: `vals` (the compared target columns, typed),
    `unfit` (a value that does not take its target column's type: such a row diverges) and `row`."""
    source, target = _table(model, mapping.source), _table(model, mapping.target)
    columns = _compared_columns(mapping)
    binding = Binding({c.name: (f"row.{sql.ident(c.name)}", c.sql_type) for c in source.columns},
                      {"site": sql.string(source.server), "commit_ts": "CAST(NULL AS TIMESTAMP)",
                       "txn": "CAST(NULL AS STRING)", "op": "CAST(NULL AS STRING)"},
                      "CAST(NULL AS TIMESTAMP)",
                      lambda bound: spark_kind_of(source_rows.select(F.expr(bound)).schema.fields[0].dataType))
    uses_sql = mapping.where is not None or any(node.method == "expression" for m in mapping.columns.values()
                                                 for _, node in m.walk())
    if sql_natively or not uses_sql:
        fields, fits, exact = [], [], []
        for name in columns:
            value = compile_method(mapping.columns[name], binding)
            converted = conform_sql(value, _type(target, name))
            fields.append(f"{sql.string(name)}, {converted.sql}")
            fits.append(converted.fits)
            exact.append(sql.all_of([value.ok, converted.exact]))
        if all(e == "TRUE" for e in exact):
            vals = f"named_struct({', '.join(fields)})" if fields else "named_struct('_', 0)"
            return source_rows.where(sql.col(where(mapping.where, binding))).select(
                sql.col(vals, "vals"), sql.col(f"NOT {sql.all_of(fits)}", "unfit"), "row")
    return _mapped_by_reference(source_rows, mapping, model, target)


def _mapped_by_reference(source_rows: DataFrame, mapping: MappingPlan, model: Model, target: Table) -> DataFrame:
    columns = _compared_columns(mapping)
    out_schema = f"text string, unfit boolean, row {type_sql(source_rows.schema['row'].dataType)}"
    text = source_rows.select("row").mapInArrow(_reference_mapper(dump_model(model), mapping.id), out_schema)
    fields = ", ".join(f"{sql.string(c)}, CAST({typed_sql(f'_r.c{i}', _type(target, c))} AS "
                       f"{rep(_type(target, c)).ddl})" for i, c in enumerate(columns))
    vals = f"named_struct({fields})" if fields else "named_struct('_', 0)"
    return (text.select(sql.col(f"try_variant_get(parse_json(text), '$', {sql.string(struct_ddl(target, columns))})",
                                "_r"), "unfit", "row")
            .select(sql.col(vals, "vals"), "unfit", "row"))



def _reference_mapper(model_text: str, mapping_id: str) -> Any:
    """A `mapInArrow` function: source rows mapped by the reference (`converge.mapped_source`)."""
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        model = model_of(model_text)
        ctx = build_context(model)
        mapping = ctx.mappings[mapping_id]
        source, target = _table(model, mapping.source), _table(model, mapping.target)
        columns = _compared_columns(mapping)
        for batch in batches:
            schema = pa.schema([("text", pa.string()), ("unfit", pa.bool_()), ("row", batch.schema.field("row").type)])
            out = []
            for raw in batch.to_pylist():
                row = row_from_arrow(raw["row"], source)
                for group in mapped_source(ctx, mapping, [row] if row is not None else []).values():
                    for mapped in group:
                        unfit, tokens = False, {}
                        for i, name in enumerate(columns):
                            t = _type(target, name)
                            try:
                                tokens[f"c{i}"] = token(conform(mapped.get(name), t), t)
                            except ConversionError:
                                unfit, tokens[f"c{i}"] = True, None
                        out.append({"text": json.dumps(tokens), "unfit": unfit, "row": raw["row"]})
            yield pa.RecordBatch.from_pylist(out, schema=schema)
    return run


# --- examples -------------------------------------------------------------------------------------------


def _examples(keys: DataFrame, mappings: list[MappingPlan], mapped: dict[str, DataFrame],
              rows: dict[str, DataFrame], model: Model, ctx: RunContext) -> dict[str, list[dict[str, Any]]]:
    """The diverged mappings' first keys' examples, as the reference writes them: one job finds each
    mapping's first diverged keys in key order, one brings their rows, `compare_mapping` writes them."""
    firsts = []
    for mapping in mappings:
        target = _table(model, mapping.target)
        dkey = list(mapping.dkey or ())
        ddl = _struct_ddl(target, dkey)
        firsts.append(keys.where((F.col("mapping") == mapping.id) & F.col("diverged"))
                      .select("mapping", "key_json", sql.col(f"from_json(key_json, {sql.string(ddl)}, {_options()})",
                                                             "key"))
                      .orderBy(*(F.expr(o).asc_nulls_first() for c in dkey
                                for o in order_sql(f"key.{sql.ident(c)}", _type(target, c)))).limit(MAX_EXAMPLES)
                      .select("mapping", "key_json"))
    wanted: dict[str, list[str]] = {}
    for r in sql.union(firsts).collect():
        wanted.setdefault(r["mapping"], []).append(r["key_json"])
    found = []
    for mapping in mappings:
        source, target = _table(model, mapping.source), _table(model, mapping.target)
        dkey, keys_of = list(mapping.dkey or ()), wanted.get(mapping.id, [])
        found.append(rows[mapping.target].where(sql.col(_key_json("row", dkey, target)).isin(keys_of)).select(
            F.lit(mapping.id).alias("mapping"), F.lit("target").alias("side"),
            sql.col(write_row_sql("row", target), "text")))
        have = _compared_columns(mapping)
        found.append(mapped[mapping.id].where(sql.col(_key_json("vals", dkey, target, have)).isin(keys_of)
                                              | F.col("unfit")).limit(10_000).select(
            F.lit(mapping.id).alias("mapping"), F.lit("source").alias("side"),
            sql.col(write_row_sql("row", source), "text")))
    sides: dict[str, dict[str, list[dict[str, Any]]]] = {m.id: {"source": [], "target": []} for m in mappings}
    for r in sql.union(found).collect():
        mapping = ctx.mappings[r["mapping"]]
        table = _table(model, mapping.source if r["side"] == "source" else mapping.target)
        sides[r["mapping"]][r["side"]].append(row_values(r["text"], table) or {})
    out = {}
    for mapping in mappings:
        given = sides[mapping.id]
        tables = ({mapping.source: given["source"] + given["target"]} if mapping.source == mapping.target
                  else {mapping.source: given["source"], mapping.target: given["target"]})
        out[mapping.id] = compare_mapping(ctx, mapping, tables)["examples"][:MAX_EXAMPLES]
    return out
