"""Deploy a model's PostgreSQL-to-PostgreSQL mappings with PostgreSQL's logical replication (16+, 18 preferred).

`mapwright export MODEL --to postgresql --out DIR` writes, per PostgreSQL server, the SQL that sets the
server up (settings, target tables, publications, subscriptions) and a README.txt saying what to run where,
in which order, plus the findings: everything PostgreSQL cannot express, per mapping, never dropped silently.

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

Everything else is a finding. Nothing from the model is pasted into SQL: identifiers are quoted by
SQLAlchemy's PostgreSQL identifier preparer, literals are quoted here, the row filter is sqlglot's rendering
of a parsed tree, and connection strings are psql variables (`:'conninfo_hq'`) the README explains, so no
credential is ever written into the export.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.ddl import DdlError, comment, load_dialect, table_ddl
from engine.model.io import starts_with, write_atomic
from engine.model.methods import Column
from engine.model.schema import Mapping, Model, Table, TableConflicts

PG_MAX_NAME = 63  # NAMEDATALEN - 1: longer identifiers are cut by the server, so names are kept within it
_PREPARER = pg_dialect.dialect(paramstyle="qmark").identifier_preparer  # type: ignore[no-untyped-call]  # no %%


class DeployError(Exception):
    """A deployment that cannot be written (a name PostgreSQL cannot hold)."""


@dataclass(frozen=True)
class DeployFinding:
    """Something PostgreSQL cannot express. `kind`: `not_deployed` (a mapping or column left out) or
    `differs` (deployed, but PostgreSQL resolves or orders it differently from a Mapwright run)."""

    kind: str
    message: str
    mapping: str | None = None
    column: str | None = None
    topic: str = ""  # "schedule" for the schedule's finding, which verification replaces by its own

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.mapping is not None:
            d["mapping"] = self.mapping
        if self.column is not None:
            d["column"] = self.column
        return d

    def line(self) -> str:
        where = f"{self.mapping}" + (f".{self.column}" if self.column else "") if self.mapping else "all mappings"
        return f"{where}: {self.kind.replace('_', ' ')}: {self.message}"


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


_NOT_IMMUTABLE = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentTime, exp.Rand, exp.Anonymous)
# PostgreSQL refuses these in a row filter too: a cast through text (CoerceViaIO) is not an allowed node, and
# concat_ws is only stable. try_cast also means something else there (PostgreSQL's CAST fails, it never
# gives NULL). Any cast is refused, rather than guessing from types which ones PostgreSQL would take.
_NOT_IN_ROW_FILTER = (exp.Cast, exp.ConcatWs)
_SPARK_MEANING = (exp.Initcap, exp.Left, exp.Right, exp.Contains, exp.EndsWith)
"""Functions of the allow-list that PostgreSQL has not, or reads otherwise: `initcap` splits words at any
non-letter there (at spaces only in Spark), `left`/`right` of a negative length keep all but that many
characters there (none in Spark), and there is no `contains` or `ends_with`."""


def row_filter_sql(where: str) -> tuple[str | None, tuple[str, ...], str | None]:
    """(PostgreSQL text of the filter, columns it reads, problem). The Spark SQL is parsed and re-rendered
    for PostgreSQL with every identifier quoted, without its comments: the model's text never reaches the SQL.
    What is not one condition (`a = 1; DROP TABLE t`, which sqlglot parses as one block, or `GRANT ...`;
    `--force` lets such a model through validation) is refused, never rendered into the publication."""
    try:
        tree = sqlglot.parse_one(where, read="spark")
        if not isinstance(tree, exp.Condition):
            return None, (), "the where clause is not one condition (it holds a statement), which a row filter cannot"
        tree = tree.transform(_null_test)
        text = tree.sql(dialect="postgres", identify=True, comments=False)
    except (SqlglotError, RecursionError) as exc:
        return None, (), f"the where clause cannot be written for PostgreSQL: {str(exc).splitlines()[0]}"
    if any(isinstance(node, (exp.Query, exp.Subquery)) for node in tree.walk()):
        return None, (), "the where clause holds a query, which a row filter cannot"
    if any(isinstance(node, _NOT_IMMUTABLE) for node in tree.walk()):
        return None, (), ("the where clause calls a function PostgreSQL does not allow in a row filter (only "
                          "immutable built-in functions: no current time, random or user functions)")
    if any(isinstance(node, _NOT_IN_ROW_FILTER) for node in tree.walk()):
        return None, (), ("the where clause holds a cast or concat_ws, which PostgreSQL does not allow in a row "
                          "filter (a cast through text is refused, concat_ws is not immutable)")
    differs = next((node for node in tree.walk() if isinstance(node, _SPARK_MEANING)), None)
    if differs is not None:
        return None, (), (f"the where clause calls {differs.key}, which PostgreSQL has not or reads otherwise "
                          "than Spark")
    return text, tuple(dict.fromkeys(c.name for c in tree.find_all(exp.Column))), None


def _null_test(node: exp.Expression) -> exp.Expression:
    """Spark's `isnull(x)` and `isnotnull(x)` (functions sqlglot does not know) as `x IS [NOT] NULL`."""
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and node.name.lower() in ("isnull",
                                                                                                 "isnotnull"):
        test = exp.Is(this=node.expressions[0], expression=exp.Null())
        return test if node.name.lower() == "isnull" else exp.Not(this=test)
    return node


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


