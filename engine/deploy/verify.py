"""Verify a preview against real PostgreSQL (`mapwright verify MODEL --data DIR`).

One PostgreSQL 18 server per PostgreSQL site (`engine.deploy.pgcluster`), the export of
`engine.deploy.postgresql` deployed on them (settings, restart, tables, snapshots, publications,
subscriptions), then the change records replayed as SQL at each site in commit order, one transaction at a
time, each delivered before the next (the schedule's delay 0); an outage window of a link is the link's
subscription disabled from the window's start to its end. After the last commit, replication settles, and
each site's final tables and `pg_stat_subscription_stats` are compared with Mapwright's run of the same data
(the pure-Python reference): per table, equal or the differing keys.

A schedule delay other than 0 cannot be replayed (PostgreSQL delivers as soon as it can): it is a finding.
"""

from __future__ import annotations

import itertools
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from engine.ddl import load_dialect, table_ddl
from engine.deploy.pgcluster import PgInstance, restart, running_servers
from engine.deploy.pgexport import export_postgresql, server_tokens
from engine.deploy.pgfindings import DeployFinding
from engine.deploy.postgresql import (
    DeployError,
    PgPlan,
    Subscription,
    ident,
    plan_deployment,
    schemas_sql,
)
from engine.model.schema import Model, Table
from engine.run.input.records import ChangeRecord, read_changes
from engine.run.input.schedule import Schedule, load_schedule
from engine.run.input.snapshots import read_snapshots
from engine.run.semantics.reference import Transaction, group_transactions, run_reference

Row = dict[str, Any]
SETTLE_TIMEOUT_S = 60.0
PG_CONFLICT_TYPES = ("insert_exists", "update_origin_differs", "update_exists", "update_missing",
                     "delete_origin_differs", "delete_missing", "multiple_unique_conflicts")


class VerifyError(RuntimeError):
    """Verification could not be carried out (a server, a statement, replication that never settles)."""


@dataclass
class TableComparison:
    table: str
    mapwright_rows: int
    postgresql_rows: int
    differing_keys: list[dict[str, Any]]

    @property
    def equal(self) -> bool:
        return not self.differing_keys

    def as_dict(self) -> dict[str, Any]:
        return {"table": self.table, "equal": self.equal, "mapwright_rows": self.mapwright_rows,
                "postgresql_rows": self.postgresql_rows, "differing_keys": self.differing_keys}


@dataclass
class VerifyReport:
    """Per table, equal or the differing keys; per site, PostgreSQL's conflict counts and Mapwright's."""

    tables: list[TableComparison]
    postgresql_conflicts: dict[str, dict[str, int]]
    mapwright_conflicts: dict[str, dict[str, int]]
    findings: list[DeployFinding] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return all(t.equal for t in self.tables)

    def as_dict(self) -> dict[str, Any]:
        return {"equal": self.equal, "tables": [t.as_dict() for t in self.tables],
                "conflicts": {"postgresql": self.postgresql_conflicts, "mapwright": self.mapwright_conflicts},
                "findings": [f.as_dict() for f in self.findings], "stopped_subscriptions": self.stopped}

    def render(self) -> str:
        lines = []
        for t in self.tables:
            state = "equal" if t.equal else f"{len(t.differing_keys)} key(s) differ: " + ", ".join(
                str(k) for k in t.differing_keys[:10])
            lines.append(f"{t.table}: {state} (Mapwright {t.mapwright_rows} rows, PostgreSQL {t.postgresql_rows})")
        for site in sorted(set(self.postgresql_conflicts) | set(self.mapwright_conflicts)):
            pg = ", ".join(f"{k} {v}" for k, v in self.postgresql_conflicts.get(site, {}).items() if v) or "none"
            mw = ", ".join(f"{k} {v}" for k, v in self.mapwright_conflicts.get(site, {}).items() if v) or "none"
            lines.append(f"conflicts at {site}: PostgreSQL {pg}; Mapwright {mw}")
        lines += [f"stopped: {s}" for s in self.stopped]
        lines += [f"finding: {f.line()}" for f in self.findings]
        return "\n".join(lines)


