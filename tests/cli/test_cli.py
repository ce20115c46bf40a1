"""The `mapwright` command: exit codes, text and JSON output, exports, malformed input."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.export import format_schema
from resources import SAMPLE_MODEL

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"


def mw(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_version() -> None:
    out = mw("--version")
    assert out.returncode == 0
    assert out.stdout.startswith("mapwright ")


def test_validate_json_matches_the_contract_shape(examples: Path) -> None:
    out = mw("validate", str(examples / "dkey_rules.json"), "--format", "json")
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    assert doc["errors"] == sum(f["severity"] == "error" for f in doc["findings"])
    assert doc["warnings"] == sum(f["severity"] == "warning" for f in doc["findings"])
    dk001 = next(f for f in doc["findings"] if f["code"] == "DK001")
    assert dk001["location"]["mapping"] == "m_no_key"
    assert "column" not in dk001["location"]  # keys that do not apply are absent


def test_validate_text_is_grouped_by_mapping_severity_first(examples: Path) -> None:
    out = mw("validate", str(examples / "dkey_rules.json"))
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    block = lines.index("mapping m_nonunique_source (ora.EMP -> db2.BYNAME)")
    assert lines[block + 1].split()[:2] == ["warning", "DK009"]
    assert lines[-1].endswith("13 errors, 4 warnings")
    mssql = lines.index("mapping m_mssql_wide (pg.PERSON -> sql.PERSON)")
    assert [line.split()[1] for line in lines[mssql + 1 : mssql + 3]] == ["DK003", "DK005"]


def test_valid_model_with_warnings_exits_zero() -> None:
    out = mw("validate", str(SAMPLE_MODEL))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 errors" in out.stdout.splitlines()[-1]


def _bad_inputs(tmp: Path, examples: Path) -> dict[str, Path]:
    source = (examples / "bidirectional.json").read_text()
    files = {
        "broken_json": source[:300],
        "wrong_type": source.replace('"nullable": false', '"nullable": "no"', 1),
        "unknown_method": source.replace('"method": "concat"', '"method": "concatt"', 1),
        "unknown_server": source.replace('"server": "br"', '"server": "nowhere"', 1),
        "empty": "",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp / f"{name}.json"
        paths[name].write_text(text)
    big = tmp / "fifty_mb.json"
    with big.open("w") as fh:
        fh.write('{"format": "mapwright/1", "name": "' + "x" * 50_000_000 + '"}')
    paths["fifty_mb"] = big
    return paths


@pytest.mark.parametrize("command", ["validate", "export"])
def test_malformed_input_gives_exit_2_and_one_clear_line(tmp_path: Path, examples: Path, command: str) -> None:
    for name, path in _bad_inputs(tmp_path, examples).items():
        extra = ["--to", "json", "--out", str(tmp_path / "o.json")] if command == "export" else []
        out = mw(command, str(path), *extra)
        assert out.returncode == 2, (name, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, (name, out.stderr)
        assert lines[0].startswith(f"mapwright: {path}"), (name, lines[0])
        assert "Traceback" not in out.stderr
        assert out.stdout == ""


def _with_memory_capped() -> None:
    """In the child, before `exec`: at most 2 GB of address space, so a read without a limit ends in a
    MemoryError, not in the OOM killer picking a process (a model linked to /dev/zero reached 21 GB)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("command", ["validate", "export", "run", "verify"])