def _plan_mapping(model: Model, mapping: Mapping, plan: PgPlan) -> Publication | None:
    """A publication for the mapping, or None with a `not_deployed` finding saying why."""

    def finding(kind: str, message: str, column: str | None = None) -> None:
        plan.findings.append(DeployFinding(kind, message, mapping.id, column))

    source, target = model.table(mapping.source), model.table(mapping.target)
    if source is None or target is None:
        finding("not_deployed", "its source or target table is not in the model")
        return None
    for side, table in (("source", source), ("target", target)):
        server = model.server(table.server)
        if server is None or server.dbms != "postgresql":
            dbms = server.dbms if server else "unknown"
            finding("not_deployed", f"its {side} server {table.server} is {dbms}, not PostgreSQL")
            return None
    if source.server == target.server:
        finding("not_deployed", "source and target are on the same server; logical replication runs between servers")
        return None
    if source.name != target.name:
        finding("not_deployed", f"PostgreSQL replicates a table to the table of the same name; the target "
                f"{target.name} is not named {source.name}")
        return None
    twin = next((p for p in plan.publications if p.table == source and p.subscriber == target.server), None)
    if twin is not None:  # checked before anything is recorded: a twin must not set REPLICA IDENTITY FULL
        finding("not_deployed", f"mapping {twin.mapping} already replicates {twin.table.key} to server "
                f"{twin.subscriber}, and one subscription cannot take a table twice")
        return None
    copied: list[str] = []
    for target_col, method in mapping.columns.items():
        if isinstance(method, Column) and method.input == target_col and source.column(target_col):
            copied.append(target_col)
        elif isinstance(method, Column):
            finding("not_deployed", f"copied from {method.input}: PostgreSQL copies a column only to the column of "
                    "the same name; left out", target_col)
        else:
            finding("not_deployed", f"method {method.method}: PostgreSQL only copies columns; left out", target_col)
    identity = list(source.primary_key)
    row_filter: str | None = None
    filter_columns: tuple[str, ...] = ()
    if mapping.where:
        row_filter, filter_columns, problem = row_filter_sql(mapping.where)
        if problem:
            finding("not_deployed", problem)
            return None
    all_columns = set(copied) == set(source.column_names())
    full = _full_identity_reason(plan, source, target, filter_columns)
    if full and not all_columns:
        finding("not_deployed", f"{full}, so PostgreSQL needs REPLICA IDENTITY FULL on the source, which needs "
                "every column published; this mapping leaves some out")
        return None
    partial = [p.mapping for p in plan.publications if p.table == source and p.columns is not None
               and len(p.columns) < len(source.columns)]
    if full and partial:
        finding("not_deployed", f"{full}, so PostgreSQL needs REPLICA IDENTITY FULL on the source; mapping(s) "
                f"{', '.join(partial)} publish only some of its columns, and with FULL PostgreSQL would refuse "
                "every UPDATE and DELETE of the source table")
        return None
    if not set(identity) <= set(copied):
        finding("not_deployed", "PostgreSQL must publish the source's primary key columns "
                f"({', '.join(identity)}); the mapping does not copy them all")
        return None
    if target.primary_key and not set(target.primary_key) <= set(copied):
        finding("not_deployed", f"the target's primary key ({', '.join(target.primary_key)}) is how PostgreSQL "
                "finds the row to change; the mapping does not copy all of it")
        return None
    if full and source not in plan.replica_full:
        plan.replica_full.append(source)
        finding("differs", f"the source table {source.key} is set to REPLICA IDENTITY FULL ({full}): every "
                "update logs the whole old row")
    _conflict_findings(model.conflicts_for(target.key), mapping, target, copied, finding)
    dkey = mapping.distribution_key or target.primary_key
    if set(dkey) != set(target.primary_key):
        finding("differs", f"the distribution key ({', '.join(dkey)}) is not the target's primary key: PostgreSQL "
                "finds rows by the primary key (replica identity)")
    return Publication(object_name("mw", mapping.id), mapping.id, source.server, target.server, source,
                       None if all_columns and full else tuple(c for c in source.column_names() if c in copied),
                       row_filter)


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


