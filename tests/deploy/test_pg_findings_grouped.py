"""`export --to postgresql` says each kind of finding once (a rich schema gave hundreds of near-identical
lines), with the mappings it concerns; report.txt and report.json keep every finding per mapping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.deploy.pgfindings import DeployFinding, grouped_lines
from engine.deploy.postgresql import plan_deployment
from engine.model.io import parse_model

COLUMNS = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "K", "type": "INTEGER"},
           {"name": "NAME", "type": "VARCHAR(20)"}]


def five_tables() -> dict[str, Any]:
    """T0..T4 copied from a to b, each with a distribution key that is not the primary key and an upper()."""
    mappings = [{"id": f"m{i}", "source": f"a.T{i}", "target": f"b.T{i}", "distribution_key": ["ID", "K"],
                 "columns": {"ID": "ID", "K": "K", "NAME": {"method": "upper", "input": "NAME"}}} for i in range(5)]
    mappings[3]["distribution_key"] = ["ID", "NAME"]
    mappings[4]["columns"]["NAME"] = {"method": "trim", "input": "NAME"}
    return {"format": "mapwright/1", "name": "grouped", "servers": [{"id": s, "dbms": "postgresql"} for s in "ab"],
            "tables": [{"server": s, "name": f"T{i}", "columns": COLUMNS, "primary_key": ["ID"]}
                       for i in range(5) for s in "ab"],
            "mappings": mappings}


def test_the_command_line_prints_each_kind_once_and_the_report_keeps_every_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = five_tables()
    (tmp_path / "m.json").write_text(json.dumps(doc))
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "m.json"), "--to", "postgresql", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    five = "5 mappings: m0, m1, m2 and 2 more"
    missing = "skips the change ({0}) and logs it; the table ends the same but nothing is queued"
    assert [line.removeprefix("mapwright: finding: ") for line in captured.err.splitlines()] == [
        "not deployed (5 columns: m0.NAME, m1.NAME, m2.NAME and 2 more): method ...: PostgreSQL only copies "
        "columns; left out",
        f"differs ({five}): on_update_missing: error: PostgreSQL {missing.format('update_missing')}",
        f"differs ({five}): on_delete_missing: error: PostgreSQL {missing.format('delete_missing')}",
        f"differs ({five}): columns K are in no column group: Mapwright sends a differing update of them to the "
        "error queue, PostgreSQL applies it (overwrite)",
        f"differs ({five}): the distribution key (...) is not the target's primary key: PostgreSQL finds rows by "
        "the primary key (replica identity)",
        "all mappings: differs: a DELETE whose old values differ from the subscriber's row: PostgreSQL deletes the "
        "row (delete_origin_differs) where Mapwright sends the delete to the error queue",
        "all mappings: differs: the schedule (delays and outages of schedule.json) is not deployed: PostgreSQL "
        "delivers each change as soon as the subscriber can apply it",
    ]
    assert "7 kind(s) of finding" in captured.out
    findings = plan_deployment(parse_model(json.dumps(doc), "m.json")).findings
    report = (out / "report.txt").read_text()
    assert f"{len(findings)} finding(s) of 7 kind(s)" in report
    assert all(f"\n{f.line()}\n" in report for f in findings)  # every one, with its mapping
    assert len(json.loads((out / "report.json").read_text())["findings"]) == len(findings) == 27


def test_a_finding_alone_keeps_its_own_line_and_model_wide_ones_are_never_merged() -> None:
    alone = DeployFinding("not_deployed", "its target server o is oracle, not PostgreSQL", "m")
    twice = [DeployFinding("differs", "column group g: x", "n", shape="column group ...: x"),
             DeployFinding("differs", "column group h: x", "n", shape="column group ...: x")]
    wide = [DeployFinding("differs", "same words"), DeployFinding("differs", "same words")]
    assert grouped_lines([alone, *twice, *wide]) == [
        "m: not deployed: its target server o is oracle, not PostgreSQL",
        "n: differs (2 times): column group ...: x",
        "all mappings: differs: same words", "all mappings: differs: same words"]
