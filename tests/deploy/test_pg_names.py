"""Server ids, mapping ids and where clauses a user may write, through `--to postgresql` and onto real
PostgreSQL 18 servers: what the export writes must run, and nothing of the model's text becomes SQL."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from pgmodel import three_site_model

from engine.cli import main
from engine.deploy.pgcluster import running_servers
from engine.deploy.postgresql import plan_deployment, publications_sql, row_filter_sql
from engine.deploy.verify import deploy
from engine.model.io import parse_model
from engine.model.schema import Model

SLOT_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


def two_site_model(a: str, b: str) -> Model:
    """Two PostgreSQL servers `a` and `b`, ITEM copied both ways."""
    columns = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(20)"}]
    copy = {"ID": "ID", "NAME": "NAME"}
    doc: dict[str, Any] = {
        "format": "mapwright/1", "name": "odd ids",
        "servers": [{"id": a, "dbms": "postgresql"}, {"id": b, "dbms": "postgresql"}],
        "tables": [{"server": s, "name": "ITEM", "columns": columns, "primary_key": ["ID"]} for s in (a, b)],
        "mappings": [{"id": "out", "source": f"{a}.ITEM", "target": f"{b}.ITEM", "columns": copy},
                     {"id": "back", "source": f"{b}.ITEM", "target": f"{a}.ITEM", "columns": copy}],
    }
    return parse_model(json.dumps(doc), "m.json")


def test_subscription_names_are_valid_slot_names_and_distinct() -> None:
    """A subscription's slot on the publisher takes its name, and slot names allow only [a-z0-9_]."""
    for a, b in (("HQ", "east-1"), ("West Coast", "hq"), ("HQ", "hq"), ("eu-west", "eu_west"), ("ü", "u")):
        plan = plan_deployment(two_site_model(a, b))
        names = [s.name for s in plan.subscriptions]
        assert len(names) == 2 and len(set(names)) == 2, names
        assert all(set(n) <= SLOT_CHARS and len(n) <= 63 for n in names), names
    long = plan_deployment(two_site_model("A" * 70, "B-" * 35))
    assert all(set(s.name) <= SLOT_CHARS and len(s.name) <= 63 for s in long.subscriptions)


@pytest.mark.slow
def test_the_export_of_servers_with_upper_case_and_hyphens_deploys_and_replicates(tmp_path: Path) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    model = two_site_model("HQ", "east-1")
    plan = plan_deployment(model)
    with running_servers(plan.servers) as servers:
        deploy(model, plan, servers, {}, tmp_path / "deploy")  # the export's files, run with psql
        with servers["HQ"].connect() as conn:
            conn.execute('INSERT INTO "ITEM" ("ID", "NAME") VALUES (1, \'bolt\')')
        deadline = time.monotonic() + 20
        with servers["east-1"].connect() as conn:
            while (row := conn.execute('SELECT "NAME" FROM "ITEM" WHERE "ID" = 1').fetchone()) is None:
                assert time.monotonic() < deadline, "the row never reached east-1"
                time.sleep(0.05)
    assert row == ("bolt",)


def test_a_where_of_several_statements_never_reaches_the_sql() -> None:
    """`--force` exports a model with errors; a where holding a second statement is then a finding."""
    text, _, problem = row_filter_sql("REGION = 'EU'; DROP TABLE x")
    assert text is None and problem is not None and "one condition" in problem
    doc = three_site_model()
    doc["mappings"][2]["where"] = "REGION = 'EU'; DROP TABLE x"
    plan = plan_deployment(parse_model(json.dumps(doc), "m.json"))
    assert not any("DROP" in s for s in publications_sql(plan, "hq"))
    assert any(f.mapping == "hq_to_west" and f.kind == "not_deployed" for f in plan.findings)


def test_comments_of_a_where_are_not_copied_into_the_sql() -> None:
    text, columns, problem = row_filter_sql("REGION = 'EU' /* ; DROP TABLE x */ AND ID > 1 -- see ticket\n")
    assert problem is None and columns == ("REGION", "ID")
    assert text == "\"REGION\" = 'EU' AND \"ID\" > 1"


