"""One Debezium change event decoded as run input (docs/contract.md §4; its files: `debezium.files`).

One event a line in a `.jsonl` file, as Debezium's PostgreSQL, MySQL, SQL Server, Oracle and Db2 connectors
emit them through Kafka Connect's JSON converter, with the `schema`/`payload` wrapper or without it
(`schemas.enable=false`); in a `.json` file, events one after another however they are printed, or a JSON
array of them (`jsonvalues`: each from the line it starts on). `decode_event` turns one event into what the
run reads:

- `c`, `u`, `d` -> a `ChangeRecord` (op I, U, D) of `<server>`, decoded by the same code as a
  Mapwright record (`records.decode_doc`), so values are typed and checked alike;
- `r` (a snapshot read) -> a `SnapshotRow`, an initial row of that server's table;
- a tombstone, a heartbeat, a transaction-boundary event or a logical decoding message (`op: m`) -> a `Skip`
  (counted, not a record);
- anything else -> a `Reject` with its reason.

Names: the table from `source.table`, tables and columns matched to the model's case-insensitively
(an exact match first; PostgreSQL folds unquoted names to lower case); `source.schema`, `source.db` are
read only to choose between tables whose names differ in case alone or that the model names
`SCHEMA.TABLE`. The transaction is `transaction.id`, else `source.txId`, else one per event; `seq` is
`transaction.total_order` (else file order); `commit_ts` is `source.ts_ns`, `ts_us` or `ts_ms`.

Values are read by the wrapper's logical type where there is one (`DEBEZIUM_TYPES`) and, without a
wrapper, by the model column's type (`values`): see the README's "Replay your captured changes".
The replication-definition version of a record is the one whose columns are the image's (else the
latest that holds them all), as a Debezium event carries its table's columns at the time of the change.
An update without a before image (what REPLICA IDENTITY DEFAULT sends when the key stays) is read, from a
server whose `replica_identity` is `default`, with the key of its after image as its old row; the other old
values are unknown (`replica`), never compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, StrictStr, TypeAdapter
from typing_extensions import TypedDict

from engine.model.schema import Model, Table
from engine.run.input.debezium.values import Unusable, instant, integer_of, iso, read_value
from engine.run.input.declared import validated
from engine.run.input.keys import identity_columns, identity_of
from engine.run.input.records import (
    ChangeRecord,
    Reject,
    Row,
    Version,
    cut,
    decode_doc,
    decode_image,
    line_text,
    parse_json,
    shown,
    shown_reject,
    versions_of,
)

OPS = {"c": "I", "u": "U", "d": "D"}


class SourceDoc(TypedDict):
    """An event's `source` block as declared: the table it names (matched to the model by `find_table`); the
    transaction (`txId`), the commit instant (`ts_ns`, `ts_us`, `ts_ms`) and the qualifiers (`schema`, `db`)
    are read leniently where they are used. Other fields are ignored."""

    table: Annotated[StrictStr, Field(min_length=1)]
    schema: NotRequired[Any]
    db: NotRequired[Any]
    txId: NotRequired[Any]
    ts_ms: NotRequired[Any]
    ts_us: NotRequired[Any]
    ts_ns: NotRequired[Any]


class PayloadDoc(TypedDict):
    """A row change event's payload (the envelope unwrapped) as declared, its fields in the order their
    faults are told: `op` (c, u, d or r), `source`, the `before` and `after` images (objects or null) and
    `transaction` (read leniently: `transaction_id`, `transaction_order`). Other fields are ignored."""

    op: Literal["c", "u", "d", "r"]
    source: SourceDoc
    before: NotRequired[dict[str, Any] | None]
    after: NotRequired[dict[str, Any] | None]
    transaction: NotRequired[Any]


_PAYLOAD: TypeAdapter[PayloadDoc] = TypeAdapter(PayloadDoc)


@dataclass(frozen=True)
class SnapshotRow:
    """An `r` event: an initial row of `table` (a table key), typed by the table's columns."""

    file: str
    line: int
    table: str
    row: Row


