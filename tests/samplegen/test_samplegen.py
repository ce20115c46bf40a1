"""`generate_sample` and `mapwright sample`: deterministic files, schema versions, Debezium events, outages,
malformed lines, the 2-server model a user builds, and a data folder written as runs write theirs (a user's
file refused, cancel, a kill -9, a full disk)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kit import record_docs, tree

from engine.model import load_model
from engine.model.schema import Model
from engine.run.semantics.reference import run_reference
from engine.sampledata.staging import MARKER
from engine.samplegen import Outage, SampleCancelled, SampleError, SampleOptions, generate_sample
from engine.samplegen.cli import add_parser, main
from resources import SAMPLE_MODEL

ROOT = Path(__file__).resolve().parents[2]
ORDERING = ROOT / "tests" / "fixtures" / "examples" / "ordering_conflict" / "model.json"


@pytest.fixture(scope="module")
def orders() -> Model:
    return load_model(SAMPLE_MODEL)


def two_servers() -> Model:
    """The model a user builds in the designer: T on a (priority 20) and b (10), copied both ways, and
    [NAME, QTY, UPDATED] resolved by latest_timestamp(UPDATED), then site_priority."""
    columns = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
               {"name": "QTY", "type": "INTEGER"}, {"name": "UPDATED", "type": "TIMESTAMP"}]
    copy = {c["name"]: c["name"] for c in columns}
    group = {"name": "g", "columns": ["NAME", "QTY", "UPDATED"],
             "resolution": [{"method": "latest_timestamp", "column": "UPDATED"}, {"method": "site_priority"}]}
    return Model.model_validate({
        "format": "mapwright/1", "name": "two",
        "servers": [{"id": "a", "dbms": "postgresql", "priority": 20},
                    {"id": "b", "dbms": "postgresql", "priority": 10}],
        "tables": [{"server": s, "name": "T", "columns": columns, "primary_key": ["ID"]} for s in "ab"],
        "mappings": [{"id": "a_to_b", "source": "a.T", "target": "b.T", "columns": copy, "reverse": "b_to_a"},
                     {"id": "b_to_a", "source": "b.T", "target": "a.T", "columns": copy, "reverse": "a_to_b"}],
        "conflicts": [{"table": f"{s}.T", "column_groups": [group]} for s in "ab"]})


def test_the_same_seed_gives_the_same_bytes_outages_and_rejected_malformed_lines(orders: Model,
                                                                                 tmp_path: Path) -> None:
    options = SampleOptions(seed=5, rows=20, changes=300, malformed_rate=0.05,
                            outages=(Outage.parse("branch:10:00-10:20"),))
    first = generate_sample(orders, tmp_path / "a", options)
    generate_sample(orders, tmp_path / "b", options)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert tree(tmp_path / "a") != tree(generate_sample(orders, tmp_path / "c", SampleOptions(seed=6, rows=20,
                                                                                              changes=300)).out)
    assert sorted(json.loads((tmp_path / "a" / MARKER).read_text())["files"]) == sorted(first.files)
    links = json.loads((tmp_path / "a" / "schedule.json").read_text())["links"]
    downs = {(link["from"], link["to"]): link.get("down") for link in links}
    assert downs[("branch", "hq")] == downs[("hq", "branch")] == [["2026-01-05T10:00:00Z", "2026-01-05T10:20:00Z"]]
    assert all(1 <= link["delay_s"] <= 60 for link in links)
    run = run_reference(orders, tmp_path / "a")
    assert first.malformed == run.counts.rejects == round(0.05 * first.changes) > 0
    assert run.counts.records == first.changes + first.malformed
    kinds = ("not JSON", "unknown table", "unknown op", "bad timestamp", "do not fit", "missing key column",
             "unknown schema_version")
    assert {k for k in kinds if any(k in r.reason for r in run.rejects)} == set(kinds)


def test_a_table_with_replication_definitions_gets_older_versions_earlier(orders: Model, tmp_path: Path) -> None:
    generate_sample(orders, tmp_path, SampleOptions(seed=2, rows=20, changes=400))
    web_orders = [d for d in record_docs(tmp_path) if d["site"] == "web" and d["table"] == "ORDERS"]
    versions = [d["schema_version"] for d in sorted(web_orders, key=lambda d: d["commit_ts"])]
    assert set(versions) == {1, 2} and versions == sorted(versions)
    assert all("PAYMENT_REF" not in (d.get("after") or d["before"]) for d in web_orders if d["schema_version"] == 1)
    assert all("schema_version" not in d for d in record_docs(tmp_path) if d["table"] != "ORDERS")
    assert run_reference(orders, tmp_path).counts.rejects == 0


def test_debezium_events_run_like_the_records(orders: Model, tmp_path: Path) -> None:
    summary = generate_sample(orders, tmp_path, SampleOptions(seed=4, rows=20, changes=300, debezium=True))
    assert not (tmp_path / "snapshots").exists()
    assert {p.parent.name for p in tmp_path.glob("changes/debezium/*/*.jsonl")} == {"hq", "branch", "web"}
    run = run_reference(orders, tmp_path)
    assert run.counts.rejects == 0 and run.counts.records == summary.changes and run.conflicts
    assert sum(len(rows) for rows in run.tables.values()) > 0


def test_update_conflicts_of_a_two_server_model_are_decided_by_each_method(tmp_path: Path) -> None:
    model = two_servers()
    summary = generate_sample(model, tmp_path, SampleOptions(seed=1, rows=30, changes=300, conflict_rate=0.2))
    run = run_reference(model, tmp_path)
    updates = {c["method"] for c in run.conflicts if c["type"] == "update"}
    assert {"latest_timestamp", "site_priority"} <= updates
    ties = [c for c in run.conflicts if c["method"] == "site_priority"]
    assert all(c["remote_new"]["UPDATED"] == c["local"]["UPDATED"] for c in ties)  # the backup breaks ties
    assert summary.conflict_keys > 0 and run.counts.rejects == 0


def test_a_folder_holding_a_users_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    model = two_servers()
    out = tmp_path / "data"
    generate_sample(model, out, SampleOptions(rows=10, changes=50))
    generate_sample(model, out, SampleOptions(seed=2, rows=10, changes=50))  # its own files: replaced
    for name in ("changes/my_capture.jsonl", "snapshots/a/MY_TABLE.csv"):
        (out / name).write_text("mine\n")
        before = tree(out)
        with pytest.raises(SampleError, match=name):
            generate_sample(model, out, SampleOptions(seed=3, rows=10, changes=50))
        assert tree(out) == before
        (out / name).unlink()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    with pytest.raises(SampleError, match="notes.txt"):
        generate_sample(model, tmp_path / "other")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "other"]


def test_cancel_stops_soon_and_writes_nothing(tmp_path: Path) -> None:
    model = two_servers()
    out = tmp_path / "data"
    generate_sample(model, out, SampleOptions(rows=10, changes=50))
    before = tree(out)
    cancel = threading.Event()
    seen: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        seen.append(stage)
        cancel.set()

    started = time.monotonic()
    with pytest.raises(SampleCancelled):
        generate_sample(model, out, SampleOptions(rows=2000, changes=200_000), progress=progress, cancel=cancel)
    assert time.monotonic() - started < 10 and seen
    assert tree(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["data"]


GENERATE = """
import sys
from pathlib import Path
from engine.model import load_model
from engine.samplegen import SampleOptions, generate_sample
generate_sample(load_model(sys.argv[1]), Path(sys.argv[2]), SampleOptions(seed=int(sys.argv[3]), rows=100,
                changes=2000))
