"""The bundled sample's data: deterministic, committed as generated, and exercising every conflict path."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.model import load_model
from engine.model.schema import Model
from engine.rules import Severity, validate
from engine.run import RunResult, run_reference
from engine.run.input.records import change_lines, read_changes
from engine.sampledata import generate, main
from engine.sampledata.shop import Shop
from engine.sampledata.writer import MARKER
from resources import SAMPLE_MODEL

COMMITTED = SAMPLE_MODEL.parent / "orders-data"
DEBEZIUM = SAMPLE_MODEL.parent / "orders-debezium"
GROUP_METHODS = {"latest_timestamp", "earliest_timestamp", "minimum", "maximum", "additive", "average",
                 "overwrite", "discard", "priority_group", "site_priority"}
UNIQUE_METHODS = {"append_site_name", "append_sequence", "discard"}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def model() -> Model:
    return load_model(SAMPLE_MODEL)


@pytest.fixture(scope="module")
def run(model: Model) -> RunResult:
    return run_reference(model, COMMITTED)


# --- the model ---------------------------------------------------------------------


def test_the_sample_model_validates_without_errors(model: Model) -> None:
    errors = [f for f in validate(model) if f.severity is Severity.ERROR]
    assert errors == []


def test_the_sample_model_uses_every_method_and_policy(model: Model) -> None:
    chains = {step.method for entry in model.conflicts for group in entry.column_groups for step in group.resolution}
    assert chains == GROUP_METHODS
    assert {u.resolution for entry in model.conflicts for u in entry.unique} >= UNIQUE_METHODS
    assert any(entry.scope == "transaction" for entry in model.conflicts)
    assert {e.on_insert_exists for e in model.conflicts} - {"error"}
    assert {e.on_update_missing for e in model.conflicts} - {"error"}
    assert {e.on_delete_missing for e in model.conflicts} - {"error"}
    assert any(False in entry.compare_old.values() for entry in model.conflicts)
    histories = [t for t in model.tables if len(t.replication_definitions or ()) > 1]
    assert histories, "one table should show a schema change (replication definition versions)"
    first, latest = sorted(histories[0].replication_definitions or (), key=lambda d: d.version)[-2:]
    assert {c.name for c in first.columns} < {c.name for c in latest.columns} == set(histories[0].column_names())


# --- the generator -----------------------------------------------------------------


def test_generation_is_deterministic_and_the_committed_data_is_current(model: Model, tmp_path: Path) -> None:
    generate(model, tmp_path / "a")
    generate(model, tmp_path / "b")
    first = tree(tmp_path / "a")
    assert first == tree(tmp_path / "b")
    assert first == tree(COMMITTED), "regenerate: python -m engine.sampledata --out resources/samples/orders-data"


def test_the_committed_debezium_data_is_current(model: Model, tmp_path: Path) -> None:
    generate(model, tmp_path / "a", debezium=True)
    assert tree(tmp_path / "a") == tree(DEBEZIUM), \
        "regenerate: python -m engine.sampledata --out resources/samples/orders-debezium --debezium"


def test_a_run_of_the_debezium_data_is_the_run_of_the_sample(model: Model, run: RunResult) -> None:
    replayed = run_reference(model, DEBEZIUM)
    assert replayed.tables == run.tables and replayed.conflicts == run.conflicts
    assert replayed.error_queue == run.error_queue and replayed.convergence == run.convergence
    assert replayed.counts.as_dict() == run.counts.as_dict() | {"skipped": replayed.counts.skipped}
    assert replayed.counts.skipped > 0  # the tombstones after deletes
    assert [(Path(r.file).name, r.line) for r in replayed.rejects] != [] and len(replayed.rejects) == len(run.rejects)


def test_either_format_replaces_the_others_files(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path), "--rows", "300", "--changes", "100", "--debezium"]) == 0
    assert not (tmp_path / "snapshots").exists() and (tmp_path / "changes" / "debezium" / "web").is_dir()
    assert main(["--out", str(tmp_path), "--rows", "300", "--changes", "100"]) == 0
    assert not list(tmp_path.glob("changes/debezium/*/*")) and (tmp_path / "snapshots" / "hq").is_dir()
    assert main(["--out", str(tmp_path), "--rows", "300", "--changes", "100", "--debezium"]) == 0
    assert not list(tmp_path.glob("snapshots/*/*")) and not list(tmp_path.glob("changes/*.jsonl"))


def test_the_seed_changes_the_data(model: Model, tmp_path: Path) -> None:
    generate(model, tmp_path / "a", seed=1, rows=1_000, changes=300)
    generate(model, tmp_path / "b", seed=2, rows=1_000, changes=300)
    assert tree(tmp_path / "a") != tree(tmp_path / "b")


def test_the_data_set_has_the_advertised_shape() -> None:
    files = tree(COMMITTED)
    snapshot_rows = sum(len(data.splitlines()) - name.endswith(".csv")
                        for name, data in files.items() if name.startswith("snapshots/"))
    assert 9_000 <= snapshot_rows <= 11_000
    assert {name.rsplit(".", 1)[1] for name in files if name.startswith("snapshots/")} == {"csv", "jsonl"}
    changes = [name for name in files if name.startswith("changes/")]
    assert len(changes) >= 3
    assert 2_700 <= sum(1 for _ in change_lines(COMMITTED / "changes")) <= 3_300
    assert "schedule.json" in files
    assert sum(len(data) for data in files.values()) < 3_000_000


def test_main_replaces_its_own_files_and_refuses_a_folder_holding_a_users(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--out", str(tmp_path), "--rows", "300", "--changes", "100"]) == 0
    listed = json.loads((tmp_path / MARKER).read_text())["files"]
    assert sorted(listed) == sorted(name for name in tree(tmp_path) if name != MARKER)
    mine = tmp_path / "changes" / "yesterday.jsonl"  # issue 35: a user's capture in a folder generated earlier
    mine.write_text("{}\n")
    before = tree(tmp_path)
    assert main(["--out", str(tmp_path), "--seed", "3", "--rows", "1000", "--changes", "300"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "changes/yesterday.jsonl" in err
    assert tree(tmp_path) == before
    mine.unlink()
    assert main(["--out", str(tmp_path), "--seed", "3", "--rows", "1000", "--changes", "300"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (tmp_path / "schedule.json").is_file() and (tmp_path / "snapshots" / "hq" / "CUSTOMER.csv").is_file()
    assert sorted(json.loads((tmp_path / MARKER).read_text())["files"]) == \
        sorted(name for name in tree(tmp_path) if name != MARKER)
    assert [p.name for p in tmp_path.parent.iterdir() if p.name.startswith(f".{tmp_path.name}.")] == []


def test_a_model_without_the_sample_tables_is_refused(tmp_path: Path) -> None:
    bare = Model.model_validate({"format": "mapwright/1", "servers": [{"id": "hq", "dbms": "oracle"}]})
    with pytest.raises(ValueError, match="sample model's tables"):
        generate(bare, tmp_path)


def sample_json() -> dict[str, Any]:
    return dict(json.loads(SAMPLE_MODEL.read_text(encoding="utf-8")))


def without_mapping(doc: dict[str, Any]) -> None:
    doc["mappings"] = [m for m in doc["mappings"] if m["id"] != "cust_hq_to_web"]
    for m in doc["mappings"]:
        if m.get("reverse") == "cust_hq_to_web":
            m["reverse"] = None


def narrow_names(doc: dict[str, Any]) -> None:
    table = next(t for t in doc["tables"] if (t["server"], t["name"]) == ("hq", "CUSTOMER"))
    next(c for c in table["columns"] if c["name"] == "NAME")["type"] = "VARCHAR2(5)"


def audit_table(doc: dict[str, Any]) -> None:  # a mapping into a table the sample day knows nothing of
    doc["servers"].append({"id": "Audit Site", "dbms": "other"})
    doc["tables"].append({"server": "Audit Site", "name": "CUSTOMER", "primary_key": ["REGION", "CUST_NO"],
                          "columns": [{"name": "REGION", "type": "CHAR(2)", "nullable": False},
                                      {"name": "CUST_NO", "type": "INTEGER", "nullable": False}]})
    doc["mappings"].append({"id": "audit", "source": "hq.CUSTOMER", "target": "Audit Site.CUSTOMER",
                            "columns": {"REGION": "REGION", "CUST_NO": "CUST_NO"}})


def bare(doc: dict[str, Any]) -> None:
    doc.update(servers=[{"id": "hq", "dbms": "oracle"}], tables=[], mappings=[], conflicts=[])


@pytest.mark.parametrize(("change", "says"), [
    (bare, "needs the sample model's tables"), (without_mapping, "mappings; missing: cust_hq_to_web"),
    (narrow_names, "does not fit this model: ConversionError"), (audit_table, "does not fit this model")])
def test_a_model_the_day_does_not_fit_is_refused_in_one_line(change: Callable[[dict[str, Any]], None], says: str,
                                                             tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    doc = sample_json()
    change(doc)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main([str(path), "--out", str(tmp_path / "data"), "--rows", "300", "--changes", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"python -m engine.sampledata: {path}: ") and says in err
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("args", "says"), [
    (["--rows", "0"], "too few snapshot rows"), (["--rows", "-5"], "--rows: -5 is negative"),
    (["--changes", "-1"], "--changes: -1 is negative")])
def test_sizes_that_cannot_be_met_are_refused_in_one_line(args: list[str], says: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(["--out", str(tmp_path / "data"), *args])
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("python -m engine.sampledata: ") and says in err
    assert "Traceback" not in err and not (tmp_path / "data").exists()


def test_an_out_that_is_not_the_generators_is_left_untouched(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    captured = tmp_path / "captured"  # someone's own data folder: the generator would have removed these
    for name in ("changes/debezium/hq/events.jsonl", "snapshots/hq/CUSTOMER.csv", "notes.txt"):
        (captured / name).parent.mkdir(parents=True, exist_ok=True)
        (captured / name).write_text("mine\n")
    before = tree(captured)
    a_file = tmp_path / "model.json"
    a_file.write_text("{}")
    for out, says in ((captured, "did not write"), (a_file, "is not a folder"), (a_file / "data", "cannot write"),
                      ("", "an empty path")):
        assert main(["--out", str(out), "--rows", "300", "--changes", "100"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, err
    assert tree(captured) == before and a_file.read_text() == "{}"


def test_the_day_numbers_never_meet_the_snapshots(model: Model) -> None:
    """A big snapshot (--rows 200000: products up to 8,000) ran into the day's block (new products from
    5,001): both sites inserted SKU-05007, and the generator stopped on its own conflict check."""
    shop = Shop(model, 7)
    assert [shop.next_id("product.snapshot", 0) for _ in range(5_002)][-1] == 5_002
    assert shop.next_id("product", 5_000) == 5_003
    assert shop.next_id("product.snapshot", 0) == 5_004 and shop.next_id("order.web", 0) == 1


# --- a reference run on the committed data ---------------------------------------


def test_every_resolution_method_decides_some_conflict(run: RunResult) -> None:
    in_groups = {c["method"] for c in run.conflicts if c["column_group"] is not None}
    assert in_groups >= GROUP_METHODS
    on_indexes = {c["method"] for c in run.conflicts if c["type"] == "uniqueness" and c["column_group"] is None}
    assert on_indexes >= UNIQUE_METHODS


def test_a_tie_passes_to_the_backup_method(run: RunResult) -> None:
    assert any(len(c["methods_tried"]) > 1 and c["method"] == c["methods_tried"][-1] for c in run.conflicts)


def test_conflicts_of_every_type(run: RunResult) -> None:
    def kinds(conflict: dict[str, Any]) -> set[str]:
        found = {conflict["type"]}
        if conflict["type"] == "delete" and conflict["local"] is None:
            found.add("update missing" if conflict["remote_new"] is not None else "delete missing")
        if conflict["type"] == "uniqueness" and conflict["remote_old"] is None and conflict["column_group"]:
            found.add("insert exists, as update")
        if conflict["type"] == "uniqueness" and conflict["methods_tried"] == ["error"]:
            found.add("insert exists, error")
        return found

    seen = Counter(kind for c in run.conflicts for kind in kinds(c))
    assert set(seen) == {"update", "uniqueness", "delete", "update missing", "delete missing",
                         "insert exists, as update", "insert exists, error"}, seen


def test_unresolved_changes_reach_the_error_queue(run: RunResult) -> None:
    assert run.error_queue
    assert run.counts.queued == len(run.error_queue)
    assert any("rolled back" in entry["reason"] for entry in run.error_queue), "a transaction-scope entry"
    assert any(c["outcome"] == "unresolved" for c in run.conflicts)


def test_malformed_records_are_rejected(run: RunResult) -> None:
    share = run.counts.rejects / run.counts.records
    assert 0.01 <= share <= 0.03
    reasons = " | ".join(r.reason for r in run.rejects)
    for says in ("not JSON", "unknown table", "unknown op", "bad timestamp", "is not in web.ORDERS version 1",
                 "missing key column"):
        assert says in reasons


def test_records_of_both_schema_versions_are_accepted(model: Model) -> None:
    accepted, _ = read_changes(COMMITTED, model)
    versions = {r.version for r in accepted if r.table == "web.ORDERS"}
    assert versions == {1, 2}


def test_the_accounting_holds(run: RunResult, model: Model) -> None:
    accepted, rejects = read_changes(COMMITTED, model)
    counts = run.counts
    assert counts.records == counts.rejects + len(accepted) == sum(1 for _ in change_lines(COMMITTED / "changes"))
    assert counts.rejects == len(rejects)
    assert counts.deliveries == counts.applied + counts.resolved + counts.queued
    assert counts.conflicts == len(run.conflicts)