@dataclass(frozen=True)
class Skip:
    """An event that carries no row change (tombstone, heartbeat, transaction boundary): counted apart."""

    file: str
    line: int
    reason: str


Event = ChangeRecord | SnapshotRow | Skip | Reject



def decode_event(data: str | bytes, server: str, file: str, line: int, model: Model) -> Event:
    """One line of a Debezium file of `server`, decoded (see the module's docstring)."""
    raw = line_text(data)
    if isinstance(raw, Reject):
        return shown_reject(file, line, raw.reason, raw.raw)
    doc, problem = parse_json(raw)
    if problem is not None:
        return shown_reject(file, line, problem, raw)
    try:
        return _decode(doc, raw, server, file, line, model)
    except Unusable as exc:
        return shown_reject(file, line, str(exc), raw)
    except (TypeError, AttributeError, KeyError) as exc:  # a schema or payload of some other shape
        return shown_reject(file, line, f"not a Debezium event of a known shape ({type(exc).__name__}: "
                            f"{cut(str(exc))})", raw)


def _decode(doc: Any, raw: str, server: str, file: str, line: int, model: Model) -> Event:
    schema, payload = unwrap(doc)
    skipped = skip_reason(payload, schema)
    if skipped is not None:
        return Skip(file, line, skipped)
    if not isinstance(payload, dict):
        raise Unusable("not a Debezium change event (expected a JSON object)")
    if "ddl" in payload or "tableChanges" in payload:
        raise Unusable("a schema change event: Mapwright reads row changes (the model holds the schema)")
    _, faults = validated(_PAYLOAD, payload)
    op = payload.get("op")
    if "op" in faults:
        known = "c, u, d or r"
        if op == "t":
            raise Unusable(f"a truncate (op 't') is not replayed (expected op {known})")
        raise Unusable(f"unknown op {shown(op)} (expected {known})")
    if "source" in faults:
        raise Unusable("source.table is missing" if len(faults["source"]["loc"]) > 1 else "no source block")
    op, source = payload["op"], payload["source"]
    table = find_table(model, server, source)
    for side in ("before", "after"):
        if side in faults:
            raise Unusable(f"{side} is not an object")
    images = {side: payload.get(side) for side in ("before", "after")}
    fields = field_schemas(schema)
    found = model.server(server)
    dbms = found.dbms if found is not None else ""
    if op == "r":
        return snapshot_row(images["after"], fields.get("after", {}), table, dbms, file, line)
    named = {side: (None if image is None else renamed(image, fields.get(side, {}), table, dbms))
             for side, image in images.items()}
    if op == "u" and named["before"] is None:
        if identity_of(model, server) != "default" or named["after"] is None:
            raise Unusable("an update without its before image (capture the whole row: PostgreSQL REPLICA "
                           "IDENTITY FULL, Oracle supplemental logging of all columns; or set the server's "
                           "replica_identity to default)")
        # REPLICA IDENTITY DEFAULT sends no old row when the key stays: the key is the new row's, the rest unknown
        after = named["after"]
        named["before"] = {c: after[c] for c in identity_columns(table) if c in after}
    version = choose_version(table, [image for image in named.values() if image is not None])
    record: dict[str, Any] = {"site": server, "table": table.name, "op": OPS[op],
                              "txn": transaction_id(payload, source, file, line),
                              "seq": transaction_order(payload), "commit_ts": commit_time(source),
                              "schema_version": version.number if version.number is not None else 1}
    for side, image in named.items():
        if image is not None:
            record[side] = image
    if op == "d":
        record.pop("after", None)
    if op == "c":
        record.pop("before", None)
    return decode_doc(record, raw, file, line, model)


# --- the envelope ------------------------------------------------------------