# --- Mapwright's side ------------------------------------------------------------------------------


def mapwright_conflict_counts(conflicts: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Mapwright's conflicts per site, named as PostgreSQL would name the situation where one exists:
    an UPDATE of a missing row is `update_missing`, a DELETE of a missing row `delete_missing`, an INSERT of
    an existing key `insert_exists`; `update` and `delete` are Mapwright's old-value comparisons."""
    out: dict[str, dict[str, int]] = {}
    for c in conflicts:
        reason = c.get("reason") or ""
        kind = {"uniqueness": "insert_exists", "update": "update"}.get(c["type"], "delete")
        if "row to update is missing" in reason:
            kind = "update_missing"
        elif "row to delete is missing" in reason:
            kind = "delete_missing"
        site = out.setdefault(c["site"], {})
        site[kind] = site.get(kind, 0) + 1
    return out


# --- PostgreSQL's side -----------------------------------------------------------------------------


def _execute_all(server: PgInstance, statements: Iterable[str]) -> None:
    with server.connect() as conn:
        for statement in statements:
            try:
                conn.execute(statement.encode())
            except psycopg.Error as exc:
                raise VerifyError(f"{server.site}: {str(exc).splitlines()[0]}") from None


def table_name(table: Table) -> sql.Identifier:
    """The table's name, after its schema where the model gives one."""
    return sql.Identifier(table.db_schema, table.name) if table.db_schema else sql.Identifier(table.name)


def writable_columns(table: Table) -> list[str]:
    """The columns an INSERT or UPDATE may set: not the generated ones, which the server computes."""
    return [c.name for c in table.columns if c.generated is None]


def _load_rows(conn: psycopg.Connection[Any], table: Table, rows: list[Row]) -> None:
    cols = writable_columns(table)
    query = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
        table_name(table), sql.SQL(", ").join(map(sql.Identifier, cols)),
        sql.SQL(", ").join(sql.Placeholder() * len(cols)))
    with conn.cursor() as cur:
        cur.executemany(query, [[row.get(c) for c in cols] for row in rows])


def _key_clause(table: Table, image: Row) -> tuple[sql.Composable, list[Any]]:
    key = table.primary_key or table.column_names()
    parts = [sql.SQL("{} IS NOT DISTINCT FROM %s").format(sql.Identifier(c)) for c in key]
    return sql.SQL(" AND ").join(parts), [image.get(c) for c in key]


def replay_record(conn: psycopg.Connection[Any], table: Table, record: ChangeRecord) -> None:
    """One change record as SQL at its site. A local insert onto a held key replaces the row (section 7)."""
    name = table_name(table)
    if record.op == "I":
        assert record.after is not None
        cols = [c for c in writable_columns(table) if c in record.after]
        upsert: sql.Composable = sql.SQL("")
        if table.primary_key:
            rest = [c for c in cols if c not in table.primary_key]
            action: sql.Composable = sql.SQL("DO NOTHING")
            if rest:
                action = sql.SQL("DO UPDATE SET {}").format(sql.SQL(", ").join(
                    sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in rest))
            upsert = sql.SQL(" ON CONFLICT ({}) {}").format(
                sql.SQL(", ").join(map(sql.Identifier, table.primary_key)), action)
        conn.execute(sql.SQL("INSERT INTO {} ({}) VALUES ({}){}").format(
            name, sql.SQL(", ").join(map(sql.Identifier, cols)), sql.SQL(", ").join(sql.Placeholder() * len(cols)),
            upsert), [record.after[c] for c in cols])
        return
    assert record.before is not None
    where, params = _key_clause(table, record.before)
    if record.op == "D":
        conn.execute(sql.SQL("DELETE FROM {} WHERE {}").format(name, where), params)
        return
    assert record.after is not None
    cols = [c for c in writable_columns(table) if c in record.after]
    sets = sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(c)) for c in cols)
    conn.execute(sql.SQL("UPDATE {} SET {} WHERE {}").format(name, sets, where),
                 [record.after[c] for c in cols] + params)


