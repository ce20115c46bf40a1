"""Deploy a model's PostgreSQL-to-PostgreSQL mappings with PostgreSQL's logical replication (16+, 18 preferred).

`mapwright export MODEL --to postgresql --out DIR` writes, per PostgreSQL server, the SQL that sets the
server up (settings, target tables, publications, subscriptions) and a README.txt saying what to run where,
in which order, plus the findings: everything PostgreSQL cannot express, per mapping, never dropped silently
(`engine.deploy.pgexport` writes the folder, `engine.deploy.pgfindings` groups the findings).

How a mapping becomes logical replication:

- a publication on the source server, `FOR TABLE` the source table with a column list (the target columns
  copied from same-named source columns) and a row filter (the mapping's `where`, read as Spark SQL and
  written as PostgreSQL by sqlglot, every identifier quoted);
- one subscription per (publisher, subscriber) pair, on the subscriber, with `origin = none` (Mapwright's
  rule: a change applied from elsewhere is not passed on, which also stops bidirectional pairs looping) and
  `copy_data = false` (each site starts from its own snapshot, as in a Mapwright run).

PostgreSQL matches a published table to the subscriber's table by name and columns by name, and it resolves
conflicts one fixed way per type. What corresponds (PostgreSQL 18's conflict types):

- insert_exists (error; the subscription stops until fixed) ~ on_insert_exists: error (Mapwright queues
  only that change);
- update_missing (skipped) ~ on_update_missing: discard (error: not applied either, but queued);
- delete_missing (skipped) ~ on_delete_missing: discard (error: ditto);
- update_origin_differs (the remote row is applied) ~ one column group of every mapped column whose chain
  starts with `overwrite`;
- delete_origin_differs (the row is deleted) ~ nothing: Mapwright queues a delete whose old values differ.

Tables are named with their schema where the model gives one (`"sales"."ORDERS"`): PostgreSQL matches a
published table by schema and name. A generated column is never published (PostgreSQL 18 refuses a virtual
one in a column list, and the subscriber computes its own), so nothing is copied into one. A partitioned
table is published through its root (`publish_via_partition_root = true`): the subscriber's table of the
root's name gets the changes of every partition, and PostgreSQL takes a column list only that way.

Everything else is a finding. Nothing from the model is pasted into SQL: identifiers are quoted by
SQLAlchemy's PostgreSQL identifier preparer, literals are quoted here, the row filter is sqlglot's rendering
of a parsed tree, and connection strings are psql variables (`:'conninfo_hq'`) the README explains, so no
credential is ever written into the export.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.dialects import postgresql as pg_dialect

from engine.ddl import DdlError, comment, load_dialect, table_ddl
from engine.deploy.pgfilter import row_filter_sql
from engine.deploy.pgfindings import DeployFinding, finding
from engine.model.methods import Column
from engine.model.schema import Mapping, Model, Table, TableConflicts

PG_MAX_NAME = 63  # NAMEDATALEN - 1: longer identifiers are cut by the server, so names are kept within it
_PREPARER = pg_dialect.dialect(paramstyle="qmark").identifier_preparer  # type: ignore[no-untyped-call]  # no %%


class DeployError(Exception):
    """A deployment that cannot be written (a name PostgreSQL cannot hold)."""


@dataclass(frozen=True)
class Publication:
    """One deployed mapping: published on the source server, subscribed on the target server."""

    name: str
    mapping: str
    server: str
    subscriber: str
    table: Table
    columns: tuple[str, ...] | None  # None: every column
    row_filter: str | None


@dataclass(frozen=True)
class Subscription:
    name: str
    server: str
    publisher: str
    publications: tuple[str, ...]


@dataclass
class PgPlan:
    """What to create on each PostgreSQL server, and what could not be deployed."""

    servers: list[str]
    tables: dict[str, list[Table]]
    publications: list[Publication]
    subscriptions: list[Subscription]
    replica_full: list[Table] = field(default_factory=list)
    findings: list[DeployFinding] = field(default_factory=list)

    def subscription(self, publisher: str, subscriber: str) -> Subscription | None:
        return next((s for s in self.subscriptions if s.publisher == publisher and s.server == subscriber), None)


# --- quoting ---------------------------------------------------------------------------------------


def ident(name: str) -> str:
    """A PostgreSQL quoted identifier, always quoted; refuses what PostgreSQL cannot hold."""
    if "\x00" in name:
        raise DeployError(f"the name {name!r} holds a NUL character, which PostgreSQL cannot")
    if len(name.encode()) > PG_MAX_NAME:
        raise DeployError(f"the name {name!r} is longer than PostgreSQL's {PG_MAX_NAME} bytes")
    return str(_PREPARER.quote_identifier(name))


def literal(text: str) -> str:
    """A standard SQL string literal (PostgreSQL's standard_conforming_strings, on since 9.1)."""
    if "\x00" in text:
        raise DeployError(f"the text {text!r} holds a NUL character, which PostgreSQL cannot")
    return "'" + text.replace("'", "''") + "'"


def object_name(prefix: str, text: str) -> str:
    """`prefix_text`, kept within 63 bytes by a digest suffix so two long names never collide when cut."""
    name = f"{prefix}_{text}".replace("\x00", "")
    if len(name.encode()) <= PG_MAX_NAME:
        return name
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    cut = name.encode()[: PG_MAX_NAME - 11].decode(errors="ignore")
    return f"{cut}_{digest}"


def slot_name(prefix: str, text: str) -> str:
    """`prefix_text` as a subscription name that is also a valid replication slot name.

    PostgreSQL names a subscription's slot on the publisher after the subscription, and a slot name may
    only hold lower-case ASCII letters, digits and `_`: `CREATE SUBSCRIPTION "mw_HQ_to_east-1"` fails on
    the publisher. Any other character becomes `_`, and a name that had to change carries a digest of the
    original, so `HQ` and `hq` (or `eu-west` and `eu_west`) still give two names."""
    plain = re.sub(r"[^a-z0-9_]", "_", text.lower())
    if plain != text:
        plain = f"{plain}_{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return object_name(prefix, plain)


def safe_token(text: str, taken: set[str]) -> str:
    """An ASCII word (letters, digits, _) for a file or psql variable name, unique among `taken` ignoring
    case: the servers `HQ` and `hq` would otherwise share one folder on macOS's and Windows' file systems,
    one server's scripts overwriting the other's."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", text)[:40] or "server"
    token, n = base, 2
    while token.lower() in taken:
        token, n = f"{base}_{n}", n + 1
    taken.add(token.lower())
    return token


# --- the plan --------------------------------------------------------------------------------------


def plan_deployment(model: Model) -> PgPlan:
    """Which publications, subscriptions and tables deploy the model, and the findings for the rest."""
    pg_servers = [s.id for s in model.servers if s.dbms == "postgresql"]
    plan = PgPlan(pg_servers, {s: [] for s in pg_servers}, [], [])
    for mapping in model.mappings:
        publication = _plan_mapping(model, mapping, plan)
        if publication is not None:
            plan.publications.append(publication)
            for table in (publication.table, model.table(mapping.target)):
                if table is not None and table not in plan.tables[table.server]:
                    plan.tables[table.server].append(table)
    pairs = dict.fromkeys((p.server, p.subscriber) for p in plan.publications)
    for publisher, subscriber in pairs:
        names = tuple(p.name for p in plan.publications if (p.server, p.subscriber) == (publisher, subscriber))
        plan.subscriptions.append(Subscription(slot_name("mw", f"{publisher}_to_{subscriber}"), subscriber,
                                               publisher, names))
    if not plan.publications:
        plan.findings.append(DeployFinding("not_deployed", "no mapping of the model is between two PostgreSQL "
                                           "servers and expressible as logical replication: nothing deploys"))
    else:
        plan.findings.append(DeployFinding(
            "differs", "a DELETE whose old values differ from the subscriber's row: PostgreSQL deletes the row "
            "(delete_origin_differs) where Mapwright sends the delete to the error queue"))
        plan.findings.append(DeployFinding(
            "differs", "the schedule (delays and outages of schedule.json) is not deployed: PostgreSQL delivers "
            "each change as soon as the subscriber can apply it", topic="schedule"))
    return plan


def published_columns(table: Table) -> list[str]:
    """The columns PostgreSQL publishes of `table`: all but the generated ones."""
    return [c.name for c in table.columns if c.generated is None]


def _plan_mapping(model: Model, mapping: Mapping, plan: PgPlan) -> Publication | None:
    """A publication for the mapping, or None with a `not_deployed` finding saying why."""

    def note(kind: str, template: str, *args: object, column: str | None = None) -> None:
        plan.findings.append(finding(kind, template, *args, mapping=mapping.id, column=column))

    source, target = model.table(mapping.source), model.table(mapping.target)
    if source is None or target is None:
        note("not_deployed", "its source or target table is not in the model")
        return None
    for side, table in (("source", source), ("target", target)):
        server = model.server(table.server)
        if server is None or server.dbms != "postgresql":
            note("not_deployed", "its {} server {} is {}, not PostgreSQL", side, table.server,
                 server.dbms if server else "unknown")
            return None
    if source.server == target.server:
        note("not_deployed", "source and target are on the same server; logical replication runs between servers")
        return None
    if source.name != target.name:
        note("not_deployed", "PostgreSQL replicates a table to the table of the same name; the target {} is not "
             "named {}", target.name, source.name)
        return None
    if source.db_schema and target.db_schema and source.db_schema != target.db_schema:
        note("not_deployed", "PostgreSQL replicates a table to the table of the same schema and name; the target "
             "is in schema {}, the source in {}", target.db_schema, source.db_schema)
        return None
    if source.partitioning is not None and not source.partitioning.publish_via_partition_root:
        note("not_deployed", "the source table {} is partitioned and the model says publish_via_partition_root "
             "false: PostgreSQL would publish each partition as a table of its own name, and refuses a column "
             "list for a partitioned table published that way", source.key)
        return None
    twin = next((p for p in plan.publications if p.table == source and p.subscriber == target.server), None)
    if twin is not None:  # checked before anything is recorded: a twin must not set REPLICA IDENTITY FULL
        note("not_deployed", "mapping {} already replicates {} to server {}, and one subscription cannot take a "
             "table twice", twin.mapping, twin.table.key, twin.subscriber)
        return None
    copied = _copied_columns(mapping, source, target, note)
    identity = list(source.primary_key)
    row_filter: str | None = None
    filter_columns: tuple[str, ...] = ()
    if mapping.where:
        row_filter, filter_columns, problem = row_filter_sql(mapping.where)
        if problem:
            note("not_deployed", problem)
            return None
    publishable = published_columns(source)
    all_columns = set(copied) == set(publishable)
    full = _full_identity_reason(plan, source, target, filter_columns)
    generated = [c.name for c in source.columns if c.generated is not None]
    if full and generated:
        note("not_deployed", "{}, so PostgreSQL needs REPLICA IDENTITY FULL on the source, whose generated "
             "column(s) ({}) it does not publish: PostgreSQL 18 then refuses every UPDATE and DELETE of the source "
             "table", full, ", ".join(generated))
        return None
    if full and not all_columns:
        note("not_deployed", "{}, so PostgreSQL needs REPLICA IDENTITY FULL on the source, which needs every "
             "column published; this mapping leaves some out", full)
        return None
    partial = [p.mapping for p in plan.publications if p.table == source and p.columns is not None
               and len(p.columns) < len(publishable)]
    if full and partial:
        note("not_deployed", "{}, so PostgreSQL needs REPLICA IDENTITY FULL on the source; mapping(s) {} publish "
             "only some of its columns, and with FULL PostgreSQL would refuse every UPDATE and DELETE of the "
             "source table", full, ", ".join(partial))
        return None
    if not set(identity) <= set(copied):
        note("not_deployed", "PostgreSQL must publish the source's primary key columns ({}); the mapping does not "
             "copy them all", ", ".join(identity))
        return None
    if target.primary_key and not set(target.primary_key) <= set(copied):
        note("not_deployed", "the target's primary key ({}) is how PostgreSQL finds the row to change; the mapping "
             "does not copy all of it", ", ".join(target.primary_key))
        return None
    if full and source not in plan.replica_full:
        plan.replica_full.append(source)
        note("differs", "the source table {} is set to REPLICA IDENTITY FULL ({}): every update logs the whole "
             "old row", source.key, full)
    _conflict_findings(model.conflicts_for(target.key), target, copied, note)
    dkey = mapping.distribution_key or target.primary_key
    if set(dkey) != set(target.primary_key):
        note("differs", "the distribution key ({}) is not the target's primary key: PostgreSQL finds rows by the "
             "primary key (replica identity)", ", ".join(dkey))
    return Publication(object_name("mw", mapping.id), mapping.id, source.server, target.server, source,
                       None if all_columns and full else tuple(c for c in publishable if c in copied),
                       row_filter)


def _copied_columns(mapping: Mapping, source: Table, target: Table, note: Callable[..., None]) -> list[str]:
    """The target columns PostgreSQL copies: each a `column` of the source column of its name, neither of
    them generated. The others are `not_deployed` findings."""
    copied: list[str] = []
    for target_col, method in mapping.columns.items():
        target_def = target.column(target_col)
        if target_def is not None and target_def.generated is not None:
            note("not_deployed", "the target column is generated (the subscriber computes it): PostgreSQL copies "
                 "nothing into it; left out", column=target_col)
        elif isinstance(method, Column) and method.input == target_col and (col := source.column(target_col)):
            if col.generated is None:
                copied.append(target_col)
            else:
                note("not_deployed", "the source column is generated: PostgreSQL does not publish it (a virtual one "
                     "cannot be, a stored one is computed again where the target column is generated too); "
                     "left out", column=target_col)
        elif isinstance(method, Column):
            note("not_deployed", "copied from {}: PostgreSQL copies a column only to the column of the same name; "
                 "left out", method.input, column=target_col)
        else:
            note("not_deployed", "method {}: PostgreSQL only copies columns; left out", method.method,
                 column=target_col)
    return copied


def _full_identity_reason(plan: PgPlan, source: Table, target: Table, filter_columns: tuple[str, ...]) -> str | None:
    """Why the source table needs REPLICA IDENTITY FULL for this mapping, or None.

    An update or delete carries the publisher's replica identity (its primary key) as the old row. PostgreSQL
    refuses a row filter on other columns, and the subscriber can apply the change only when its own primary
    key lies within those columns: a target without a primary key, or with a wider one, stops the
    subscription at the first UPDATE unless the publisher sends the whole old row (FULL). FULL is per table,
    so once a mapping set it, every mapping of that source table publishes under it."""
    identity = set(source.primary_key)
    if source in plan.replica_full:
        first = next((p.mapping for p in plan.publications if p.table == source and p.columns is None), "another")
        return f"mapping {first} has set the source table to REPLICA IDENTITY FULL"
    if not identity:
        return "the source table has no primary key"
    if not set(filter_columns) <= identity:
        return "the row filter reads columns outside the source's primary key"
    if not target.primary_key:
        return "the target table has no primary key"
    if not set(target.primary_key) <= identity:
        return (f"the target's primary key ({', '.join(target.primary_key)}) is not within the source's "
                f"({', '.join(source.primary_key)}), which is all an update sends")
    return None


def _conflict_findings(conflicts: TableConflicts | None, target: Table, copied: list[str],
                       note: Callable[..., None]) -> None:
    """Findings for the target table's conflict settings PostgreSQL does not share (see the module's table)."""
    c = conflicts or TableConflicts(table=target.key)
    if c.on_insert_exists != "error":
        note("differs", "on_insert_exists: {}: PostgreSQL raises insert_exists and stops applying the "
             "subscription until the row is dealt with", c.on_insert_exists)
    for policy, name, pg in ((c.on_update_missing, "on_update_missing", "update_missing"),
                             (c.on_delete_missing, "on_delete_missing", "delete_missing")):
        if policy == "insert":
            note("differs", f"{name}: insert: PostgreSQL skips the change ({pg}), it never inserts it")
        elif policy == "error":
            note("differs", f"{name}: error: PostgreSQL skips the change ({pg}) and logs it; the table ends the "
                 "same but nothing is queued")
    mapped = [col for col in copied if col not in target.primary_key]
    groups = [g for g in c.column_groups if set(g.columns) & set(mapped)]
    grouped = {col for g in groups for col in g.columns}
    if len(groups) > 1:
        note("differs", "{} column groups: PostgreSQL applies a remote update to the whole row "
             "(update_origin_differs), never one group alone", len(groups))
    for g in groups:
        if not g.resolution or g.resolution[0].method != "overwrite":
            first = g.resolution[0].method if g.resolution else "no method"
            note("differs", "column group {}: {}: PostgreSQL resolves every update conflict as overwrite (the "
                 "remote row is applied)", g.name, first)
    shadow = [col for col in mapped if col not in grouped]
    if shadow:
        note("differs", "columns {} are in no column group: Mapwright sends a differing update of them to the "
             "error queue, PostgreSQL applies it (overwrite)", ", ".join(shadow))
    if c.unique:
        note("differs", "unique-index resolutions: PostgreSQL raises the violation and stops applying the "
             "subscription (insert_exists / update_exists / multiple_unique_conflicts)")
    if c.scope == "transaction":
        note("differs", "scope: transaction: PostgreSQL resolves each row by itself")


# --- SQL -------------------------------------------------------------------------------------------


def settings_sql(plan: PgPlan) -> list[str]:
    """ALTER SYSTEM for logical replication and commit timestamps (conflict origins); needs a restart."""
    slots = max(10, 2 * len(plan.subscriptions) + 4)
    return [
        "ALTER SYSTEM SET wal_level = 'logical'",
        "ALTER SYSTEM SET track_commit_timestamp = 'on'",
        f"ALTER SYSTEM SET max_replication_slots = {slots}",
        f"ALTER SYSTEM SET max_wal_senders = {slots}",
        f"ALTER SYSTEM SET max_logical_replication_workers = {slots}",
        f"ALTER SYSTEM SET max_worker_processes = {slots + 8}",
    ]


def table_ident(table: Table, name: str | None = None) -> str:
    """The table's name (or `name`, a partition of it) quoted, after its quoted schema where it has one."""
    quoted = ident(table.name if name is None else name)
    return f"{ident(table.db_schema)}.{quoted}" if table.db_schema else quoted