def unwrap(doc: Any) -> tuple[dict[str, Any] | None, Any]:
    """(the value schema or None, the payload) of an event with or without the `schema`/`payload` wrapper."""
    if isinstance(doc, dict) and "payload" in doc and set(doc) <= {"schema", "payload"}:
        schema = doc.get("schema")
        return (schema if isinstance(schema, dict) else None), doc["payload"]
    return None, doc


def skip_reason(payload: Any, schema: dict[str, Any] | None) -> str | None:
    """Why an event carries no row change and is skipped, or None."""
    if payload is None:
        return "tombstone"
    if not isinstance(payload, dict):
        return None
    name = (schema or {}).get("name")
    if name == "io.debezium.connector.common.Heartbeat" or (set(payload) <= {"ts_ms", "ts_us", "ts_ns"} and payload):
        return "heartbeat"
    if payload.get("status") in ("BEGIN", "END") and "id" in payload and "op" not in payload:
        return f"transaction boundary ({payload['status']})"
    if payload.get("op") == "m":  # PostgreSQL's pg_logical_emit_message(): an application's note, no row change
        return "logical decoding message (op 'm')"
    return None


def field_schemas(schema: dict[str, Any] | None) -> dict[str, dict[str, dict[str, Any]]]:
    """{"before"/"after": {column: its field schema}} from the wrapper's schema; empty without one."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for envelope_field in _list((schema or {}).get("fields")):
        if isinstance(envelope_field, dict) and envelope_field.get("field") in ("before", "after"):
            out[envelope_field["field"]] = {f["field"]: f for f in _list(envelope_field.get("fields"))
                                            if isinstance(f, dict) and isinstance(f.get("field"), str)}
    return out


def _list(value: Any) -> list[Any]:
    """A schema's `fields`, or nothing when it holds something else than a list."""
    return value if isinstance(value, list) else []


def find_table(model: Model, server: str, source: dict[str, Any]) -> Table:
    """The model table `source.table` names on `server`: exact, else case-insensitive; `source.schema` and
    `source.db` choose between several (`SCHEMA.TABLE` names, or names that differ in case alone)."""
    name = source.get("table")
    if not isinstance(name, str) or not name:
        raise Unusable("source.table is missing")
    exact = model.table(f"{server}.{name}")
    if exact is not None:
        return exact
    qualifiers = [q for q in (source.get("schema"), source.get("db")) if isinstance(q, str) and q]
    candidates = folded_tables(model).get((server, name.casefold()), [])
    if len(candidates) > 1:
        qualified = [t for t in candidates if any(t.name.casefold() == f"{q}.{name}".casefold() for q in qualifiers)]
        candidates = qualified or candidates
    if not candidates:
        raise Unusable(f"unknown table {server}.{cut(name)}")
    if len(candidates) > 1:
        shown = ", ".join(t.name for t in candidates)
        raise Unusable(f"table {cut(name)!r} is ambiguous on {server} ({shown}); source.schema/db do not decide")
    return candidates[0]


_FOLDED: dict[int, tuple[object, dict[tuple[str, str], list[Table]]]] = {}
"""Tables by (server, name case-folded), also by the last part of a `SCHEMA.TABLE` name, per model index
(kept with it, so that an index's id is never reused while its entry lives); a few models at a time."""


def folded_tables(model: Model) -> dict[tuple[str, str], list[Table]]:
    """The model's tables by (server, case-folded name or last part of it), built once per model index."""
    index = model.index()
    entry = _FOLDED.get(id(index))
    if entry is None or entry[0] is not index:
        folded: dict[tuple[str, str], list[Table]] = {}
        for t in model.tables:
            name = t.name.casefold()
            for spelling in dict.fromkeys((name, name.rsplit(".", 1)[-1])):
                folded.setdefault((t.server, spelling), []).append(t)
        while len(_FOLDED) >= 8:
            _FOLDED.pop(next(iter(_FOLDED)))
        entry = _FOLDED[id(index)] = (index, folded)
    return entry[1]