def test_servers_differing_in_case_get_folders_differing_beyond_case(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """On a case-insensitive file system (macOS, Windows) `HQ/` and `hq/` are one folder."""
    model = tmp_path / "m.json"
    model.write_text(two_site_model("HQ", "hq").model_dump_json(by_alias=True, exclude_defaults=True))
    out = tmp_path / "out"
    assert main(["export", str(model), "--to", "postgresql", "--out", str(out), "--force"]) == 0
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert len(folders) == 2 and len({f.lower() for f in folders}) == 2, folders
    readme = (out / "README.txt").read_text()
    assert all(f"conninfo_{f}" in readme for f in folders)
    capsys.readouterr()


def test_verify_of_a_model_the_export_refuses_is_one_line_before_any_server_starts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A column name over PostgreSQL's 63 bytes: `export` refuses it with one line, so must `verify`."""
    long = "N" * 64
    doc = json.loads(two_site_model("a", "b").model_dump_json(by_alias=True, exclude_defaults=True))
    for t in doc["tables"]:
        t["columns"][1]["name"] = long
    for m in doc["mappings"]:
        m["columns"] = {"ID": "ID", long: long}
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc))
    (tmp_path / "data" / "changes").mkdir(parents=True)
    (tmp_path / "data" / "changes" / "changes.jsonl").write_text("")
    rc = main(["verify", str(model), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert "table a.ITEM: the name 'NNN" in err and "63 bytes" in err


# Every function Mapwright's where allows (engine/sql/allowlist.py), casts, and the operators.
WHERES = ["concat(NAME, 'x') = 'ax'", "concat_ws('-', NAME, NAME) = 'a-a'", "abs(QTY) > 1", "coalesce(NAME, 'x') = 'x'",
          "if(QTY > 1, 1, 0) = 1", "length(NAME) > 1", "lower(NAME) = 'a'", "nvl(NAME, 'x') = 'x'",
          "regexp_replace(NAME, 'a', 'b') = 'b'", "round(QTY, 1) > 1", "substr(NAME, 1, 2) = 'ab'",
          "substring(NAME, 1, 2) = 'ab'", "trim(NAME) = 'a'", "try_cast(NAME AS INT) = 1", "upper(NAME) = 'A'",
          "cast(NAME AS INT) = 1", "cast(TS AS STRING) = 'x'", "cast(NAME AS TIMESTAMP) > TS", "TS > '2020-01-01'",
          "NAME LIKE 'a%'", "NAME RLIKE 'a'", "QTY / 2 > 1", "QTY % 2 = 1", "NAME IS NOT NULL AND QTY IN (1, 2)",
          # the functions the allow-list grew by: written where PostgreSQL has them alike, else refused
          "year(TS) = 2026", "month(TS) = 1", "floor(QTY) = 1", "greatest(QTY, 3) > 3", "least(QTY, 3) < 3",
          "nullif(QTY, 0) > 1", "isnull(NAME)", "isnotnull(NAME)", "startswith(NAME, 'a')", "instr(NAME, 'a') > 0",
          "lpad(NAME, 3, '0') = 'a'", "replace(NAME, 'a', 'b') = 'c'", "reverse(NAME) = 'a'", "ltrim(NAME) = 'a'",
          "initcap(NAME) = 'A'", "left(NAME, 2) = 'ab'", "right(NAME, 2) = 'ab'", "contains(NAME, 'a')",
          "endswith(NAME, 'a')"]
SPARK_MEANING = {"initcap(NAME) = 'A'", "left(NAME, 2) = 'ab'", "right(NAME, 2) = 'ab'", "contains(NAME, 'a')",
                 "endswith(NAME, 'a')"}


def test_every_row_filter_the_export_writes_is_one_postgresql_accepts(pg_server: Any) -> None:
    """A where PostgreSQL refuses in a row filter is a finding; before, 3-publications.sql stopped at it."""
    database = "row_filters"
    pg_server.create_database(database)
    pg_server.psql('CREATE TABLE "T" ("ID" int PRIMARY KEY, "NAME" varchar(20), "QTY" int, "TS" timestamp)', database)
    refused, written = [], []
    for n, where in enumerate(WHERES):
        text, _, problem = row_filter_sql(where)
        if problem is not None:
            refused.append(where)
            continue
        pg_server.psql(f'CREATE PUBLICATION "p{n}" FOR TABLE ONLY "T" WHERE ({text})', database)  # raises if refused
        written.append(where)
    assert set(refused) == {"concat_ws('-', NAME, NAME) = 'a-a'", "try_cast(NAME AS INT) = 1",
                            "cast(NAME AS INT) = 1", "cast(TS AS STRING) = 'x'", "cast(NAME AS TIMESTAMP) > TS",
                            *SPARK_MEANING}
    assert len(written) == len(WHERES) - 5 - len(SPARK_MEANING)