def schemas_sql(tables: list[Table]) -> list[str]:
    """CREATE SCHEMA IF NOT EXISTS for each schema the tables are in, before the tables are made."""
    return [f"CREATE SCHEMA IF NOT EXISTS {ident(schema)}"
            for schema in dict.fromkeys(t.db_schema for t in tables if t.db_schema)]


def replica_full_sql(table: Table) -> list[str]:
    """REPLICA IDENTITY FULL for the table and each of its partitions: a change is logged by the partition
    that holds the row, with that partition's replica identity, so setting it on the root alone does not do."""
    parts = table.partitioning.partitions if table.partitioning else []
    return [f"ALTER TABLE {table_ident(table, name)} REPLICA IDENTITY FULL"
            for name in [table.name, *(p.name for p in parts)]]


def tables_sql(plan: PgPlan, server: str) -> list[str]:
    """CREATE TABLE for the server's published and subscribed tables, by `engine.ddl` (quoted names), after
    their schemas."""
    dialect = load_dialect("postgresql")
    out: list[str] = []
    for table in plan.tables.get(server, []):
        try:
            out.extend(s for s in schemas_sql([table]) if s not in out)
            out.append(table_ddl(table, dialect, "postgresql").rstrip().rstrip(";"))
            if table in plan.replica_full:
                out.extend(replica_full_sql(table))
        except (DdlError, DeployError) as exc:
            raise DeployError(f"table {table.key}: {str(exc).removeprefix(f'{table.key}: ')}") from None
    return out