def test_a_device_or_a_fifo_as_the_model_is_one_line_exit_2(command: str, tmp_path: Path) -> None:
    """stat() says 0 bytes for both, so the size cap let /dev/zero be read without limit and a FIFO with no
    writer block forever: a model must be a regular file."""
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    link = tmp_path / "model.json"
    link.symlink_to("/dev/zero")
    (tmp_path / "data").mkdir()
    extra = {"validate": [], "export": ["--to", "json", "--out", str(tmp_path / "o.json")],
             "run": ["--data", str(tmp_path / "data"), "--out", str(tmp_path / "rundir")],
             "verify": ["--data", str(tmp_path / "data")]}[command]
    for model, kind in (("/dev/zero", "a character device"), (str(link), "a character device"),
                        (str(fifo), "a named pipe (FIFO)")):
        out = subprocess.run([MAPWRIGHT, command, model, *extra], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL, preexec_fn=_with_memory_capped)
        assert (out.returncode, out.stdout) == (2, ""), (model, out.stderr)
        assert out.stderr == f"mapwright: {model}: is {kind}, not a model file (a model is a regular file; a pipe, " \
            "device or socket is never read)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "fifo.json", "model.json"]  # nothing written


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    assert mw("validate").returncode == 2
    assert mw("frobnicate").returncode == 2
    assert mw("validate", str(SAMPLE_MODEL), "--format", "xml").returncode == 2


def test_export_json_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    res = mw("export", str(SAMPLE_MODEL), "--to", "json", "--out", str(out))
    assert res.returncode == 0, res.stderr
    again = mw("validate", str(out), "--format", "json")
    assert again.returncode == 0
    assert json.loads(out.read_text())["format"] == "mapwright/1"


def test_export_refuses_a_model_with_errors_unless_forced(tmp_path: Path, examples: Path) -> None:
    out = tmp_path / "o.json"
    res = mw("export", str(examples / "dkey_rules.json"), "--to", "json", "--out", str(out))
    assert res.returncode == 1
    assert not out.exists()
    assert "not exported" in res.stderr
    forced = mw("export", str(examples / "dkey_rules.json"), "--to", "json", "--out", str(out), "--force")
    assert forced.returncode == 0 and out.exists()


def test_export_schema_describes_the_format(tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    res = mw("export", str(SAMPLE_MODEL), "--to", "schema", "--out", str(out))
    assert res.returncode == 0, res.stderr
    schema = json.loads(out.read_text())
    assert schema == json.loads(json.dumps(format_schema()))
    assert set(schema["required"]) >= {"format"}
    assert {"servers", "tables", "mappings", "conflicts"} <= set(schema["properties"])


def test_export_schema_accepts_every_example(examples: Path) -> None:
    import jsonschema
    schema = format_schema()
    for name in ["bidirectional.json", "dkey_rules.json", "ordering_conflict/model.json",
                 "row_images/model.json"]:
        jsonschema.validate(json.loads((examples / name).read_text()), schema)
    jsonschema.validate(json.loads(SAMPLE_MODEL.read_text()), schema)
    bare = {"format": "mapwright/1", "servers": [{"id": "s", "dbms": "informix"}], "tables": [
        {"server": "s", "name": "T", "columns": [{"name": "A", "type": "INTEGER"}],
         "replication_definitions": [{"version": 1, "columns": ["A"]}]}]}
    jsonschema.validate(bare, schema)  # the loader takes bare column names there; so does the schema
    bad = json.loads(SAMPLE_MODEL.read_text())
    bad["servers"][0]["dbms"] = "db3"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)



def test_the_schema_is_a_valid_draft_2020_12_schema_that_takes_the_odd_names_fixture() -> None:
    import jsonschema
    schema = format_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    odd = Path(__file__).resolve().parent.parent / "fixtures" / "odd_names" / "model.json"
    jsonschema.Draft202012Validator(schema).validate(json.loads(odd.read_text()))


def test_the_schema_checks_deeply_nested_methods_in_linear_time() -> None:
    """The method union was a `oneOf` over every method: a validator tried each at every level, so 7 nested
    methods took about a minute, and 31 (the loader takes 32) would never finish."""
    import time

    import jsonschema
    validator = jsonschema.Draft202012Validator(format_schema())
    for depth in (6, 31):
        node: object = "NAME"
        for i in range(depth):
            node = {"method": ("trim", "upper", "lower")[i % 3], "input": node}
        model = json.loads(SAMPLE_MODEL.read_text())
        model["mappings"][0]["columns"]["CUST_KEY"] = node
        started = time.perf_counter()
        assert validator.is_valid(model)
        assert time.perf_counter() - started < 2.0, depth
    model["mappings"][0]["columns"]["CUST_KEY"] = {"method": "upper", "input": {"method": "nope", "input": "A"}}
    assert not validator.is_valid(model)