def _conflict_findings(conflicts: TableConflicts | None, mapping: Mapping, target: Table, copied: list[str],
                       finding: Callable[..., None]) -> None:
    """Findings for the target table's conflict settings PostgreSQL does not share (see the module's table)."""
    c = conflicts or TableConflicts(table=target.key)
    if c.on_insert_exists != "error":
        finding("differs", f"on_insert_exists: {c.on_insert_exists}: PostgreSQL raises insert_exists and stops "
                "applying the subscription until the row is dealt with")
    for policy, name, pg in ((c.on_update_missing, "on_update_missing", "update_missing"),
                             (c.on_delete_missing, "on_delete_missing", "delete_missing")):
        if policy == "insert":
            finding("differs", f"{name}: insert: PostgreSQL skips the change ({pg}), it never inserts it")
        elif policy == "error":
            finding("differs", f"{name}: error: PostgreSQL skips the change ({pg}) and logs it; the table ends "
                    "the same but nothing is queued")
    mapped = [col for col in copied if col not in target.primary_key]
    groups = [g for g in c.column_groups if set(g.columns) & set(mapped)]
    grouped = {col for g in groups for col in g.columns}
    if len(groups) > 1:
        finding("differs", f"{len(groups)} column groups: PostgreSQL applies a remote update to the whole row "
                "(update_origin_differs), never one group alone")
    for g in groups:
        if not g.resolution or g.resolution[0].method != "overwrite":
            first = g.resolution[0].method if g.resolution else "no method"
            finding("differs", f"column group {g.name}: {first}: PostgreSQL resolves every update conflict as "
                    "overwrite (the remote row is applied)")
    shadow = [col for col in mapped if col not in grouped]
    if shadow:
        finding("differs", f"columns {', '.join(shadow)} are in no column group: Mapwright sends a differing "
                "update of them to the error queue, PostgreSQL applies it (overwrite)")
    if c.unique:
        finding("differs", "unique-index resolutions: PostgreSQL raises the violation and stops applying the "
                "subscription (insert_exists / update_exists / multiple_unique_conflicts)")
    if c.scope == "transaction":
        finding("differs", "scope: transaction: PostgreSQL resolves each row by itself")


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


def tables_sql(plan: PgPlan, server: str) -> list[str]:
    """CREATE TABLE for the server's published and subscribed tables, by `engine.ddl` (quoted names)."""
    dialect = load_dialect("postgresql")
    out = []
    for table in plan.tables.get(server, []):
        try:
            out.append(table_ddl(table, dialect, "postgresql").rstrip().rstrip(";"))
            if table in plan.replica_full:
                out.append(f"ALTER TABLE {ident(table.name)} REPLICA IDENTITY FULL")
        except (DdlError, DeployError) as exc:
            raise DeployError(f"table {table.key}: {str(exc).removeprefix(f'{table.key}: ')}") from None
    return out


def publications_sql(plan: PgPlan, server: str) -> list[str]:
    """CREATE PUBLICATION on `server` for each mapping it publishes; a name PostgreSQL cannot hold is a
    DeployError naming the mapping and table, so the user knows which name to shorten."""
    out = []
    for p in plan.publications:
        if p.server != server:
            continue
        try:
            columns = f" ({', '.join(ident(c) for c in p.columns)})" if p.columns is not None else ""
            name = f"{ident(p.name)} FOR TABLE ONLY {ident(p.table.name)}"
        except DeployError as exc:
            raise DeployError(f"mapping {p.mapping}, table {p.table.key}: {exc}") from None
        where = f" WHERE ({p.row_filter})" if p.row_filter else ""
        out.append(f"CREATE PUBLICATION {name}{columns}{where} WITH (publish = 'insert, update, delete')")
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


# --- the export ------------------------------------------------------------------------------------

STEPS = ("settings", "tables", "publications", "subscriptions")


def server_tokens(plan: PgPlan) -> dict[str, str]:
    """Each server's folder name in the export and its psql variable's suffix (`conninfo_<token>`)."""
    taken: set[str] = set()
    return {server: safe_token(server, taken) for server in plan.servers}


README_OPENING = "Mapwright deployment of model"
"""How README.txt begins: a folder holding it is an earlier export (`engine.export.folder_is_ours`)."""


