"""Replica identity: what an UPDATE sends as the old row decides whether the subscriber can apply it and
whether the publisher accepts it at all. Checked on real PostgreSQL 18 servers with the export's own files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from engine.deploy.pgcluster import PgInstance, running_servers
from engine.deploy.postgresql import plan_deployment
from engine.deploy.verify import deploy
from engine.model.io import parse_model
from engine.model.schema import Model

COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False},
           {"name": "REGION", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(20)"}]


def model(target_keys: dict[str, list[str]], mappings: list[dict[str, Any]]) -> Model:
    """Server `a` with T keyed by ID; each other server of `target_keys` with T keyed as given (or not)."""
    servers = ["a", *target_keys]
    keys = {"a": ["ID"], **target_keys}
    return parse_model(json.dumps({
        "format": "mapwright/1", "name": "identity",
        "servers": [{"id": s, "dbms": "postgresql"} for s in servers],
        "tables": [{"server": s, "name": "T", "columns": COLUMNS, **({"primary_key": keys[s]} if keys[s] else {})}
                   for s in servers],
        "mappings": mappings}), "m.json")


def copy(id_: str, target: str, columns: tuple[str, ...] = ("ID", "REGION", "NAME"), **extra: Any) -> dict[str, Any]:
    return {"id": id_, "source": "a.T", "target": f"{target}.T", "columns": {c: c for c in columns},
            "distribution_key": ["ID"], **extra}


def deployed(m: Model) -> dict[str, str]:
    """{mapping: 'deployed' or the not_deployed finding}."""
    plan = plan_deployment(m)
    out = {p.mapping: "deployed" for p in plan.publications}
    out.update({f.mapping: f.message for f in plan.findings if f.kind == "not_deployed" and f.mapping})
    return out


def test_a_target_key_the_source_key_does_not_hold_needs_the_whole_old_row() -> None:
    for keys in ([], ["ID", "REGION"]):
        plan = plan_deployment(model({"b": keys}, [copy("m", "b")]))
        assert [t.key for t in plan.replica_full] == ["a.T"], keys
        partial = deployed(model({"b": keys}, [copy("m", "b", ("ID", "REGION"))]))
        assert "REPLICA IDENTITY FULL" in partial["m"] and "target" in partial["m"], partial
    assert plan_deployment(model({"b": ["ID"]}, [copy("m", "b")])).replica_full == []


def test_replica_identity_full_never_meets_a_partial_column_list_of_the_same_table() -> None:
    """With FULL every column is the identity, and PostgreSQL refuses the publisher's own UPDATEs when a
    publication of the table lists only some: whichever mapping comes second is not deployed."""
    full = copy("full", "b", where="NAME <> 'z'")
    part = copy("part", "c", ("ID", "REGION"))
    first_full = deployed(model({"b": ["ID"], "c": ["ID"]}, [full, part]))
    assert first_full["full"] == "deployed" and "mapping full has set" in first_full["part"]
    first_part = deployed(model({"b": ["ID"], "c": ["ID"]}, [part, full]))
    assert first_part["part"] == "deployed" and "mapping(s) part publish only some" in first_part["full"]


def _wait_for(server: PgInstance, query: str, expected: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    deadline = time.monotonic() + 10
    with server.connect() as conn:
        while (rows := conn.execute(query).fetchall()) != expected and time.monotonic() < deadline:
            time.sleep(0.05)
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("where", [None, "NAME <> 'z'"])  # FULL for the keyless target; for the filter too
def test_updates_replicate_to_a_keyless_target_and_the_publisher_keeps_accepting_them(
        tmp_path: Path, where: str | None) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    keyless = copy("keyless", "b", **({"where": where} if where else {}))
    m = model({"b": [], "c": ["ID"]}, [keyless, copy("part", "c", ("ID", "REGION"))])
    plan = plan_deployment(m)
    with running_servers(plan.servers) as servers:
        deploy(m, plan, servers, {}, tmp_path / "deploy")
        with servers["a"].connect() as conn:
            conn.execute("""INSERT INTO "T" VALUES (1, 1, 'x')""")
            conn.execute("""UPDATE "T" SET "NAME" = 'y' WHERE "ID" = 1""")  # refused if FULL met a column list
        assert _wait_for(servers["b"], 'SELECT * FROM "T"', [(1, 1, "y")]) == [(1, 1, "y")]
        with servers["b"].connect() as conn:
            assert conn.execute("SELECT bool_and(subenabled) FROM pg_subscription").fetchone() == (True,)
