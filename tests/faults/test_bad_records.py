"""Hostile records are rejects, never a failed run, on the reference and on Spark alike (docs/contract.md
§4, 5, 6 and 7): each with its file, line and reason, the good records around them applied, and the
accounting whole (records = rejects + accepted; deliveries = applied + resolved + queued)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import BIG_DOC, LARGE_DOC, Corpus, model, write_corpus
from sparkkit import reference_run, rundir_doc, spark_run

from engine.run.input.files import InputError
from engine.run.input.records import SHOWN_RAW
from engine.run.semantics.reference import RunResult, run_reference
from engine.spark.pipeline import run_spark

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return write_corpus(tmp_path_factory.mktemp("faults"))


def assert_every_bad_record_rejected(result: RunResult, corpus: Corpus) -> None:
    got = {(r.file, r.line): r.reason for r in result.rejects}
    assert set(got) == set(corpus.rejects), sorted(set(got) ^ set(corpus.rejects))
    for where, reason in corpus.rejects.items():
        assert reason in got[where], (where, got[where])
    c = result.counts
    assert (c.records, c.rejects) == (corpus.lines, len(corpus.rejects))
    assert c.records == c.rejects + len(corpus.accepted_ids)
    assert c.deliveries == c.applied + c.resolved + c.queued == len(corpus.accepted_ids)
    assert [r["ID"] for r in result.tables["t.T"]] == corpus.accepted_ids
    assert all(len(r.raw) <= SHOWN_RAW for r in result.rejects)  # the 50 MB record is not copied whole


def assert_values_kept(result: RunResult) -> None:
    by_id = {r["ID"]: r for r in result.tables["t.T"]}
    assert (by_id[1]["I"], by_id[1]["V"], by_id[1]["TS"].year) == (2**31 - 1, "ten chars!", 1)
    assert (len(by_id[2]["DOC"]), by_id[2]["V"]) == (LARGE_DOC, "\ufffd ok")  # a real U+FFFD is kept
    assert by_id[3]["J"] == {"a": [1, {"b": None}]}
    big = next(r for r in result.rejects if "larger than the limit" in r.reason)
    size = int(big.reason.split()[2])
    assert len(big.raw) == SHOWN_RAW and BIG_DOC < size < BIG_DOC + 200 and big.raw.startswith('{"site": "s"')
    assert big.reason.endswith(f"bytes (raw holds its first {SHOWN_RAW} characters)")
    utf = next(r for r in result.rejects if "UTF-8" in r.reason)
    assert "\\xff\\xfe" in utf.raw and "\ufffd" not in utf.raw  # shown as the bytes it had, never replaced


def test_the_reference_rejects_every_hostile_record_and_goes_on(corpus: Corpus) -> None:
    result = run_reference(model(), corpus.data)
    assert_every_bad_record_rejected(result, corpus)
    assert_values_kept(result)


def test_spark_rejects_every_hostile_record_as_the_reference_does(spark: Any, corpus: Corpus,
                                                                  tmp_path: Path) -> None:
    """One local[2] run over the whole corpus: its run directory is the reference's."""
    spark_run(spark, model(), corpus.data, tmp_path / "run")
    reference_run(model(), corpus.data, tmp_path / "reference")
    assert rundir_doc(tmp_path / "run") == rundir_doc(tmp_path / "reference")
    written = [json.loads(x) for x in (tmp_path / "run" / "rejects.jsonl").read_text().splitlines()]
    assert sorted((r["file"], r["line"]) for r in written) == sorted(corpus.rejects)  # never "file": null
    assert all(" %20 #1" in r["file"] for r in written)


# --- input errors: the run cannot go on, both engines say why in one line ---------------------------------


def snapshot_data(root: Path, name: str, text: str) -> Path:
    data = root / "data"
    (data / "snapshots" / "t").mkdir(parents=True)
    (data / "snapshots" / "t" / name).write_text(text)
    return data


