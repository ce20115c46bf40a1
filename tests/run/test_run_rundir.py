"""The run directory (docs/contract.md §6): contents, types, and no half-written run that looks finished."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runkit import build, copy_mapping, rec, table, ts

from engine.run.rundir.read import read_run_files
from engine.run.rundir.write import RunDirError, file_name, run_reference_to_dir, table_file
from engine.run.semantics.reference import RunCancelled

COLUMNS = {"ID": "INTEGER", "AMOUNT": "DECIMAL(8,2)", "AT": "TIMESTAMP", "NAME": "VARCHAR(10)", "DOC": "BLOB"}


def write_inputs(tmp: Path, lines: list[str]) -> tuple[Path, Path]:
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", COLUMNS, ["ID"]), table("t", "T", COLUMNS, ["ID"])],
                  [copy_mapping("m", "s.T", "t.T", list(COLUMNS))])
    model_path = tmp / "model.json"
    model_path.write_text(model.model_dump_json())
    data = tmp / "data"
    (data / "changes").mkdir(parents=True)
    (data / "changes" / "c.jsonl").write_text("\n".join(lines) + "\n")
    return model_path, data


LINES = [rec("s", "t1", "I", after={"ID": 1, "AMOUNT": "12.5", "AT": ts(1), "NAME": "a", "DOC": "cafe"}),
         rec("s", "t2", "I", after={"ID": 2, "NOPE": 1})]


def test_a_succeeded_run_writes_every_file_with_model_types(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    status, out = run_reference_to_dir(model_path, data, tmp_path / "run")
    assert status == "succeeded"
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert names == {"manifest.json", "tables/s/T.parquet", "tables/t/T.parquet", "conflicts.jsonl",
                     "conflicts.parquet", "error_queue.jsonl", "rejects.jsonl", "convergence.json"}
    target = pq.read_table(out / "tables/t/T.parquet")
    assert target.schema.field("AMOUNT").type == pa.decimal128(8, 2)
    assert target.schema.field("AT").type == pa.timestamp("us", tz="UTC")
    assert target.schema.field("ID").type == pa.int32()
    assert target.schema.field("DOC").type == pa.binary()  # as Spark writes a BLOB
    assert target.to_pylist() == [{"ID": 1, "AMOUNT": Decimal("12.50"), "AT": datetime(2026, 1, 5, 10, 1, tzinfo=UTC),
                                   "NAME": "a", "DOC": b"\xca\xfe"}]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "succeeded"
    assert manifest["counts"] == {"records": 2, "rejects": 1, "filtered": 0, "deliveries": 1, "applied": 1,
                                  "resolved": 0, "queued": 0, "conflicts": 0}
    assert len(manifest["model_sha256"]) == 64
    assert set(manifest["stages"]) == {"decode", "net_effect", "resolve", "converge"}
    assert manifest["started"] <= manifest["finished"]
    [reject] = [json.loads(x) for x in (out / "rejects.jsonl").read_text().splitlines()]
    assert (reject["line"], reject["raw"]) == (2, LINES[1]) and "NOPE" in reject["reason"]
    convergence = json.loads((out / "convergence.json").read_text())
    assert convergence == {"mappings": [{"mapping": "m", "compared": 1, "diverged": 0, "examples": []}]}


def test_a_failed_run_leaves_only_a_manifest_with_the_reason(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    (data / "schedule.json").write_text('{"links": [{"from": "s"}]}')
    status, out = run_reference_to_dir(model_path, data, tmp_path / "run")
    assert status == "failed"
    assert [p.name for p in out.iterdir()] == ["manifest.json"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "schedule.json" in manifest["reason"]
    assert manifest["counts"] is None


def test_a_cancelled_run_says_so(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)

    def progress(stage: str) -> None:
        if stage == "resolve":
            raise RunCancelled("stopped by the user")

    status, out = run_reference_to_dir(model_path, data, tmp_path / "run", progress)
    manifest = json.loads((out / "manifest.json").read_text())
    assert (status, manifest["status"], manifest["reason"]) == ("cancelled", "cancelled", "stopped by the user")
    assert [p.name for p in out.iterdir()] == ["manifest.json"]


def test_a_new_run_replaces_an_earlier_run_and_leaves_no_temporary_folders(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    (data / "schedule.json").write_text("not json")
    run_reference_to_dir(model_path, data, tmp_path / "run")
    (data / "schedule.json").unlink()
    status, out = run_reference_to_dir(model_path, data, tmp_path / "run")
    assert status == "succeeded"
    assert json.loads((out / "manifest.json").read_text())["status"] == "succeeded"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


def test_a_folder_that_is_not_a_run_directory_is_never_replaced(tmp_path: Path) -> None:
    model_path, data = write_inputs(tmp_path, LINES)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("keep me")
    with pytest.raises(RunDirError):
        run_reference_to_dir(model_path, data, precious)
    assert (precious / "thesis.txt").read_text() == "keep me"


def test_a_run_that_breaks_while_writing_leaves_nothing_that_looks_finished(tmp_path: Path,
                                                                             monkeypatch: Any) -> None:
    import engine.run.rundir.write as rundir

    model_path, data = write_inputs(tmp_path, LINES)

    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(rundir, "conflicts_arrow", broken)
    with pytest.raises(OSError):
        run_reference_to_dir(model_path, data, tmp_path / "run")
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "disk full" in manifest["reason"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "model.json", "run"]


@pytest.mark.parametrize(("name", "written"), [
    ("T", "T"), ("unit price", "unit price"), ("a.b", "a.b"), ("RATE%", "RATE%"), ("Größe", "Größe"),
    ("../../../escaped", "..%2F..%2F..%2Fescaped"), ("a/b", "a%2Fb"), ("a\\b", "a%5Cb"), ("..", "%2E%2E"),
    (".", "%2E"), (".hidden", ".hidden"), ("A%2FB", "A%252FB"), ("%41%", "%2541%")])
def test_a_name_is_one_file_name_inside_its_folder(name: str, written: str) -> None:
    assert file_name(name) == written
    path = table_file(Path("/r"), name, name)
    assert path.parent.parent == Path("/r/tables") and path.name == f"{written}.parquet"


def test_two_names_never_share_a_file() -> None:
    names = ["A/B", "A%2FB", "A%252FB", "A%2fB", "A\\B", "A%5CB", "RATE%", "RATE%25", "..", "%2E%2E", ".", "%2E"]
    assert len({file_name(n) for n in names}) == len(names)


def test_a_long_name_is_cut_with_a_digest_of_the_whole() -> None:
    a, b = file_name("x" * 300), file_name("x" * 299 + "y")
    assert a != b and len(a.encode()) <= 200 and a.startswith("x" * 150)


def test_no_server_or_table_name_writes_outside_the_run_directory(tmp_path: Path) -> None:
    """A table named `../../../escaped`, `a/b` or 300 characters long, and a server `..`: every final table
    stays in `tables/<server>/`, and the run directory reads back whole (a probe's case: the Spark writer
    had put `escaped.parquet` beside the run directory)."""
    cols = {"ID": "INTEGER", "V": "VARCHAR(5)"}
    names = ["../../../escaped", "a/b", "L" * 300]
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "..", "dbms": "oracle"}, {"id": "d.o.t", "dbms": "oracle"}],
                  [table("s", n, cols, ["ID"]) for n in names] + [table("..", "T", cols, ["ID"]),
                                                                   table("d.o.t", "T", cols, ["ID"])],
                  [copy_mapping("m", "s.a/b", "...T", list(cols)), copy_mapping("n", "s.a/b", "d.o.t.T", list(cols))])
    root = tmp_path / "deep" / "er"
    root.mkdir(parents=True)
    (root / "model.json").write_text(model.model_dump_json())
    (root / "data" / "changes").mkdir(parents=True)
    (root / "data" / "changes" / "c.jsonl").write_text(rec("s", "t1", "I", table="a/b", after={"ID": 1, "V": "x"}))
    status, out = run_reference_to_dir(root / "model.json", root / "data", root / "run")
    assert status == "succeeded"
    outside = {p for p in tmp_path.rglob("*.parquet") if out not in p.parents}
    assert outside == set()
    assert len(list((out / "tables").glob("*/*.parquet"))) == 5
    assert pq.read_table(table_file(out, "..", "T")).to_pylist() == [{"ID": 1, "V": "x"}]
    assert pq.read_table(table_file(out, "d.o.t", "T")).to_pylist() == [{"ID": 1, "V": "x"}]
    read_run_files(out)  # `mapwright conflicts` and the browser find every table


def test_queue_and_conflicts_are_in_the_order_things_happened() -> None:
    """Times had been sorted as text (`10:00:00Z` after `10:00:00.500000Z`) and a transaction's entries by
    their JSON, so an error queue did not replay in order."""
    from engine.run.rundir.write import in_time_order

    def entry(txn: str, seq: int, at: str, op: str) -> dict[str, Any]:
        return {"site": "B", "txn": txn, "seq": seq, "commit_ts": at, "origin": "A", "table": "T", "op": op,
                "delivered_at": at}

    half, whole = "2026-01-05T10:00:00.500000Z", "2026-01-05T10:00:00Z"
    items = [entry("t2", 0, half, "U"), entry("t1", 1, whole, "I"), entry("t1", 0, whole, "D"),
             entry("t0", -5, "2026-01-05T09:59:59.999999Z", "U")]
    assert [(e["txn"], e["seq"]) for e in in_time_order(items)] == [("t0", -5), ("t1", 0), ("t1", 1), ("t2", 0)]


def test_entries_of_one_instant_are_ordered_by_their_plain_json() -> None:
    """Conflicts of one delivery (one per column group) tie on every part of the time order but the last:
    the entry as plain JSON with sorted keys, whatever values (decimals, times, bytes) it holds."""
    from engine.core.values import to_json_value
    from engine.run.rundir.write import time_order_key

    when = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    item = {"site": "B", "origin": "A", "table": "T", "txn": "t1", "delivered_at": "2026-01-05T10:00:00Z",
            "column_group": "g", "local": {"ID": 1, "AMT": Decimal("1.50"), "TS": when, "B": b"\x00\xff",
                                           "F": 0.5, "N": None, "L": [1, (2, 3)]}, "dkey": {"ID": 1}}
    key = time_order_key(item)
    assert key.split("\x00")[-1] == json.dumps(to_json_value(item), sort_keys=True)
    assert '"AMT": "1.50"' in key and '"B": "00ff"' in key and '"TS": "2026-01-05T10:00:00Z"' in key
    second = {**item, "column_group": "h"}
    assert sorted([second, item], key=time_order_key) == [item, second]
