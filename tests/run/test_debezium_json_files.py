"""Debezium `.json` capture files (engine/run/input/jsonvalues.py, debezium.file_events): events printed one after
another over many lines, as Debezium's documentation prints them, a JSON array of events, a bare payload;
what is not an event is one reject naming the line it starts on. Read a line at a time, Debezium's own
documented events were one "not JSON" reject per line, in a run that said it succeeded."""

from __future__ import annotations

import json
from pathlib import Path

from builders import col, mapping, model, server, table

from engine.model.schema import Model
from engine.run.input.debezium.files import read_debezium
from engine.run.input.records import ChangeRecord

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "debezium_docs"
COLUMNS = [col("id", nullable=False), col("first_name", "VARCHAR(255)", nullable=False),
           col("last_name", "VARCHAR(255)", nullable=False), col("email", "VARCHAR(255)", nullable=False)]


def customers(identity: str = "full") -> Model:
    """Debezium's example table on `pg`, copied to `hq`."""
    return model([server("pg", replica_identity=identity), server("hq")],
                 [table("pg", "customers", COLUMNS, pk=["id"]), table("hq", "customers", COLUMNS, pk=["id"])],
                 [mapping("m", "pg.customers", "hq.customers", {c["name"]: c["name"] for c in COLUMNS})])


def doc_text(name: str) -> str:
    return (DOCS / f"{name}.json").read_text()


def write(data: Path, name: str, text: str) -> Path:
    path = data / "changes" / "debezium" / "pg" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_documented_events_printed_one_after_another_are_read_from_the_lines_they_start_on(
        tmp_path: Path) -> None:
    create, delete = doc_text("create"), doc_text("delete")
    write(tmp_path, "events.json", create + delete)
    got = read_debezium(tmp_path, customers())
    assert got.rejects == []
    assert [(r.op, r.line, r.txn) for r in got.records] == [("I", 1, "555"), ("D", create.count("\n") + 1, "556")]
    assert got.records[0].after == {"id": 1, "first_name": "Anne", "last_name": "Kretchmar",
                                    "email": "annek@noanswer.org"}
    assert got.records[1].before is not None and got.records[1].before["id"] == 1


def test_an_array_of_events_a_bare_payload_and_one_event_alone(tmp_path: Path) -> None:
    create, delete = json.loads(doc_text("create")), json.loads(doc_text("delete"))
    write(tmp_path, "a.json", json.dumps([create, delete]))  # on one line: each its own number, in order
    write(tmp_path, "b.json", "[\n" + json.dumps(create, indent=2) + ",\n" + json.dumps(delete, indent=2) + "\n]\n")
    write(tmp_path, "c.json", json.dumps(create["payload"], indent=4))  # schemas.enable=false
    got = read_debezium(tmp_path, customers())
    assert got.rejects == []
    lines = {(Path(r.file).name, r.op, r.line) for r in got.records}
    second = 2 + json.dumps(create, indent=2).count("\n") + 1
    assert lines == {("a.json", "I", 1), ("a.json", "D", 2), ("b.json", "I", 2), ("b.json", "D", second),
                     ("c.json", "I", 1)}
    assert all(isinstance(r, ChangeRecord) for r in got.records)
    assert len({(r.file, r.line) for r in got.records}) == 5


def test_what_is_not_an_event_is_one_reject_naming_the_line_it_starts_on_and_reading_goes_on(
        tmp_path: Path) -> None:
    create, delete = doc_text("create"), doc_text("delete")
    broken = '{\n    "payload": {\n        "op": "c",\n'  # cut short: not JSON up to the next event
    text = create + "42\n" + broken + delete + '"just text"\n'
    path = write(tmp_path, "mixed.json", text)
    got = read_debezium(tmp_path, customers())
    line = create.count("\n") + 1
    assert [(r.op, r.line) for r in got.records] == [("I", 1), ("D", line + 1 + broken.count("\n"))]
    assert [(r.file, r.line) for r in got.rejects] == [(str(path), line), (str(path), line + 1),
                                                       (str(path), text.count("\n"))]
    assert "expected a JSON object" in got.rejects[0].reason
    assert got.rejects[1].reason.startswith("not JSON") and got.rejects[1].raw == broken.rstrip()
    assert "expected a JSON object" in got.rejects[2].reason


def test_a_jsonl_file_is_still_read_a_line_at_a_time(tmp_path: Path) -> None:
    """One event a line stays the `.jsonl` reading: a pretty-printed event there is a reject a line."""
    create = json.loads(doc_text("create"))
    write(tmp_path, "a.jsonl", "\ufeff" + json.dumps(create) + "\r\n\n" + json.dumps(json.loads(doc_text("delete")))
          + "\n")
    write(tmp_path, "b.jsonl", json.dumps(create, indent=1))
    got = read_debezium(tmp_path, customers())
    assert [(Path(r.file).name, r.op, r.line) for r in got.records] == [("a.jsonl", "I", 1), ("a.jsonl", "D", 3)]
    assert len(got.rejects) == json.dumps(create, indent=1).count("\n") + 1