"""


def test_a_kill_9_leaves_the_old_data_or_the_new_whole(tmp_path: Path) -> None:
    out, new = tmp_path / "data", tmp_path / "new"
    model = load_model(ORDERING)
    generate_sample(model, out, SampleOptions(seed=1, rows=100, changes=2000))  # what GENERATE writes
    generate_sample(model, new, SampleOptions(seed=2, rows=100, changes=2000))
    old_tree, new_tree = tree(out), tree(new)
    outcomes = set()
    for delay in (0.8, 1.6, 60):
        proc = subprocess.Popen([sys.executable, "-c", GENERATE, str(ORDERING), str(out), "2"], cwd=ROOT)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        now = tree(out)
        assert now in (old_tree, new_tree)
        assert sorted(json.loads(now[MARKER])["files"]) == sorted(n for n in now if n != MARKER)
        outcomes.add("new" if now == new_tree else "old")
        if now == new_tree:
            break
    assert "new" in outcomes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "new"]  # leftovers of the kills removed


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mapwright")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["sample", *argv])


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "two.json"
    model.write_text(two_servers().model_dump_json(exclude_defaults=True))
    assert main(_args(str(model), "--out", str(tmp_path / "d"), "--rows", "10", "--changes", "40",
                      "--outage", "a:09:00-09:30", "--malformed-rate", "0.1")) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("wrote 2 tables, 20 snapshot rows, ") and line.endswith(str(tmp_path / "d"))
    assert "down" in (tmp_path / "d" / "schedule.json").read_text()
    assert main(_args(str(ROOT / "tests/fixtures/examples/bidirectional.json"), "--out", str(tmp_path / "e"))) == 1
    err = capsys.readouterr().err
    assert "BI001" in err and "no sample written" in err and not (tmp_path / "e").exists()
    bad: list[tuple[list[str], str]] = [
        (["--out", str(model)], "is not a folder"), (["--out", str(tmp_path / "f"), "--from", "sqlite://"], "--server"),
        (["--out", str(tmp_path / "f"), "--outage", "z:09:00-09:30"], "no server"), (["--out", " "], "empty path")]
    for argv, says in bad:
        assert main(_args(str(model), *argv)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, err
    with pytest.raises(SystemExit):
        _args(str(model), "--out", "x", "--outage", "a:10:00")
    with pytest.raises(ValueError, match="must end after"):
        Outage.parse("a:10:00-09:00")


def test_a_full_disk_is_one_line_and_keeps_the_old_data(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True,
                         text=True)
    if res.returncode != 0:
        pytest.fail(f"cannot mount a small tmpfs for the full-disk test (needs root): {res.stderr.strip()}")
    try:
        model = two_servers()
        generate_sample(model, disk / "data", SampleOptions(rows=10, changes=20))
        before = tree(disk / "data")
        with pytest.raises(SampleError) as caught:
            generate_sample(model, disk / "data", SampleOptions(rows=2000, changes=3000))
        message = str(caught.value)
        assert "disk is full" in message and "\n" not in message and "None" not in message
        assert tree(disk / "data") == before and sorted(p.name for p in disk.iterdir()) == ["data"]
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)



def every_type() -> Model:
    """Two servers (Oracle, PostgreSQL) copying a table of every kind of column both ways."""
    types = {"ID": "BIGINT", "CODE": "CHAR(3)", "NOTE": "CLOB", "DOC": "BLOB", "RAWV": "VARBINARY(8)", "OK": "BOOLEAN",
             "B": "BIT", "BORN": "DATE", "RATIO": "REAL", "AMOUNT": "NUMBER(6,3)", "GEO": "UDT:point",
             "TAGS": "SET(VARCHAR(10))", "SMALL": "SMALLINT", "TXT": "NVARCHAR(5)", "AT": "DATETIME"}
    columns: list[dict[str, object]] = [{"name": name, "type": t} for name, t in types.items()]
    columns[0]["nullable"] = columns[1]["nullable"] = False
    columns[10]["stream_support"] = True
    columns[13]["default"] = "'x'"
    copy = {c["name"]: c["name"] for c in columns}
    return Model.model_validate({
        "format": "mapwright/1", "servers": [{"id": "o", "dbms": "oracle"}, {"id": "p", "dbms": "postgresql"}],
        "tables": [{"server": s, "name": "ALLT", "columns": columns, "primary_key": ["ID", "CODE"],
                    "unique_indexes": [{"name": "UX", "columns": ["TXT", "SMALL"]}]} for s in "op"],
        "mappings": [{"id": "op", "source": "o.ALLT", "target": "p.ALLT", "columns": copy},
                     {"id": "po", "source": "p.ALLT", "target": "o.ALLT", "columns": copy}]})


def test_every_column_type_runs_alike_as_records_and_as_debezium_events(tmp_path: Path) -> None:
    model = every_type()
    runs = []
    for debezium in (False, True):
        options = SampleOptions(rows=30, changes=300, debezium=debezium, malformed_rate=0.05)
        summary = generate_sample(model, tmp_path / str(debezium), options)
        run = run_reference(model, tmp_path / str(debezium))
        assert run.counts.rejects == summary.malformed > 0 and run.counts.records == summary.changes + summary.malformed
        runs.append(run)
    records, events = runs
    assert records.tables == events.tables and len(records.conflicts) == len(events.conflicts) > 0
    rows = records.tables["p.ALLT"]
    assert any(r["GEO"] is None and r["DOC"] is not None for r in rows)  # opaque types NULL, the others filled
    assert all(r["BORN"] is None or r["BORN"].hour == 0 for r in rows)


def test_initial_rows_stand_in_for_a_servers_snapshot(tmp_path: Path) -> None:
    model = two_servers()
    mine = [{"ID": n, "NAME": f"row {n}", "QTY": n * 2, "UPDATED": None} for n in range(1, 6)]
    summary = generate_sample(model, tmp_path, SampleOptions(rows=50, changes=30, conflict_rate=0),
                              initial={"a.T": mine})
    assert summary.snapshot_rows == 10
    for server in "ab":
        text = (tmp_path / "snapshots" / server / "T.csv").read_text()
        assert text.splitlines() == ["ID,NAME,QTY,UPDATED"] + [f"{n},row {n},{2 * n}," for n in range(1, 6)]
    run = run_reference(model, tmp_path)
    assert run.counts.rejects == 0 and run.conflicts == [] and run.counts.records == 30


def test_a_folder_of_an_earlier_version_is_taken_only_with_the_files_it_would_write(tmp_path: Path) -> None:
    from engine.sampledata.staging import check_out

    (tmp_path / "changes").mkdir()
    (tmp_path / MARKER).write_text('{"written_by": "python -m engine.sampledata"}\n')  # no list of files
    (tmp_path / "changes" / "hq-am.jsonl").write_text("{}\n")
    check_out(tmp_path)
    check_out(tmp_path, ["changes/hq-am.jsonl", "schedule.json"])
    (tmp_path / "changes" / "my_capture.jsonl").write_text("{}\n")
    with pytest.raises(SampleError, match="changes/my_capture.jsonl"):
        check_out(tmp_path, ["changes/hq-am.jsonl"])


def test_progress_names_each_stage_and_ends_done(tmp_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    generate_sample(two_servers(), tmp_path, SampleOptions(rows=300, changes=3000),
                    progress=lambda stage, done, total: calls.append((stage, done, total)))
    stages = [stage for stage, _, _ in calls]
    assert stages[-1] == "done" and "changes" in stages and set(stages) <= {"snapshot", "changes", "write", "done"}
    assert all(0 <= done <= total for stage, done, total in calls if stage == "changes")
