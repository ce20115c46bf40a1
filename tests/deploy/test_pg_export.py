"""`mapwright export --to postgresql`: SQL per server, quoting, findings for what PostgreSQL cannot express."""

from __future__ import annotations

import json
from pathlib import Path

import sqlglot
from pgmodel import three_site_model

from engine.cli import main
from engine.deploy.postgresql import plan_deployment, publications_sql
from engine.model.io import parse_model


def _export(tmp_path: Path, doc: dict, capsys) -> tuple[int, Path, str]:  # type: ignore[no-untyped-def,type-arg]
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc))
    out = tmp_path / "out"
    rc = main(["export", str(model), "--to", "postgresql", "--out", str(out), "--force"])
    return rc, out, capsys.readouterr().err


def test_three_sites_write_each_step_per_server_and_a_readme(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = _export(tmp_path, three_site_model(), capsys)
    assert rc == 0
    for server in ("hq", "east", "west"):
        assert sorted(p.name for p in (out / server).iterdir()) == [
            "1-settings.sql", "2-tables.sql", "3-publications.sql", "4-subscriptions.sql"]
    hq_pubs = (out / "hq" / "3-publications.sql").read_text()
    assert 'CREATE PUBLICATION "mw_hq_to_west" FOR TABLE ONLY "ITEM" ("REGION", "ID", "NAME", "QTY") ' \
           "WHERE (\"REGION\" = 'EU')" in hq_pubs
    west_subs = (out / "west" / "4-subscriptions.sql").read_text()
    assert "CONNECTION :'conninfo_hq'" in west_subs and "origin = none" in west_subs
    assert "track_commit_timestamp" in (out / "east" / "1-settings.sql").read_text()
    readme = (out / "README.txt").read_text()
    assert "conninfo_hq" in readme and readme.index("1-settings") < readme.index("4-subscriptions")
    assert "password=" not in "".join(p.read_text() for p in out.rglob("*.sql"))


def test_what_postgresql_cannot_express_is_a_finding_per_mapping(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = three_site_model()
    doc["servers"].append({"id": "ora", "dbms": "oracle"})
    doc["tables"].append({"server": "ora", "name": "ITEM", "columns": doc["tables"][0]["columns"],
                          "primary_key": ["REGION", "ID"]})
    doc["mappings"][0]["columns"]["NOTE"] = {"method": "upper", "input": "NOTE"}
    doc["mappings"].append({"id": "hq_to_ora", "source": "hq.ITEM", "target": "ora.ITEM",
                            "columns": {c: c for c in ("REGION", "ID", "NAME", "QTY", "NOTE")}})
    doc["conflicts"][1]["on_insert_exists"] = "overwrite"
    doc["conflicts"][1]["column_groups"][0]["resolution"] = [{"method": "latest_timestamp", "column": "QTY"},
                                                             {"method": "overwrite"}]
    rc, out, err = _export(tmp_path, doc, capsys)
    assert rc == 0
    findings = json.loads((out / "report.json").read_text())["findings"]
    by_mapping = {(f.get("mapping"), f.get("column"), f["kind"]) for f in findings}
    assert ("hq_to_east", "NOTE", "not_deployed") in by_mapping
    assert ("hq_to_ora", None, "not_deployed") in by_mapping
    messages = " | ".join(f["message"] for f in findings if f.get("mapping") == "hq_to_east")
    assert "on_insert_exists: overwrite" in messages and "latest_timestamp" in messages
    assert "hq_to_ora: not deployed: its target server ora is oracle" in err
    assert not (out / "ora").exists()
    assert '"NOTE"' not in (out / "hq" / "3-publications.sql").read_text().split("mw_hq_to_west")[0]


def test_names_and_filters_from_the_model_are_quoted(tmp_path: Path) -> None:
    doc = three_site_model()
    evil = 'IT"EM%; DROP TABLE x; --'  # a percent sign too: it had been written %%
    for t in doc["tables"]:
        if t["name"] == "ITEM":
            t["name"] = evil
    for m in doc["mappings"]:
        m["source"] = m["source"].replace("ITEM", evil)
        m["target"] = m["target"].replace("ITEM", evil)
    doc["mappings"][2]["where"] = "REGION <> 'o\\'; DROP TABLE y; --'"  # Spark's escaped quote
    doc["conflicts"] = []
    model = parse_model(json.dumps(doc), "m.json")
    plan = plan_deployment(model)
    statements = publications_sql(plan, "hq")
    assert len(statements) == 2
    for statement in statements:  # each is one statement that parses, the names whole
        parsed = sqlglot.parse(statement.replace("FOR TABLE ONLY", "FOR TABLE"), read="postgres")
        assert len(parsed) == 1
    assert '"IT""EM%; DROP TABLE x; --"' in statements[0]
    assert """WHERE ("REGION" <> 'o''; DROP TABLE y; --')""" in statements[1]
    # a row filter on a non-key column needs REPLICA IDENTITY FULL, which needs every column: not deployed
    doc["mappings"][2]["where"] = "NAME <> 'x'"
    plan = plan_deployment(parse_model(json.dumps(doc), "m.json"))
    assert any(f.mapping == "hq_to_west" and f.kind == "not_deployed" for f in plan.findings)
    assert len(publications_sql(plan, "hq")) == 1


def test_filters_and_keys_postgresql_cannot_use_are_not_deployed() -> None:
    doc = three_site_model()
    doc["mappings"][2]["where"] = "REGION = 'EU' AND ID < rand() * 10"
    doc["mappings"][0]["columns"].pop("ID")  # hq_to_east no longer copies part of east's primary key
    plan = plan_deployment(parse_model(json.dumps(doc), "m.json"))
    reasons = {f.mapping: f.message for f in plan.findings if f.kind == "not_deployed"}
    assert "immutable" in reasons["hq_to_west"]
    assert "primary key" in reasons["hq_to_east"]
    assert publications_sql(plan, "hq") == []


def test_a_model_without_postgresql_servers_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = three_site_model()
    for s in doc["servers"]:
        s["dbms"] = "oracle"
    rc, out, err = _export(tmp_path, doc, capsys)
    assert rc == 2 and err.strip() == "mapwright: the model has no PostgreSQL server to deploy to"
    assert not out.exists()


def test_a_second_mapping_between_the_same_tables_is_not_deployed() -> None:
    doc = three_site_model()
    doc["mappings"].append({**doc["mappings"][0], "id": "hq_to_east_again", "reverse": None})
    plan = plan_deployment(parse_model(json.dumps(doc), "m.json"))
    assert [p.mapping for p in plan.publications if p.subscriber == "east"] == ["hq_to_east"]
    assert any(f.mapping == "hq_to_east_again" and "already replicates hq.ITEM" in f.message for f in plan.findings)


def test_a_new_export_removes_only_its_own_scripts_of_servers_the_model_no_longer_has(
        tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A west/ folder left from an earlier export read as a server still to deploy (GoldenGate's export
    already removed its stale `.prm` files)."""
    doc = three_site_model()
    assert _export(tmp_path, doc, capsys)[0] == 0
    out = tmp_path / "out"
    (out / "east" / "notes.txt").write_text("mine")
    (out / "east" / "5-mine.sql").write_text("-- Mapwright: settings of server east\n")  # not a step's name
    gone = {"east", "west"}
    doc["servers"] = [s for s in doc["servers"] if s["id"] not in gone] + [{"id": "north", "dbms": "postgresql"}]
    doc["tables"] = [t for t in doc["tables"] if t["server"] not in gone] + [
        dict(t, server="north") for t in doc["tables"] if t["server"] == "west"]
    doc["mappings"] = [dict(m, id=m["id"].replace("west", "north"), source=m["source"].replace("west", "north"),
                            target=m["target"].replace("west", "north"),
                            reverse=m["reverse"].replace("west", "north"))
                       for m in doc["mappings"] if "east" not in m["id"]]
    doc["conflicts"] = [dict(c, table=c["table"].replace("west", "north")) for c in doc["conflicts"]
                        if not c["table"].startswith("east")]
    rc, out, err = _export(tmp_path, doc, capsys)
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["README.txt", "east", "hq", "north", "report.json",
                                                     "report.txt"]
    assert sorted(p.name for p in (out / "east").iterdir()) == ["5-mine.sql", "notes.txt"]  # never theirs