@pytest.mark.parametrize("change", [
    {"format": "mapwright/2"}, {"format": "mapwright"}, {"format": "orders/1"}, {"format": "mapwright/1\n"},
    {"format": "mapwright/12"}, {"format": "mapwright/0000000001"},
    {"column": {"inputs": ["REGION", "CUST_NO"], "sep": "-"}},  # a method object without its `method`
    {"column": {"method": "concat", "inputs": ["REGION"], "sep": 1}},
    {"column": {"method": "expression", "sql": "1 + " * 5000 + "1"}}, {"where": "REGION = 'x' OR " * 1500 + "TRUE"},
])
def test_the_schema_refuses_what_the_loader_refuses(change: dict[str, object], tmp_path: Path) -> None:
    import jsonschema

    from engine.model import ModelLoadError, parse_model
    model = json.loads(SAMPLE_MODEL.read_text())
    if "format" in change:
        model["format"] = change["format"]
    elif "where" in change:
        model["mappings"][0]["where"] = change["where"]
    else:
        model["mappings"][0]["columns"]["CUST_KEY"] = change["column"]
    with pytest.raises(ModelLoadError):
        parse_model(json.dumps(model))
    assert not jsonschema.Draft202012Validator(format_schema()).is_valid(model)


@pytest.mark.parametrize("version", ["mapwright/1", "mapwright/1.3", "mapwright/01", "mapwright/1.\nrc"])
def test_the_schema_takes_every_format_the_loader_takes(version: str) -> None:
    import jsonschema

    from engine.model import parse_model
    model = {"format": version}
    parse_model(json.dumps(model))
    assert jsonschema.Draft202012Validator(format_schema()).is_valid(model)


def test_export_ddl_and_report(tmp_path: Path) -> None:
    ddl = tmp_path / "t.sql"
    assert mw("export", str(SAMPLE_MODEL), "--to", "ddl", "--dialect", "oracle", "--out", str(ddl)).returncode == 0
    text = ddl.read_text()
    assert "CREATE TABLE" in text and "PRIMARY KEY" in text
    report = tmp_path / "r.html"
    assert mw("export", str(SAMPLE_MODEL), "--to", "report", "--out", str(report)).returncode == 0
    assert "<table>" in report.read_text() and "CR006" in report.read_text()
    bad = mw("export", str(SAMPLE_MODEL), "--to", "ddl", "--dialect", "nosuchdb", "--out", str(ddl))
    assert bad.returncode == 2 and "unknown SQL dialect" in bad.stderr


@pytest.mark.parametrize("name", ["bidirectional", "dkey_rules"])
def test_validate_json_gives_each_example_exactly_its_expected_codes(examples: Path, name: str) -> None:
    """What the contract's checker asks of `validate --format json`: the exact codes per mapping (with the
    columns named), one of each pair, and the exact set over the model."""
    expected = json.loads((examples / f"{name}.expected.json").read_text())
    out = mw("validate", str(examples / f"{name}.json"), "--format", "json")
    assert out.returncode in (0, 1), out.stderr
    got: dict[str, list[tuple[str, str | None]]] = {}
    for finding in json.loads(out.stdout)["findings"]:
        loc = finding.get("location", {})
        got.setdefault(loc.get("mapping", ""), []).append((finding["code"], loc.get("column")))
    if "codes" in expected:
        assert sorted({c for fs in got.values() for c, _ in fs}) == sorted(set(expected["codes"]))
    for mapping, want in expected.get("by_mapping", {}).items():
        have = got.get(mapping, [])
        assert sorted(c for c, _ in have) == sorted(c for c, _ in want), mapping
        for code, column in want:
            assert not column or (code, column) in have, (mapping, code, column, have)
    for pair, codes in expected.get("pairs", {}).items():
        for code in codes:
            assert any(code in [c for c, _ in got.get(m, [])] for m in pair.split("|")), (pair, code)


