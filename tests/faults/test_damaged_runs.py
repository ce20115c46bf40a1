"""Damaged run directories: `mapwright conflicts` and the conflict browser refuse them with one clear line.

Real run directories are written once per module by the reference engine (the contract's
`ordering_conflict` example, and the bundled sample, whose error queue and rejects are not empty); each
test damages a copy: a file missing, cut short, of the wrong JSON shape, binary, or disagreeing with the
manifest's counts. The reader must name the file (and the line, for JSON lines) and exit 2, never print a
traceback and never report the damaged run as a clean success.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.cli import main
from engine.run.rundir.layout import is_run_directory
from engine.run.rundir.write import RunInfo, conflicts_arrow, run_reference_to_dir, write_failed_run
from resources import SAMPLE_MODEL

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
Damage = Callable[[Path], None]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample: every file of a run has lines (conflicts, queue, rejects)."""
    status, out = run_reference_to_dir(SAMPLE_MODEL.resolve(), SAMPLE_MODEL.parent / "orders-data",
                                       tmp_path_factory.mktemp("s") / "run")
    assert status == "succeeded"
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["queued"] and counts["rejects"] and counts["conflicts"]
    return out


def copy_of(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "run"))


def conflicts(rundir: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`mapwright conflicts RUNDIR --format FMT` in this process: (exit code, stdout, stderr)."""
    code = main(["conflicts", str(rundir), "--format", fmt])
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(rundir: Path, capsys: pytest.CaptureFixture[str], names: str, line: int | None = None) -> str:
    """Both formats: exit 2, nothing on stdout, one line on stderr naming the file `names` (and the line)."""
    messages = set()
    for fmt in ("text", "json"):
        code, out, err = conflicts(rundir, fmt, capsys)
        assert code == 2, (fmt, out, err)
        assert out == "", fmt
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("mapwright: "), lines[0]
        assert names in lines[0], lines[0]
        if line is not None:
            assert f"{names}:{line}" in lines[0], lines[0]
        messages.add(lines[0])
    assert len(messages) == 1
    return messages.pop()


def edit_json(rundir: Path, name: str, change: Callable[[Any], Any]) -> None:
    path = rundir / name
    doc = json.loads(path.read_text())
    path.write_text(json.dumps(change(doc), indent=1) + "\n")


def set_in(keys: tuple[str, ...], value: Any) -> Callable[[Any], Any]:
    def change(doc: Any) -> Any:
        target = doc
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
        return doc
    return change


def add_to_counts(**deltas: int) -> Damage:
    def damage(rundir: Path) -> None:
        def change(doc: Any) -> Any:
            for key, delta in deltas.items():
                doc["counts"][key] += delta
            return doc
        edit_json(rundir, "manifest.json", change)
    return damage


def replace_line(name: str, number: int, text: str) -> Damage:
    def damage(rundir: Path) -> None:
        lines = (rundir / name).read_text().split("\n")
        lines[number - 1] = text
        (rundir / name).write_text("\n".join(lines))
    return damage


def truncate(name: str, at: Callable[[int], int]) -> Damage:
    def damage(rundir: Path) -> None:
        data = (rundir / name).read_bytes()
        (rundir / name).write_bytes(data[:at(len(data))])
    return damage


def remove(name: str) -> Damage:
    def damage(rundir: Path) -> None:
        path = rundir / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    return damage


def write_bytes(name: str, data: bytes) -> Damage:
    def damage(rundir: Path) -> None:
        (rundir / name).write_bytes(data)
    return damage


def insert_bytes(name: str, where: int, data: bytes) -> Damage:
    """`data` inside the second line (`where` bytes after its start)."""
    def damage(rundir: Path) -> None:
        text = (rundir / name).read_bytes()
        at = text.index(b"\n") + 1 + where
        (rundir / name).write_bytes(text[:at] + data + text[at:])
    return damage


BINARY = bytes(range(256)) * 4
TRUNCATIONS = {"empty": lambda n: 0, "one byte": lambda n: 1, "a third": lambda n: n // 3,
               "half": lambda n: n // 2, "all but two bytes": lambda n: n - 2}

# --- ordering_conflict: (damage, the file the message names, the line it names or None) ----------------

MISSING: dict[str, tuple[Damage, str]] = {
    "conflicts.jsonl": (remove("conflicts.jsonl"), "conflicts.jsonl"),
    "conflicts.parquet": (remove("conflicts.parquet"), "conflicts.parquet"),
    "error_queue.jsonl": (remove("error_queue.jsonl"), "error_queue.jsonl"),
    "rejects.jsonl": (remove("rejects.jsonl"), "rejects.jsonl"),
    "convergence.json": (remove("convergence.json"), "convergence.json"),
    "tables/": (remove("tables"), "tables"),
    "the table with the conflicts": (remove("tables/C/T.parquet"), "tables/C/T.parquet"),
    "a table no conflict names": (remove("tables/A/T.parquet"), "tables/A/T.parquet"),
    "every table": (lambda r: [remove(f"tables/{s}/T.parquet")(r) for s in "ABC"], "tables"),
}

SHAPES: dict[str, tuple[Damage, str, int | str | None]] = {
    # the line: a number, or the text first found on it in the damaged file
    "manifest a JSON list": (write_bytes("manifest.json", b"[]\n"), "manifest.json", 1),
    "manifest a string": (write_bytes("manifest.json", b'"succeeded"\n'), "manifest.json", 1),
    "manifest null": (write_bytes("manifest.json", b"null\n"), "manifest.json", 1),
    "manifest binary": (write_bytes("manifest.json", BINARY), "manifest.json", 1),
    "manifest not UTF-8": (write_bytes("manifest.json", b'{"status": "succ\xe9eded"}'), "manifest.json", 1),
    "engine missing": (lambda r: edit_json(r, "manifest.json", lambda d: {k: v for k, v in d.items()
                                                                           if k != "engine"}), "manifest.json", 1),
    "another engine": (lambda r: edit_json(r, "manifest.json", set_in(("engine",), "replicator 2.0")),
                       "manifest.json", '"engine"'),
    "status unknown": (lambda r: edit_json(r, "manifest.json", set_in(("status",), "done")),
                       "manifest.json", '"status"'),
    "status missing": (lambda r: edit_json(r, "manifest.json", lambda d: {k: v for k, v in d.items()
                                                                           if k != "status"}), "manifest.json", 1),
    "counts a string": (lambda r: edit_json(r, "manifest.json", set_in(("counts",), "2 conflicts")),
                        "manifest.json", '"counts"'),
    "counts a list": (lambda r: edit_json(r, "manifest.json", set_in(("counts",), [2, 0])),
                      "manifest.json", '"counts"'),
    "counts null": (lambda r: edit_json(r, "manifest.json", set_in(("counts",), None)), "manifest.json", '"counts"'),
    "a count a string": (lambda r: edit_json(r, "manifest.json", set_in(("counts", "conflicts"), "2")),
                         "manifest.json", '"conflicts": "2"'),
    "a count negative": (lambda r: edit_json(r, "manifest.json", set_in(("counts", "rejects"), -1)),
                         "manifest.json", '"rejects": -1'),
    "a count true": (lambda r: edit_json(r, "manifest.json", set_in(("counts", "queued"), True)),
                     "manifest.json", '"queued": true'),
    "a count a fraction": (lambda r: edit_json(r, "manifest.json", set_in(("counts", "applied"), 1.5)),
                           "manifest.json", '"applied": 1.5'),
    "a count missing": (lambda r: edit_json(r, "manifest.json", lambda d: {
        **d, "counts": {k: v for k, v in d["counts"].items() if k != "filtered"}}), "manifest.json", '"counts"'),
    "stages a list": (lambda r: edit_json(r, "manifest.json", set_in(("stages",), [1.0])), "manifest.json", '"stages"'),
    "a stage text": (lambda r: edit_json(r, "manifest.json", set_in(("stages", "resolve"), "fast")),
                     "manifest.json", '"fast"'),
    "a stage NaN": (lambda r: edit_json(r, "manifest.json", set_in(("stages", "resolve"), float("nan"))),
                    "manifest.json", '"resolve": NaN'),  # `conflicts --format json` would print it: not JSON
    "a stage infinite": (lambda r: edit_json(r, "manifest.json", set_in(("stages", "decode"), float("-inf"))),
                         "manifest.json", '"decode": -Infinity'),
    "reason a number": (lambda r: edit_json(r, "manifest.json", set_in(("reason",), 7)), "manifest.json", '"reason"'),
    "convergence a list": (write_bytes("convergence.json", b"[]\n"), "convergence.json", 1),
    "convergence without mappings": (write_bytes("convergence.json", b"{}\n"), "convergence.json", 1),
    "mappings an object": (write_bytes("convergence.json", b'{"mappings": {}}\n'), "convergence.json", 1),
    "a mapping a number": (lambda r: edit_json(r, "convergence.json", set_in(("mappings",), [1])),
                           "convergence.json", 3),
    "compared text": (lambda r: edit_json(r, "convergence.json", lambda d: {"mappings": [
        {**d["mappings"][0], "compared": "one"}]}), "convergence.json", '"compared"'),
    "diverged above compared": (lambda r: edit_json(r, "convergence.json", lambda d: {"mappings": [
        {**d["mappings"][1], "diverged": 9}]}), "convergence.json", '"diverged"'),
    "examples a string": (lambda r: edit_json(r, "convergence.json", lambda d: {"mappings": [
        {**d["mappings"][1], "examples": "none"}]}), "convergence.json", '"examples"'),
    "an example's source a string": (lambda r: edit_json(r, "convergence.json", lambda d: {"mappings": [
        {**d["mappings"][1], "examples": [{"dkey": {"ID": 1}, "source": "x", "target": None}]}]}),
        "convergence.json", '"source"'),
    "convergence binary": (write_bytes("convergence.json", BINARY), "convergence.json", 1),
    "a conflicts line an array": (replace_line("conflicts.jsonl", 2, "[1, 2]"), "conflicts.jsonl", 2),
    "a conflicts line a string": (replace_line("conflicts.jsonl", 1, '"conflict"'), "conflicts.jsonl", 1),
    "a conflicts line null": (replace_line("conflicts.jsonl", 2, "null"), "conflicts.jsonl", 2),
    "a conflicts line not JSON": (replace_line("conflicts.jsonl", 2, "{site: C}"), "conflicts.jsonl", 2),
    "a conflict without its table": (replace_line("conflicts.jsonl", 2, json.dumps(
        {"site": "C", "type": "update", "outcome": "remote"})), "conflicts.jsonl", 2),
    "a conflict's row a string": (replace_line("conflicts.jsonl", 1, json.dumps(
        {"site": "C", "table": "C.T", "type": "update", "outcome": "remote", "local": "ID=1"})),
        "conflicts.jsonl", 1),
    "a NUL byte in a conflict": (insert_bytes("conflicts.jsonl", 10, b"\x00"), "conflicts.jsonl", 2),
    "invalid UTF-8 in a conflict": (insert_bytes("conflicts.jsonl", 20, b"\xff\xfe"), "conflicts.jsonl", 2),
    "conflicts binary": (write_bytes("conflicts.jsonl", BINARY), "conflicts.jsonl", 1),
    "error queue binary": (write_bytes("error_queue.jsonl", BINARY), "error_queue.jsonl", 1),
    "rejects binary": (write_bytes("rejects.jsonl", BINARY), "rejects.jsonl", 1),
    "a reject an array": (write_bytes("rejects.jsonl", b"[]\n"), "rejects.jsonl", 1),
    "conflicts.parquet JSON text": (write_bytes("conflicts.parquet", b'{"site": "C"}\n'), "conflicts.parquet", None),
    "conflicts.parquet binary": (write_bytes("conflicts.parquet", BINARY), "conflicts.parquet", None),
    "a table binary": (write_bytes("tables/B/T.parquet", BINARY), "tables/B/T.parquet", None),
    "a table empty": (write_bytes("tables/A/T.parquet", b""), "tables/A/T.parquet", None),
    "conflicts.jsonl a folder": (lambda r: (remove("conflicts.jsonl")(r), (r / "conflicts.jsonl").mkdir()),
                                 "conflicts.jsonl", None),
    "tables a file": (lambda r: (remove("tables")(r), (r / "tables").write_text("")), "tables", None),
}

COUNTS: dict[str, tuple[Damage, str]] = {
    "one conflict more counted": (add_to_counts(conflicts=1), "conflicts.jsonl"),
    "one conflict fewer counted": (add_to_counts(conflicts=-1), "conflicts.jsonl"),
    "a reject counted, none written": (add_to_counts(rejects=1, records=1), "rejects.jsonl"),
    "a queued change counted, none written": (add_to_counts(queued=1, deliveries=1), "error_queue.jsonl"),
    "deliveries not applied + resolved + queued": (add_to_counts(deliveries=1), "manifest.json"),
    "fewer records than rejects": (add_to_counts(records=-2, rejects=1), "manifest.json"),
    "a conflict line repeated": (lambda r: (r / "conflicts.jsonl").write_text(
        (r / "conflicts.jsonl").read_text() * 2), "conflicts.jsonl"),
    "conflicts.parquet with one row of two": (lambda r: pq.write_table(conflicts_arrow(
        [json.loads((r / "conflicts.jsonl").read_text().splitlines()[0])]), r / "conflicts.parquet"),
        "conflicts.parquet"),
}


@pytest.mark.parametrize("case", list(MISSING))
def test_a_missing_file_is_named(ordering_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 case: str) -> None:
    damage, name = MISSING[case]
    rundir = copy_of(ordering_run, tmp_path)
    damage(rundir)
    message = assert_refused(rundir, capsys, str(rundir / name))
    assert "missing" in message or "no final table" in message


@pytest.mark.parametrize("name", ["manifest.json", "conflicts.jsonl", "convergence.json", "conflicts.parquet",
                                  "tables/C/T.parquet"])
@pytest.mark.parametrize("point", list(TRUNCATIONS))
def test_a_file_cut_short_is_named(ordering_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   name: str, point: str) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    truncate(name, TRUNCATIONS[point])(rundir)
    assert_refused(rundir, capsys, str(rundir / name))


@pytest.mark.parametrize("name", ["error_queue.jsonl", "rejects.jsonl", "conflicts.jsonl"])
@pytest.mark.parametrize("point", list(TRUNCATIONS))
def test_a_cut_queue_or_rejects_file_is_named(sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              name: str, point: str) -> None:
    rundir = copy_of(sample, tmp_path)
    truncate(name, TRUNCATIONS[point])(rundir)
    assert_refused(rundir, capsys, str(rundir / name))


def test_a_cut_line_names_its_line(sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(sample, tmp_path)
    lines = (rundir / "error_queue.jsonl").read_text().splitlines(keepends=True)
    (rundir / "error_queue.jsonl").write_text("".join(lines[:6]) + lines[6][:25])
    message = assert_refused(rundir, capsys, str(rundir / "error_queue.jsonl"), line=7)
    assert "invalid JSON" in message


def test_a_cut_convergence_file_is_not_blamed_on_the_manifest(ordering_run: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The reported bug: a truncated convergence.json was reported as `manifest.json:<its line>`."""
    rundir = copy_of(ordering_run, tmp_path)
    text = (rundir / "convergence.json").read_text()
    (rundir / "convergence.json").write_text(text[:len(text) * 2 // 3])
    message = assert_refused(rundir, capsys, str(rundir / "convergence.json"),
                             line=text[:len(text) * 2 // 3].count("\n") + 1)
    assert "manifest.json" not in message and "cut short" in message


@pytest.mark.parametrize("case", list(SHAPES))
def test_a_wrong_shape_or_binary_content_is_named(ordering_run: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  case: str) -> None:
    damage, name, where = SHAPES[case]
    rundir = copy_of(ordering_run, tmp_path)
    damage(rundir)
    line = where
    if isinstance(where, str):
        lines = (rundir / name).read_text().splitlines()
        line = next(n for n, text in enumerate(lines, start=1) if where in text)
    assert_refused(rundir, capsys, str(rundir / name), line)


def test_a_queue_entry_and_a_reject_of_the_wrong_shape(sample: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(sample, tmp_path)
    replace_line("error_queue.jsonl", 3, json.dumps({"site": "hq", "table": "ORDERS", "after": [1, 2]}))(rundir)
    message = assert_refused(rundir, capsys, str(rundir / "error_queue.jsonl"), line=3)
    assert "after" in message and "an array" in message
    rundir = copy_of(sample, tmp_path / "again")
    replace_line("rejects.jsonl", 5, "42")(rundir)
    assert "a number" in assert_refused(rundir, capsys, str(rundir / "rejects.jsonl"), line=5)


@pytest.mark.parametrize("case", list(COUNTS))
def test_counts_that_disagree_with_the_files_are_named(ordering_run: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str], case: str) -> None:
    damage, name = COUNTS[case]
    rundir = copy_of(ordering_run, tmp_path)
    damage(rundir)
    assert_refused(rundir, capsys, str(rundir / name))


def test_not_a_folder_or_not_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such folder" in assert_refused(tmp_path / "nowhere", capsys, str(tmp_path / "nowhere"))
    (tmp_path / "file").write_text("{}")
    assert "not a folder" in assert_refused(tmp_path / "file", capsys, str(tmp_path / "file"))
    (tmp_path / "empty").mkdir()
    assert "no manifest.json" in assert_refused(tmp_path / "empty", capsys, str(tmp_path / "empty"))



def test_a_control_character_in_a_damaged_run_is_printed_escaped(ordering_run: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    edit_json(rundir, "manifest.json", set_in(("counts", "x\x1b[2J\x9b"), "bad"))
    assert main(["conflicts", str(rundir)]) == 2
    err = capsys.readouterr().err
    assert "counts.x\\x1b[2J\\x9b" in err and "\x1b" not in err and "\x9b" not in err, err


def test_the_real_command_refuses_a_damaged_run_in_one_line(ordering_run: Path, tmp_path: Path) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    replace_line("conflicts.jsonl", 2, "[1, 2]")(rundir)
    for fmt in ("text", "json"):
        res = subprocess.run([MAPWRIGHT, "conflicts", str(rundir), "--format", fmt], capture_output=True,
                             text=True, timeout=120)
        assert res.returncode == 2 and res.stdout == "" and "Traceback" not in res.stderr
        assert res.stderr.splitlines() == [f"mapwright: {rundir / 'conflicts.jsonl'}:2: expected a JSON object, "
                                           "got an array"]


# --- what is not damaged ----------------------------------------------------------------------------------

def test_an_intact_run_summarises_as_before(ordering_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((ordering_run / "manifest.json").read_text())
    lines = [json.loads(line) for line in (ordering_run / "conflicts.jsonl").read_text().splitlines()]
    mappings = json.loads((ordering_run / "convergence.json").read_text())["mappings"]
    code, out, err = conflicts(ordering_run, "json", capsys)
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"status", "reason", "counts", "stages", "conflicts", "error_queue", "rejects",
                        "convergence"}
    assert doc["status"] == "succeeded" and doc["reason"] is None
    assert doc["counts"] == manifest["counts"] and doc["stages"] == manifest["stages"]
    assert doc["conflicts"] == {"total": len(lines), "by_type": {"update": 2}, "by_outcome": {"remote": 2},
                                "by_table": {"C.T": 2}}
    assert doc["error_queue"] == 0 and doc["rejects"] == 0
    assert doc["convergence"] == [{k: m[k] for k in ("mapping", "compared", "diverged")} for m in mappings]
    code, out, err = conflicts(ordering_run, "text", capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == f"run {ordering_run}: succeeded"
    assert "conflicts: 2" in out and "by type: update 2" in out and "note:" not in out
    assert sum("DIVERGED on 1 of 1 keys" in line for line in out.splitlines()) == 4
    assert is_run_directory(ordering_run)


def test_an_intact_sample_run_summarises(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = json.loads((sample / "manifest.json").read_text())["counts"]
    code, out, _ = conflicts(sample, "json", capsys)
    doc = json.loads(out)
    assert code == 0 and doc["conflicts"]["total"] == counts["conflicts"]
    assert (doc["error_queue"], doc["rejects"]) == (counts["queued"], counts["rejects"])


@pytest.mark.parametrize("status", ["failed", "cancelled"])
def test_a_run_that_did_not_succeed_is_not_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    status: str) -> None:
    reason = "changes/a.jsonl:3: unknown table NOPE"
    out = write_failed_run(tmp_path / "run", status, reason, RunInfo(model_sha256="0" * 64))
    code, text, err = conflicts(out, "text", capsys)
    assert code == 1 and err == "" and text.splitlines()[0] == f"run {out}: {status} ({reason})"
    code, text, err = conflicts(out, "json", capsys)
    assert code == 1 and json.loads(text)["status"] == status and json.loads(text)["reason"] == reason


# --- RUNDIR.attempt: a failed attempt over a good run -----------------------------------------------------

def failed_attempt(rundir: Path, reason: str, started: datetime) -> Path:
    attempt = rundir.with_name(rundir.name + ".attempt")
    write_failed_run(attempt, "failed", reason, RunInfo(model_sha256="0" * 64, started=started))
    return attempt / "manifest.json"


def test_a_failed_attempt_over_a_good_run_is_mentioned(ordering_run: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    reason = "snapshots/A.T.jsonl:2: a NULL key"
    where = failed_attempt(rundir, reason, datetime.now(UTC))
    code, out, err = conflicts(rundir, "text", capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[1] == f"  note: the last attempt failed: {reason} (its reason is in {where})"
    assert "conflicts: 2" in out  # the good run is still summarised
    code, out, _ = conflicts(rundir, "json", capsys)
    assert json.loads(out)["last_attempt"] == {"status": "failed", "reason": reason, "manifest": str(where)}


def test_an_attempt_older_than_the_run_is_history(ordering_run: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    failed_attempt(rundir, "an old failure", datetime.now(UTC) - timedelta(days=1))
    code, out, _ = conflicts(rundir, "text", capsys)
    assert code == 0 and "note:" not in out and "last attempt" not in out


def test_a_damaged_run_with_a_failed_attempt_says_both(ordering_run: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    where = failed_attempt(rundir, "cancelled by signal SIGTERM", datetime.now(UTC))
    remove("convergence.json")(rundir)
    message = assert_refused(rundir, capsys, str(rundir / "convergence.json"))
    assert "the last attempt failed" in message and str(where) in message


# --- the conflict browser --------------------------------------------------------------------------------

@pytest.mark.parametrize("case, damage, name", [
    ("convergence missing", remove("convergence.json"), "convergence.json"),
    ("a conflicts line an array", replace_line("conflicts.jsonl", 2, "[1, 2]"), "conflicts.jsonl"),
    ("manifest binary", write_bytes("manifest.json", BINARY), "manifest.json"),
    ("counts a string", lambda r: edit_json(r, "manifest.json", set_in(("counts",), "x")), "manifest.json"),
    ("a table cut short", truncate("tables/C/T.parquet", lambda n: n // 2), "T.parquet"),
    ("one conflict counted more", add_to_counts(conflicts=1), "conflicts.jsonl"),
])
def test_the_browser_shows_why_a_damaged_run_cannot_be_opened(browser: Any, qtbot: QtBot, ordering_run: Path,
                                                              tmp_path: Path, case: str, damage: Damage,
                                                              name: str) -> None:
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(ordering_run)  # a whole run first: none of it may stay on screen
    assert browser.conflicts.rowCount() == 2
    rundir = copy_of(ordering_run, tmp_path)
    damage(rundir)
    with qtbot.waitSignal(browser.sig_open_failed) as failed:
        assert browser.open_run(rundir) is None
    message = failed.args[0]
    assert str(rundir) in message and name in message and "\n" not in message
    assert f"{rundir} is damaged" in browser.banner.text() and name in browser.banner.text()
    assert browser.overview.status_label.text() == "The run directory is damaged"
    assert browser.overview.reason_label.isVisible() and browser.overview.reason_label.text() == message
    assert browser.summary is None and browser.tabs.currentWidget() is browser.overview
    assert [browser.tabs.isTabVisible(i) for i in range(5)] == [False, False, False, False, True]
    assert all(m.rowCount() == 0 for m in (browser.conflicts, browser.error_queue, browser.rejects,
                                           browser.convergence))


def test_the_browser_says_the_last_attempt_failed(browser: Any, qtbot: QtBot, ordering_run: Path,
                                                  tmp_path: Path) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    reason = "the model has 2 validation error(s) & <more>"
    where = failed_attempt(rundir, reason, datetime.now(UTC))
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(rundir)
    banner = browser.banner.text()
    assert "2 conflicts" in banner and "The last attempt failed" in banner
    assert "&amp; &lt;more&gt;" in banner and str(where) in banner  # escaped, and where the reason is
    assert browser.conflicts.rowCount() == 2


def test_the_browser_still_opens_a_failed_run(browser: Any, qtbot: QtBot, tmp_path: Path) -> None:
    out = write_failed_run(tmp_path / "run", "failed", "no Java", RunInfo(model_sha256="0" * 64))
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(out)
    assert "run failed" in browser.banner.text() and "no Java" in browser.banner.text()


def test_an_unreadable_file_is_named(ordering_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:  # root reads any file whatever its mode: a dangling link instead
        rundir = copy_of(ordering_run, tmp_path)
        remove("rejects.jsonl")(rundir)
        (rundir / "rejects.jsonl").symlink_to(tmp_path / "gone")
    else:
        rundir = copy_of(ordering_run, tmp_path)
        (rundir / "rejects.jsonl").chmod(0)
    assert_refused(rundir, capsys, str(rundir / "rejects.jsonl"))


def test_the_browser_compares_an_example_whose_key_several_rows_share(browser: Any, qtbot: QtBot, ordering_run: Path,
                                                                     tmp_path: Path) -> None:
    """Not damage: convergence lists every row when several share a key (`"target": [row, row]`)."""
    rundir = copy_of(ordering_run, tmp_path)
    twins = [{"ID": 1, "X": 5}, {"ID": 1, "X": 6}]
    edit_json(rundir, "convergence.json", lambda d: {"mappings": [
        {**d["mappings"][1], "examples": [{"dkey": {"ID": 1}, "source": {"ID": 1, "X": 7}, "target": twins}]}]})
    with qtbot.waitSignal(browser.sig_run_opened):
        browser.open_run(rundir)
    page = browser.convergence_page
    page.show_mapping(browser.convergence.records[0])
    examples = page.examples_page
    examples.view.selectRow(0)
    assert examples.comparison is not None
    model = examples.comparison.model
    titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert titles == ["Source", "Target 1", "Target 2"]
    assert model.highlighted_cells() == [("X", "Target 1"), ("X", "Target 2")]


def test_a_pipe_in_place_of_a_file_is_refused_without_blocking(ordering_run: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    remove("conflicts.jsonl")(rundir)
    os.mkfifo(rundir / "conflicts.jsonl")
    assert "not a regular file" in assert_refused(rundir, capsys, str(rundir / "conflicts.jsonl"))


def test_a_manifest_naming_a_device_as_its_model_is_not_read(ordering_run: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The model is only a cross-check: a hostile path (an endless device) is skipped, not read."""
    rundir = copy_of(ordering_run, tmp_path)
    edit_json(rundir, "manifest.json", set_in(("model",), {"path": "/dev/zero", "sha256": "0" * 64}))
    code, out, err = conflicts(rundir, "json", capsys)
    assert code == 0 and err == "" and json.loads(out)["conflicts"]["total"] == 2


def test_a_run_of_a_model_without_tables_is_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The manifest lists the tables the run wrote, so an empty `tables/` is whole when it lists none."""
    model = tmp_path / "empty.json"
    model.write_text(json.dumps({"format": "mapwright/1", "name": "empty", "servers": [{"id": "s", "dbms": "oracle"}],
                                 "tables": [], "mappings": []}))
    (tmp_path / "data").mkdir()
    status, out = run_reference_to_dir(model, tmp_path / "data", tmp_path / "run")
    assert status == "succeeded" and (out / "tables").is_dir()
    assert json.loads((out / "manifest.json").read_text())["tables"] == []
    code, text, err = conflicts(out, "text", capsys)
    assert code == 0, err


def test_a_table_the_manifest_lists_must_be_there(ordering_run: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    rundir = copy_of(ordering_run, tmp_path)
    listed = json.loads((rundir / "manifest.json").read_text())["tables"]
    assert "A.T" in listed
    (rundir / "tables" / "A" / "T.parquet").unlink()
    assert "lists the table A.T" in assert_refused(rundir, capsys, str(rundir / "tables" / "A" / "T.parquet"))
    edit_json(rundir, "manifest.json", set_in(("tables",), "A.T"))
    assert "expected a list of 'server.TABLE' names" in assert_refused(rundir, capsys, str(rundir / "manifest.json"))
