"""Writing a PostgreSQL deployment (`mapwright export MODEL --to postgresql --out DIR`): per server the four
step scripts of `engine.deploy.postgresql`, a README.txt saying what to run where and in which order, and
the findings (report.txt: each kind once, then every one; report.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.ddl import comment
from engine.deploy.pgfindings import DeployFinding, report_text
from engine.deploy.postgresql import (
    DeployError,
    PgPlan,
    plan_deployment,
    publications_sql,
    safe_token,
    script,
    settings_sql,
    subscriptions_sql,
    tables_sql,
)
from engine.model.io import starts_with, write_atomic
from engine.model.schema import Model

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
    files["report.txt"] = report_text(plan.findings, len(plan.publications), len(plan.subscriptions))
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