class Replayer:
    """Replays transactions at their sites and keeps replication in step with Mapwright's schedule."""

    def __init__(self, model: Model, plan: PgPlan, servers: dict[str, PgInstance]) -> None:
        self.model, self.plan, self.servers = model, plan, servers
        self.conns = {site: server.connect(autocommit=False) for site, server in servers.items()}
        self.disabled: set[str] = set()
        self.stopped: dict[str, str] = {}  # subscription -> why PostgreSQL stopped it (an apply error)

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()

    def commit(self, txn: Transaction) -> None:
        conn = self.conns[txn.site]
        try:
            for record in txn.records:
                table = self.model.table(record.table)
                assert table is not None
                replay_record(conn, table, record)
            conn.commit()
        except psycopg.Error as exc:
            conn.rollback()
            raise VerifyError(f"{txn.site}: transaction {txn.txn} failed: {str(exc).splitlines()[0]}") from None
        self.catch_up(txn.site)

    def catch_up(self, publisher: str, only: str | None = None) -> None:
        """Wait until every enabled subscription to `publisher` has applied its WAL up to now."""
        subs = [s for s in self.plan.subscriptions if s.publisher == publisher
                and s.name not in self.disabled | set(self.stopped) and (only is None or s.name == only)]
        if not subs:
            return
        with self.servers[publisher].connect() as conn:
            target = conn.execute("SELECT pg_current_wal_lsn()").fetchone()
            assert target is not None
            deadline = time.monotonic() + SETTLE_TIMEOUT_S
            for attempt in itertools.count():
                names = [s.name for s in subs if s.name not in self.stopped]
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_replication WHERE application_name = ANY(%s) "
                    "AND state = 'streaming' AND replay_lsn >= %s", [names, target[0]]).fetchone()
                if row is not None and row[0] == len(names):
                    return
                if attempt % 10 == 9:
                    self._note_stopped(subs)
                if time.monotonic() > deadline:
                    raise VerifyError(f"replication from {publisher} did not settle in {SETTLE_TIMEOUT_S:.0f} s "
                                      f"({', '.join(names)}); see pg_stat_subscription_stats and the server log")
                time.sleep(0.02)

    def _note_stopped(self, subs: list[Subscription]) -> None:
        """A subscription PostgreSQL disabled at an apply error (disable_on_error): noted, no longer waited for."""
        for s in subs:
            if s.name in self.stopped:
                continue
            with self.servers[s.server].connect() as conn:
                row = conn.execute("SELECT subenabled FROM pg_subscription WHERE subname = %s", [s.name]).fetchone()
            if row is not None and not row[0]:
                self.stopped[s.name] = (f"{s.name} ({s.publisher} -> {s.server}) stopped at an apply error; the "
                                        "changes after it were not applied (see the server log of "
                                        f"{s.server})")

    def set_link(self, publisher: str, subscriber: str, enabled: bool) -> None:
        """An outage: the link's subscription disabled (after it caught up) or enabled (then caught up)."""
        sub = self.plan.subscription(publisher, subscriber)
        if sub is None or sub.name in self.stopped:
            return
        with self.servers[subscriber].connect() as conn:
            if not enabled:
                self.catch_up(publisher, only=sub.name)
                conn.execute(sql.SQL("ALTER SUBSCRIPTION {} DISABLE").format(sql.Identifier(sub.name)))
                self.disabled.add(sub.name)
                deadline = time.monotonic() + SETTLE_TIMEOUT_S
                while conn.execute("SELECT 1 FROM pg_stat_subscription WHERE subname = %s AND pid IS NOT NULL",
                                   [sub.name]).fetchone():
                    if time.monotonic() > deadline:
                        raise VerifyError(f"subscription {sub.name} did not stop")
                    time.sleep(0.02)
                return
            conn.execute(sql.SQL("ALTER SUBSCRIPTION {} ENABLE").format(sql.Identifier(sub.name)))
        self.disabled.discard(sub.name)
        self.catch_up(publisher, only=sub.name)


def outage_events(schedule: Schedule, sites: set[str]) -> list[tuple[datetime, bool, str, str]]:
    """(instant, enabled, origin, destination) for each outage window's start and end between the sites."""
    out = []
    for (origin, destination), link in schedule.links.items():
        if origin in sites and destination in sites:
            for start, end in link.down:
                out += [(start, False, origin, destination), (end, True, origin, destination)]
    return sorted(out, key=lambda e: (e[0], e[1]))