def export_postgresql(model: Model, out: Path, **_: Any) -> list[DeployFinding]:
    """Write DIR/<server>/<n>-<step>.sql for each PostgreSQL server, README.txt and report.{txt,json}."""
    plan = plan_deployment(model)
    if not plan.servers:
        raise DeployError("the model has no PostgreSQL server to deploy to")
    tokens = server_tokens(plan)
    files: dict[str, str] = {}
    for server in plan.servers:
        steps = {"settings": settings_sql(plan), "tables": tables_sql(plan, server),
                 "publications": publications_sql(plan, server),
                 "subscriptions": subscriptions_sql(plan, server, lambda pub: f":'conninfo_{tokens[pub]}'")}
        for n, step in enumerate(STEPS, 1):
            files[f"{tokens[server]}/{n}-{step}.sql"] = script(f"Mapwright: {step} of server {server}", steps[step])
    files["README.txt"] = readme(model, plan, tokens)
    files["report.txt"] = report_text(plan)
    files["report.json"] = json.dumps({"findings": [f.as_dict() for f in plan.findings]}, indent=1) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, text)
    remove_stale_servers(out, set(tokens.values()))
    return plan.findings


def remove_stale_servers(out: Path, servers: set[str]) -> None:
    """Remove the step scripts an earlier export wrote for servers the model no longer has (as the
    GoldenGate export removes its stale `.prm` files), and their folders once empty: a folder left behind
    reads as a server still to deploy. Only files this module wrote (each step's own first line) go; a
    folder holding anything else keeps it."""
    for folder in sorted(out.iterdir()):
        if folder.name in servers or folder.is_symlink() or not folder.is_dir():
            continue
        for n, step in enumerate(STEPS, 1):
            path = folder / f"{n}-{step}.sql"
            if path.is_file() and not path.is_symlink() and starts_with(path, f"-- Mapwright: {step} of server "):
                path.unlink()
        if not any(folder.iterdir()):
            folder.rmdir()


def report_text(plan: PgPlan) -> str:
    lines = [f"{len(plan.publications)} mapping(s) deployed as publications, {len(plan.subscriptions)} "
             f"subscription(s); {len(plan.findings)} finding(s)"]
    lines += [f.line() for f in plan.findings]
    return "\n".join(lines) + "\n"


def readme(model: Model, plan: PgPlan, tokens: dict[str, str]) -> str:
    flat = comment(model.name or "untitled")[3:].strip()
    servers = "\n".join(f"  {tokens[s]}/  server {comment(s)[3:].strip()}   (connection variable conninfo_{tokens[s]})"
                        for s in plan.servers)
    return f"""{README_OPENING} {flat} to PostgreSQL logical replication (PostgreSQL 16+, 18 preferred)

One folder per PostgreSQL server:
{servers}

Run the steps in this order, each step on every server before the next step:

1. psql "$CONNINFO" -f <server>/1-settings.sql as a superuser, then restart that server
   (wal_level = logical and track_commit_timestamp only take effect after a restart).
2. psql "$CONNINFO" -f <server>/2-tables.sql creates the tables the server publishes or subscribes
   to (leave out the ones that already exist).
3. psql "$CONNINFO" -f <server>/3-publications.sql.
4. psql "$CONNINFO" -f <server>/4-subscriptions.sql on each server, with one variable per
   server it subscribes to, the libpq connection string the subscriber uses to reach that publisher:
     psql "$CONNINFO" -v conninfo_hq="host=hq.example.com dbname=app user=replicator" -f <server>/4-subscriptions.sql
   No password is written in these files. Prefer a password file of the subscriber's server account
   (the subscription connects from inside the server: ~/.pgpass of the OS user PostgreSQL runs as, or
   passfile= in the connection string) or certificate authentication in the publisher's pg_hba.conf;
   a password put in the connection string is kept in the subscriber's catalog (pg_subscription).
   The replication user needs the REPLICATION attribute, or to own the published tables.

Subscriptions are made with origin = none (a change applied from another server is not passed on, as in
Mapwright's runs; it also stops bidirectional pairs looping) and copy_data = false (each server keeps its
own initial rows). Load initial data before step 4. PostgreSQL retries a change that fails to apply (an
insert_exists) until it is dealt with; ALTER SUBSCRIPTION name SET (disable_on_error = true) stops the
subscription instead.

How conflicts are handled: PostgreSQL applies a remote update or delete to the row it finds by primary key
(update_origin_differs / delete_origin_differs: the remote change wins), skips an update or delete of a
missing row (update_missing / delete_missing), and stops applying a subscription at an insert of an existing
key (insert_exists) until it is dealt with. pg_stat_subscription_stats counts each type. What this means
for each mapping is in report.txt ({len(plan.findings)} finding(s)); nothing left out is left out silently.
"""