@pytest.mark.parametrize(("name", "text", "message"), [
    ("T.csv", "ID,SI\n1,1\n2,2\n1,3\n", "T.csv:4: duplicate primary key (ID=1), first at "),
    ("T.csv", "ID,SI\n1,1\n,2\n", "T.csv:3: primary key column ID is NULL"),
    ("T.jsonl", '{"ID": 1}\n\n{"ID": 2}\n{"ID": "1"}\n', "T.jsonl:4: duplicate primary key (ID=1)"),
    ("T.jsonl", '{"ID": 1}\n{"SI": 5}\n', "T.jsonl:2: primary key column ID is NULL"),
    ("T.jsonl", '{"ID": 1, "V": "0123456789A"}\n', "T.jsonl:1: column V: 11 characters do not fit VARCHAR(10)"),
    ("T.jsonl", '{"ID": 1}\n{"ID": 2, "J": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
     "T.jsonl:2: JSON nested deeper than 64 levels"),
    ("T.jsonl", '{"ID": 1, "V": "\\udfff"}\n', "T.jsonl:1: a JSON string holds a lone surrogate"),
    ("T.jsonl", '{"ID": ' + "7" * 5000 + "}\n", "T.jsonl:1: not JSON: Exceeds the limit"),
    ("T.csv", "ID,I\n1,2147483648\n", "T.csv:2: column I: 2147483648 is out of range for INTEGER"),
    ("T.csv", "ID,TS\n1,0001-01-01T00:00:00+01:00\n", "T.csv:2: column TS: "),
])
def test_a_snapshot_with_a_null_or_duplicate_key_is_an_input_error(tmp_path: Path, name: str, text: str,
                                                                   message: str) -> None:
    data = snapshot_data(tmp_path, name, text)
    with pytest.raises(InputError) as caught:
        run_reference(model(), data)
    assert message in str(caught.value) and str(data / "snapshots" / "t" / name) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_duplicate_unique_index_value_in_a_snapshot_is_an_input_error_and_nulls_are_not(tmp_path: Path) -> None:
    from runkit import pair

    named = pair({"NAME": "VARCHAR(10)"}, target_extra={"unique_indexes": [{"name": "UX_NAME", "columns": ["NAME"]}]})
    fine = snapshot_data(tmp_path / "a", "T.jsonl", '{"ID": 1}\n{"ID": 2}\n{"ID": 3, "NAME": "x"}\n')
    assert len(run_reference(named, fine).tables["t.T"]) == 3
    twice = snapshot_data(tmp_path / "b", "T.jsonl", '{"ID": 1, "NAME": "x"}\n{"ID": 2, "NAME": "x"}\n')
    with pytest.raises(InputError, match=r"T.jsonl:2: duplicate unique index UX_NAME \(NAME=x\), first at .*T.jsonl:1"):
        run_reference(named, twice)


def test_changes_that_is_a_file_is_an_input_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "changes").write_text('{"site": "s"}\n')
    with pytest.raises(InputError, match=r"changes: not a folder \(change records go in changes/\*\.jsonl\)"):
        run_reference(model(), data)


def test_spark_refuses_the_same_inputs_before_any_job(spark: Any, tmp_path: Path) -> None:
    file_data = tmp_path / "f"
    file_data.mkdir()
    (file_data / "changes").write_text("")
    with pytest.raises(InputError, match="changes: not a folder"):
        run_spark(spark, model(), file_data, tmp_path / "out-f")
    keyed = snapshot_data(tmp_path / "k", "T.csv", "ID\n1\n1\n")
    (tmp_path / "out-k").mkdir()
    with pytest.raises(InputError, match=r"T.csv:3: duplicate primary key \(ID=1\)"):
        run_spark(spark, model(), keyed, tmp_path / "out-k")


def test_mapwright_run_refuses_a_duplicate_snapshot_key_with_exit_2_naming_file_and_line(examples: Path,
                                                                                       tmp_path: Path) -> None:
    data = tmp_path / "my data"
    shutil.copytree(examples / "row_images" / "data", data)
    snapshot = data / "snapshots" / "dst" / "ITEM.jsonl"
    lines = snapshot.read_text().splitlines()
    snapshot.write_text("\n".join([*lines, lines[0].replace('"QTY": 1', '"QTY": 2')]) + "\n")
    out = tmp_path / "run"
    res = subprocess.run([MAPWRIGHT, "run", str(examples / "row_images" / "model.json"), "--data", str(data),
                          "--out", str(out), "--master", "local[1]"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stderr
    last = res.stderr.strip().splitlines()[-1]
    assert f"{snapshot}:{len(lines) + 1}: duplicate primary key (ID=20), first at {snapshot}:1" in last
    assert "Traceback" not in res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "duplicate primary key" in manifest["reason"]


def test_lines_split_on_newline_only_keep_their_bytes_and_skip_blank_ones() -> None:
    from engine.run.input.records import split_lines

    data = b'{"a": 1}\r\n \t\n\xff\xfe\n{"b": "\xe2\x80\xa8"}\n\n'
    assert list(split_lines(data)) == [(1, b'{"a": 1}'), (3, b"\xff\xfe"), (4, b'{"b": "\xe2\x80\xa8"}')]
    assert list(split_lines(b'\xef\xbb\xbf{"a": 1}\n\xef\xbb\xbf')) == [(1, b'{"a": 1}'), (2, b"\xef\xbb\xbf")]


def test_snapshot_cells_as_large_as_a_record_and_line_separators_in_json_strings_are_read(tmp_path: Path) -> None:
    big = "x" * 300_000
    csv_data = snapshot_data(tmp_path / "c", "T.csv", f'ID,DOC,V\n1,{big},"two\nlines"\n2,,\n')
    assert [(len(r["DOC"] or ""), r["V"]) for r in run_reference(model(), csv_data).tables["t.T"]] == [
        (300_000, "two\nlines"), (0, None)]
    json_data = snapshot_data(tmp_path / "j", "T.jsonl", '{"ID": 1, "V": "a\u2028b"}\r\n{"ID": 2}\n')
    assert [r["V"] for r in run_reference(model(), json_data).tables["t.T"]] == ["a\u2028b", None]


def test_a_snapshot_error_after_a_multi_line_csv_cell_names_the_line_the_row_is_on(tmp_path: Path) -> None:
    data = snapshot_data(tmp_path, "T.csv", 'ID,V\n1,"a\nb"\n1,c\n')
    with pytest.raises(InputError, match=r"T.csv:4: duplicate primary key \(ID=1\), first at .*T.csv:3"):
        run_reference(model(), data)