def replay(replayer: Replayer, transactions: list[Transaction], outages: list[tuple[datetime, bool, str, str]]) -> None:
    """Commits in order; a window's start applies before a commit at that instant (it is inside), its end
    after the local commits of that instant (local commits come first, section 7)."""
    pending = list(outages)
    for txn in transactions:
        while pending and (pending[0][0] < txn.commit_ts or (pending[0][0] == txn.commit_ts and not pending[0][1])):
            _, enabled, origin, destination = pending.pop(0)
            replayer.set_link(origin, destination, enabled)
        replayer.commit(txn)
    for _, enabled, origin, destination in pending:
        replayer.set_link(origin, destination, enabled)


def postgresql_conflicts(servers: dict[str, PgInstance]) -> dict[str, dict[str, int]]:
    """pg_stat_subscription_stats summed per subscriber site, after the stats have been flushed."""
    time.sleep(1.5)  # an apply worker flushes its statistics at most once a second, when idle
    out: dict[str, dict[str, int]] = {}
    for site, server in servers.items():
        with server.connect() as conn:
            cur = conn.execute("SELECT * FROM pg_stat_subscription_stats")
            names = [d.name for d in cur.description or ()]
            counts = {t: 0 for t in PG_CONFLICT_TYPES} | {"apply_error_count": 0}
            for row in cur.fetchall():
                for name, value in zip(names, row, strict=True):
                    key = name.removeprefix("confl_")
                    if key in counts and value is not None:
                        counts[key] += int(value)
            out[site] = counts
    return out


# --- comparing -------------------------------------------------------------------------------------


def _normal(value: Any, char: bool) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, Decimal)):
        return Decimal(value).normalize()
    if isinstance(value, datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, date):  # a DATE column: Mapwright's run holds it as midnight UTC
        return datetime(value.year, value.month, value.day)
    if isinstance(value, UUID):  # Mapwright's run holds a UUID as its text form
        return str(value)
    if isinstance(value, str) and char:
        return value.rstrip(" ")
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def normal_row(table: Table, row: Row) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(key, all values but the generated ones), normalised so equal values compare equal (scale, CHAR
    padding, time zone, a DATE as midnight, a UUID as text). A generated column is computed by each server
    from its own SQL, which Mapwright's run does not evaluate: it is not compared."""
    chars = {c.name for c in table.columns if c.sql_type.name in ("CHAR", "NCHAR")}
    values = {c: _normal(row.get(c), c in chars) for c in writable_columns(table)}
    key = tuple(values[c] for c in (table.primary_key or writable_columns(table)))
    return key, tuple(values.values())


def compare_table(table: Table, mapwright: list[Row], postgresql: list[Row]) -> TableComparison:
    mw = dict(normal_row(table, r) for r in mapwright)
    pg = dict(normal_row(table, r) for r in postgresql)
    names = table.primary_key or writable_columns(table)
    differing = [dict(zip(names, (str(v) for v in key), strict=True))
                 for key in sorted(set(mw) | set(pg), key=repr) if mw.get(key) != pg.get(key)]
    return TableComparison(table.key, len(mapwright), len(postgresql), differing)


def read_table(server: PgInstance, table: Table) -> list[Row]:
    with server.connect() as conn, conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute(sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(map(sql.Identifier, table.column_names())), table_name(table)))
        return list(cur.fetchall())


# --- the whole verification ------------------------------------------------------------------------


def site_tables(model: Model, plan: PgPlan, site: str) -> list[Table]:
    """The site's deployed tables, then its other tables (made for the replay: changes and snapshots may
    touch them, and Mapwright's run has them too)."""
    deployed = plan.tables.get(site, [])
    return deployed + [t for t in model.tables if t.server == site and t not in deployed]