def test_export_never_writes_over_the_model_it_reads(tmp_path: Path) -> None:
    model = tmp_path / "o.json"
    shutil.copyfile(SAMPLE_MODEL, model)
    before = model.read_text()
    for to in ("report", "json", "schema", "ddl"):
        res = mw("export", str(model), "--to", to, "--out", str(model), "--force")
        assert res.returncode == 2 and "is the model file itself" in res.stderr, (to, res.stderr)
        res = mw("export", "o.json", "--to", to, "--out", "./o.json", cwd=tmp_path)
        assert res.returncode == 2, (to, res.stderr)
    assert model.read_text() == before


@pytest.mark.parametrize("to", ["goldengate", "postgresql"])
def test_a_folder_export_never_writes_among_someone_else_s_files(to: str, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.txt").write_text("my notes")
    (mine / "rhqbra.prm").write_text("my parameters")
    res = mw("export", str(SAMPLE_MODEL), "--to", to, "--out", str(mine), "--force")
    assert res.returncode == 2 and "is a folder with other files in it" in res.stderr, res.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["README.txt", "rhqbra.prm"]
    assert (mine / "README.txt").read_text() == "my notes"
    fresh = tmp_path / "fresh"
    assert mw("export", str(SAMPLE_MODEL), "--to", to, "--out", str(fresh), "--force").returncode == 0
    assert mw("export", str(SAMPLE_MODEL), "--to", to, "--out", str(fresh), "--force").returncode == 0  # over itself
    other = "postgresql" if to == "goldengate" else "goldengate"
    res = mw("export", str(SAMPLE_MODEL), "--to", other, "--out", str(fresh), "--force")
    assert res.returncode == 2, res.stderr  # the two kinds never mix in one folder


def test_run_refuses_a_run_directory_inside_its_data_or_around_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(Path(SAMPLE_MODEL).parent / "orders-data", data)
    listing = sorted(str(p.relative_to(data)) for p in data.rglob("*"))
    for out, says in ((data / "changes" / "run", "is inside the data folder"), (data / "new", "is inside the data"),
                      (data, ""), (tmp_path, "")):  # the last two: folders that are no run directory, refused too
        res = mw("run", str(SAMPLE_MODEL), "--data", str(data), "--out", str(out))
        assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert sorted(str(p.relative_to(data)) for p in data.rglob("*")) == listing  # nothing written into the data


def test_validate_text_files_a_key_or_index_finding_under_its_table() -> None:
    """TB005 on a unique index had been filed under "conflicts on ..." because it names an index."""
    from builders import col, model, server, table

    from engine.report import render_text
    from engine.rules import validate

    built = model([server("s")], [table("s", "T", [col("ID", nullable=False), col("N", "VARCHAR(4)")], pk=["ID"],
                                        unique={"UX": ["N", "N"]})])
    lines = render_text(built, validate(built)).splitlines()
    assert lines[0] == "table s.T" and "TB005" in lines[1]


ESC = "\x1b[2J\x1b]0;owned\x07\x9b"
"""Clears the screen and retitles the terminal; `\\x9b` is a CSI on its own (a C1 control)."""


def test_conflicts_text_never_prints_a_control_character_of_a_name_or_value(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "run"))
    from runkit import build, copy_mapping, rec, table, ts

    from engine.run.rundir.write import run_reference_to_dir

    cols = {"ID": "INTEGER", "NAME" + ESC: "VARCHAR(40)"}
    model = build([{"id": "s" + ESC, "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s" + ESC, "T" + ESC, cols, ["ID"]), table("t", "T" + ESC, cols, ["ID"])],
                  [copy_mapping("m" + ESC, f"s{ESC}.T{ESC}", f"t.T{ESC}", list(cols))])
    (tmp_path / "model.json").write_text(model.model_dump_json())
    (tmp_path / "data" / "changes").mkdir(parents=True)
    lines = [rec("s" + ESC, "t1", "I", table="T" + ESC, after={"ID": 1, "NAME" + ESC: "a" + ESC}),
             rec("t", "t2", "I", table="T" + ESC, after={"ID": 1, "NAME" + ESC: "b\n  forged line"}, at=ts(1)),
             rec("s" + ESC, "t3", "U", table="T" + ESC, seq=2, at=ts(5), before={"ID": 1, "NAME" + ESC: "zz"},
                 after={"ID": 1, "NAME" + ESC: "c" + ESC})]
    (tmp_path / "data" / "changes" / "c.jsonl").write_text("\n".join(lines) + "\n")
    status, run = run_reference_to_dir(tmp_path / "model.json", tmp_path / "data", tmp_path / "run")
    assert status == "succeeded"
    text = mw("conflicts", str(run))
    assert text.returncode == 0
    assert "DIVERGED" in text.stdout and "by table: " in text.stdout
    assert not any(c in text.stdout for c in "\x1b\x07\x9b"), text.stdout
    assert "m\\x1b[2J\\x1b]0;owned\\x07\\x9b" in text.stdout  # shown escaped, still readable
    assert "forged line" in text.stdout and "\n  forged line" not in text.stdout
    as_json = mw("conflicts", str(run), "--format", "json")
    doc = json.loads(as_json.stdout)
    assert doc["convergence"][0]["mapping"] == "m" + ESC  # JSON keeps the name exactly (escaped by JSON itself)
    assert as_json.stdout == mw("conflicts", str(run), "--format", "json").stdout