def renamed(image: dict[str, Any], fields: dict[str, dict[str, Any]], table: Table, dbms: str) -> Row:
    """An image's columns under the model's names (exact, else case-insensitive), values read by their
    logical type (`fields`) or the model column's type; a column the table lacks keeps its name, so
    that the version check names it."""
    exact = {c.name: c for c in table.columns}
    folded: dict[str, list[str]] = {}
    for c in table.columns:
        folded.setdefault(c.name.casefold(), []).append(c.name)
    out: Row = {}
    given: dict[str, str] = {}
    for name, value in image.items():
        matches = [name] if name in exact else folded.get(name.casefold(), [])
        if len(matches) > 1:
            raise Unusable(f"column {cut(name)!r} matches several columns of {table.key}: {', '.join(matches)}")
        target = matches[0] if matches else name
        if target in given:
            raise Unusable(f"columns {cut(given[target])!r} and {cut(name)!r} both name {table.key}.{target}")
        given[target] = name
        column = table.column(target)
        try:
            out[target] = read_value(value, fields.get(name), column.sql_type if column else None, dbms)
        except Unusable as exc:
            raise Unusable(f"column {target!r}: {exc}") from None
    return out


def choose_version(table: Table, images: list[Row]) -> Version:
    """The replication definition an event's images are of: the one with exactly their columns, else the
    latest holding all of them (the images then leave the others NULL), else the latest (which rejects)."""
    versions = versions_of(table)
    columns: set[str] = set().union(*(set(image) for image in images)) if images else set()
    ordered = sorted(versions.values(), key=lambda v: -1 if v.number is None else v.number, reverse=True)
    for version in ordered:
        if set(version.types) == columns:
            return version
    for version in ordered:
        if columns <= set(version.types):
            return version
    return ordered[0]


def transaction_id(payload: dict[str, Any], source: dict[str, Any], file: str, line: int) -> str:
    """`transaction.id`, else `source.txId`, else one transaction for this event alone."""
    transaction = payload.get("transaction")
    if isinstance(transaction, dict) and _is_id(transaction.get("id")):
        return str(transaction["id"])
    if _is_id(source.get("txId")):
        return str(source["txId"])
    return f"{Path(file).name}:{line:012d}"  # one of its own, in file order where a commit instant is shared


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and value != ""


def transaction_order(payload: dict[str, Any]) -> int:
    """`transaction.total_order` (a number or numeric text); 0 without one, so that file order decides."""
    transaction = payload.get("transaction")
    order = transaction.get("total_order") if isinstance(transaction, dict) else None
    if order is None:
        return 0
    number = integer_of(order)
    if number is None:
        raise Unusable(f"transaction.total_order must be an integer, got {shown(order)}")
    return number


def commit_time(source: dict[str, Any]) -> str:
    """The commit instant as ISO text, from `source.ts_ns`, `ts_us` or `ts_ms` (the finest present)."""
    for key, per_second in (("ts_ns", 1_000_000_000), ("ts_us", 1_000_000), ("ts_ms", 1_000)):
        if source.get(key) is None:
            continue
        count = integer_of(source[key])
        if count is None:
            raise Unusable(f"bad timestamp: source.{key} {shown(source[key])} is not a whole number")
        return iso(instant(count, per_second, f"source.{key}"))
    raise Unusable("missing commit time (source.ts_ms)")


def snapshot_row(image: Any, fields: dict[str, dict[str, Any]], table: Table, dbms: str, file: str,
                 line: int) -> SnapshotRow:
    """An `r` event's after image as an initial row of `table`, typed by the table's current columns."""
    if image is None:
        raise Unusable("a snapshot read (op 'r') has no after image")
    named = renamed(image, fields, table, dbms)
    current = Version(None, {c.name: c.sql_type for c in table.columns})
    for name in named:
        if name not in current.types:
            raise Unusable(f"column {shown(name)} is not in {table.key}")
    row = decode_image(named, current, table, keyed=False)  # a NULL key stops the run, as in snapshots/
    if isinstance(row, str):
        raise Unusable(f"after: {row}")
    return SnapshotRow(file, line, table.key, row)