def publications_sql(plan: PgPlan, server: str) -> list[str]:
    """CREATE PUBLICATION on `server` for each mapping it publishes; a name PostgreSQL cannot hold is a
    DeployError naming the mapping and table, so the user knows which name to shorten. A partitioned table
    is published through its root (`publish_via_partition_root`), the only way PostgreSQL takes a column
    list for it, and the subscriber's table of the root's name receives every partition's changes."""
    out = []
    for p in plan.publications:
        if p.server != server:
            continue
        try:
            columns = f" ({', '.join(ident(c) for c in p.columns)})" if p.columns is not None else ""
            name = f"{ident(p.name)} FOR TABLE ONLY {table_ident(p.table)}"
        except DeployError as exc:
            raise DeployError(f"mapping {p.mapping}, table {p.table.key}: {exc}") from None
        where = f" WHERE ({p.row_filter})" if p.row_filter else ""
        via_root = ", publish_via_partition_root = true" if p.table.partitioning is not None else ""
        out.append(f"CREATE PUBLICATION {name}{columns}{where} WITH (publish = 'insert, update, delete'{via_root})")
    return out


def subscriptions_sql(plan: PgPlan, server: str, conninfo: Callable[[str], str],
                      disable_on_error: bool = False) -> list[str]:
    """CREATE SUBSCRIPTION on `server` for each publisher; `conninfo(publisher)` gives the SQL of the
    connection string (a psql variable in the export, a literal in verification). `disable_on_error` stops
    a subscription at its first apply error (insert_exists) instead of PostgreSQL's default of retrying."""
    options = "origin = none, copy_data = false, streaming = off" + (
        ", disable_on_error = true" if disable_on_error else "")
    out = []
    for s in plan.subscriptions:
        if s.server != server:
            continue
        pubs = ", ".join(ident(p) for p in s.publications)
        out.append(f"CREATE SUBSCRIPTION {ident(s.name)} CONNECTION {conninfo(s.publisher)} PUBLICATION {pubs} "
                   f"WITH ({options})")
    return out


MIN_SERVER_VERSION = 160000
"""`origin = none` (step 4) is PostgreSQL 16's: on 15 steps 1-3 would succeed and leave a half deployment."""

VERSION_CHECK = (
    "DO $$ BEGIN IF current_setting('server_version_num')::int < " + str(MIN_SERVER_VERSION) + " THEN "
    "RAISE EXCEPTION 'Mapwright''s PostgreSQL deployment needs PostgreSQL 16 or later (origin = none); "
    "this server is %', current_setting('server_version'); END IF; END $$;\n\n")
"""Each script's first statement, after ON_ERROR_STOP: an older server stops it before anything changes."""


def script(title: str, statements: list[str]) -> str:
    body = "".join(f"{s};\n\n" for s in statements) or comment("nothing to run on this server")
    return comment(title) + "\\set ON_ERROR_STOP on\n\n" + VERSION_CHECK + body