def test_validate_text_never_prints_a_control_character_of_a_name(tmp_path: Path) -> None:
    model = {"format": "mapwright/1", "servers": [{"id": "s", "dbms": "oracle"}],
             "tables": [{"server": "s", "name": "T" + ESC, "columns": [{"name": "A", "type": "INTEGER"}],
                         "primary_key": ["NOPE"]}],
             "mappings": [{"id": "m" + ESC, "source": "s.T" + ESC, "target": "s.GONE\nerror TB001 forged"}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    out = mw("validate", str(path))
    assert out.returncode == 1
    assert "MP002" in out.stdout and "TB001" in out.stdout
    assert not any(c in out.stdout for c in "\x1b\x07\x9b"), out.stdout
    assert "mapping m\\x1b[2J" in out.stdout
    assert not any(line.startswith("error TB001 forged") for line in out.stdout.splitlines())


def test_validate_text_escapes_bidirectional_overrides_and_line_separators(tmp_path: Path) -> None:
    """A right-to-left override shows the rest of the line reversed ("Trojan Source"), and U+2028 breaks a
    line in many terminals and editors: printed escaped, a name reads as the file holds it."""
    model = {"format": "mapwright/1", "servers": [{"id": "s", "dbms": "oracle"}],
             "tables": [{"server": "s", "name": "T", "columns": [{"name": "A", "type": "INTEGER"}]}],
             "mappings": [{"id": "m\u202eok\u2066", "source": "s.T", "target": "s.GONE\u2028error TB001 forged"}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    out = mw("validate", str(path))
    assert out.returncode == 1
    assert not any(c in out.stdout for c in "\u202e\u2066\u2028"), out.stdout
    assert "mapping m\\u202eok\\u2066" in out.stdout and "GONE\\u2028error TB001 forged" in out.stdout


@pytest.mark.parametrize("to", ["json", "schema", "ddl", "report"])
def test_an_export_never_replaces_a_pipe_or_device_with_a_file(to: str, tmp_path: Path) -> None:
    """The rename put a regular file in place of a FIFO; as root, `--out /dev/null` would replace /dev/null."""
    import os
    import stat

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for out in (fifo, link):
        res = mw("export", str(SAMPLE_MODEL), "--to", to, "--out", str(out))
        assert res.returncode == 2, res.stdout
        assert len(res.stderr.splitlines()) == 1 and "not a regular file" in res.stderr, res.stderr
        assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link"]  # no temporary file left


def test_an_export_never_replaces_a_read_only_file(tmp_path: Path) -> None:
    """The write-then-rename needs only the folder's permission: a read-only file was replaced."""
    out = tmp_path / "locked.json"
    out.write_text("keep me")
    out.chmod(0o444)
    res = mw("export", str(SAMPLE_MODEL), "--to", "json", "--out", str(out))
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1 and "read-only" in res.stderr, res.stderr
    assert out.read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["locked.json"]


def test_an_empty_or_unknown_dialect_or_server_is_refused_not_ignored(tmp_path: Path) -> None:
    """`--dialect "$DIALECT"` with the variable unset wrote each server's own dialect, silently."""
    out = tmp_path / "o.sql"
    for args in (["--dialect", ""], ["--dialect", "ORACLE2"], ["--server", ""], ["--server", "nosuch"]):
        res = mw("export", str(SAMPLE_MODEL), "--to", "ddl", *args, "--out", str(out))
        assert res.returncode == 2, args
        assert len(res.stderr.splitlines()) == 1 and ("dialect" in res.stderr or "server" in res.stderr), res.stderr
        assert not out.exists()
    for to in ("json", "goldengate"):
        res = mw("export", str(SAMPLE_MODEL), "--to", to, "--out", "", cwd=tmp_path)
        assert (res.returncode, res.stderr) == (2, "mapwright: --out names no file (an empty path)\n")
    for to in ("postgresql", "goldengate"):  # was ignored: PostgreSQL's SQL written whatever it said
        res = mw("export", str(SAMPLE_MODEL), "--to", to, "--dialect", "oracle", "--out", str(tmp_path / to))
        assert res.returncode == 2 and "--dialect is for --to ddl" in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_deployment_findings_and_import_notes_never_print_a_control_character(tmp_path: Path) -> None:
    cols = [{"name": "ID", "type": "INTEGER"}, {"name": "N" + ESC, "type": "VARCHAR(10)"}]
    model = {"format": "mapwright/1",
             "servers": [{"id": "a", "dbms": "postgresql"}, {"id": "b", "dbms": "postgresql"}],
             "tables": [{"server": s, "name": "T", "columns": cols, "primary_key": ["ID"]} for s in "ab"],
             "mappings": [{"id": "m" + ESC, "source": "a.T", "target": "b.T", "distribution_key": ["ID"],
                           "where": "rand() > 0.5",
                           "columns": {"ID": {"method": "column", "input": "ID"}}}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    out = mw("export", str(path), "--to", "postgresql", "--out", str(tmp_path / "deploy"), "--force")
    assert out.returncode == 0, out.stderr
    assert "mapwright: finding: " in out.stderr and "m\\x1b[2J" in out.stderr  # said, escaped
    assert not any(c in out.stderr for c in "\x1b\x07\x9b"), out.stderr

    database = tmp_path / "esc.db"
    with sqlite3.connect(database) as db:
        # G INTERVAL: a type with no exact counterpart, so the import says a note naming the table
        db.execute(f'CREATE TABLE "T{ESC}" (ID INTEGER PRIMARY KEY, G INTERVAL)')
    imported = mw("import", f"sqlite:///{database}", "--server", "s", "--out", str(tmp_path / "i.json"))
    assert imported.returncode == 0, imported.stderr
    assert "mapwright: note: " in imported.stderr and "T\\x1b[2J" in imported.stderr
    assert not any(c in imported.stderr for c in "\x1b\x07\x9b"), imported.stderr