def deploy(model: Model, plan: PgPlan, servers: dict[str, PgInstance], snapshots: dict[str, list[Row]],
           folder: Path) -> None:
    """The export's own files run with psql on every server, step by step as its README.txt says (the
    settings, a restart, the tables, the snapshots loaded, the publications, the subscriptions given each
    publisher's connection string as its psql variable). Then each subscription is told to stop at an apply
    error rather than retry it forever, so an insert_exists is reported instead of hanging the replay."""
    export_postgresql(model, folder)
    tokens = server_tokens(plan)
    conninfo = {f"conninfo_{tokens[site]}": server.conninfo() for site, server in servers.items()}

    def step(site: str, n: int, name: str) -> None:
        servers[site].psql_file(folder / tokens[site] / f"{n}-{name}.sql", conninfo)

    for site, server in servers.items():
        step(site, 1, "settings")
        restart(server)
    for site, server in servers.items():
        step(site, 2, "tables")
        local = [t for t in site_tables(model, plan, site) if t not in plan.tables.get(site, [])]
        _execute_all(server, schemas_sql(local) + [table_ddl(t, load_dialect("postgresql"), "postgresql")
                                                   for t in local])
        with server.connect(autocommit=False) as conn:
            for table in site_tables(model, plan, site):
                _load_rows(conn, table, snapshots.get(table.key, []))
            conn.commit()
    for site in servers:
        step(site, 3, "publications")
    for site in servers:
        step(site, 4, "subscriptions")
    for s in plan.subscriptions:
        _execute_all(servers[s.server], [f"ALTER SUBSCRIPTION {ident(s.name)} SET (disable_on_error = true)"])


def check_deployable(model: Model) -> None:
    """Writes the export once into a throwaway folder before the reference run and any server start: a
    model the export refuses (a name longer than PostgreSQL's 63 bytes) is a VerifyError, one line, not a
    traceback after three servers have started."""
    with tempfile.TemporaryDirectory(prefix="mapwright-check-") as tmp:
        try:
            export_postgresql(model, Path(tmp))
        except DeployError as exc:
            raise VerifyError(f"the model cannot be deployed to PostgreSQL: {exc}") from None


def verify(model: Model, data_dir: Path) -> VerifyReport:
    """Run Mapwright's reference and a real PostgreSQL deployment on the same data; compare them."""
    plan = plan_deployment(model)
    if not plan.servers:
        raise VerifyError("the model has no PostgreSQL server to verify against")
    check_deployable(model)
    result = run_reference(model, data_dir)
    records, _ = read_changes(data_dir, model)
    snapshots = read_snapshots(data_dir, model)
    schedule = load_schedule(data_dir / "schedule.json")
    sites = set(plan.servers)
    findings = [f for f in plan.findings if f.topic != "schedule"]  # outages are replayed; delays below
    for (origin, destination), link in schedule.links.items():
        if link.delay_s and origin in sites and destination in sites:
            findings.append(DeployFinding("differs", f"the link {origin} -> {destination} has a delay of "
                                          f"{link.delay_s:g} s, which replay cannot reproduce (delivered at once)"))
    transactions = group_transactions(records)
    for other in sorted({t.site for t in transactions} - sites):
        findings.append(DeployFinding("differs", f"the changes committed at {other}, which is not a PostgreSQL "
                                      "server, are not replayed (Mapwright's run has them)"))
    transactions = [t for t in transactions if t.site in sites]
    with running_servers(plan.servers) as servers, tempfile.TemporaryDirectory(prefix="mapwright-deploy-") as tmp:
        deploy(model, plan, servers, snapshots, Path(tmp))
        replayer = Replayer(model, plan, servers)
        try:
            replay(replayer, transactions, outage_events(schedule, sites))
            for site in plan.servers:
                replayer.catch_up(site)
        finally:
            replayer.close()
        stopped = list(replayer.stopped.values())
        comparisons = []
        for site in plan.servers:
            for table in site_tables(model, plan, site):
                mapwright = result.tables.get(table.key, [])
                comparisons.append(compare_table(table, mapwright, read_table(servers[site], table)))
        pg_conflicts = postgresql_conflicts(servers)
    return VerifyReport(comparisons, pg_conflicts, mapwright_conflict_counts(result.conflicts), findings, stopped)
