"""Hostile models and schedules: each is refused with one line naming file, line and field (exit 2),
or becomes a finding, in every command and in the designer, and never crashes anything.

Each case is a real file with its line known from the text, so a test checks the exact
`file:line field:` prefix, not only that some error happened.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.limits import MAX_METHOD_DEPTH, MAX_SQL_CHARS
from engine.model import ModelLoadError, load_model, parse_model
from engine.rules import validate

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"

BASE: dict[str, Any] = {
    "format": "mapwright/1", "name": "hostile",
    "servers": [{"id": "s", "dbms": "postgresql", "priority": 1}, {"id": "t", "dbms": "postgresql"}],
    "tables": [
        {"server": "s", "name": "T", "columns": [
            {"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"}],
         "primary_key": ["ID"]},
        {"server": "t", "name": "T", "columns": [
            {"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"}],
         "primary_key": ["ID"]}],
    "mappings": [{"id": "m", "source": "s.T", "target": "t.T", "columns": {"ID": "ID", "NAME": "@NAME@"}}],
    "layout": {"s.T": [0, 0], "t.T": [400, 0]},
}
HOLE = '"@NAME@"'


def model_text(edit: Callable[[dict[str, Any]], None] = lambda m: None, name_map: str = '"NAME"') -> str:
    """The base model, pretty-printed, after `edit`; `name_map` is spliced in as raw JSON text for the
    NAME column map (so it can be nested deeper than `json.dumps` can write)."""
    doc = json.loads(json.dumps(BASE))
    edit(doc)
    return json.dumps(doc, indent=1).replace(HOLE, name_map)


def line_at(text: str, needle: str, nth: int = 1) -> int:
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


def nested_methods(depth: int) -> str:
    """`upper(upper(...(NAME)))` with `depth - 1` uppers, one object a line: `depth` levels counting NAME."""
    return "\n".join(['{"method": "upper", "input":'] * (depth - 1) + ['"NAME"'] + ["}"] * (depth - 1))


@dataclass(frozen=True)
class Hostile:
    """A model file that must be refused: its text, the field and line the error names, what it says."""

    text: str
    field: str
    line: int
    says: str


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return edit


def hostile_cases() -> dict[str, Hostile]:
    cases: dict[str, Hostile] = {}
    where50 = model_text(_set(("mappings", 0, "where"), "(" * 50 + "ID > 1" + ")" * 50))
    cases["where_50_parentheses"] = Hostile(where50, "mappings[0].where", line_at(where50, '"where"'),
                                            "nested too deeply: 50 levels")
    nots = model_text(_set(("mappings", 0, "where"), "NOT " * 300 + "ID > 1"))
    cases["where_300_nots"] = Hostile(nots, "mappings[0].where", line_at(nots, '"where"'), "nested too deeply")
    chain = model_text(_set(("mappings", 0, "where"), " AND ".join(["ID > 1"] * 150)))
    cases["where_150_ands"] = Hostile(chain, "mappings[0].where", line_at(chain, '"where"'), "levels once parsed")
    row = model_text(_set(("tables", 0, "columns", 1, "type"), "ROW(" * 500 + "INTEGER" + ")" * 500))
    cases["type_row_500_deep"] = Hostile(row, "tables[0].columns[1].type", line_at(row, '"ROW('),
                                         "nested more than 16 deep")
    long_sql = model_text(name_map=json.dumps({"method": "expression", "sql": "ID + " * (MAX_SQL_CHARS // 5) + "1"}))
    cases["expression_too_long"] = Hostile(long_sql, "mappings[0].columns.NAME.sql", line_at(long_sql, '"ID + '),
                                           "too long")
    deep_expr = model_text(name_map=json.dumps({"method": "expression", "sql": "(" * 50 + "ID" + ")" * 50}))
    cases["expression_50_parentheses"] = Hostile(deep_expr, "mappings[0].columns.NAME.sql",
                                                 line_at(deep_expr, '"((('), "nested too deeply")
    # lone surrogates, written as JSON escapes: in a name, a value, a key
    name = model_text(_set(("tables", 0, "name"), "T\ud800"))  # json.dumps writes it as the escape \ud800
    cases["surrogate_in_table_name"] = Hostile(name, "tables[0].name", line_at(name, "\\ud800"),
                                               "lone UTF-16 surrogate \\ud800")
    default = model_text(_set(("tables", 1, "columns", 1, "default"), "x\udfff"))
    cases["surrogate_in_default"] = Hostile(default, "tables[1].columns[1].default", line_at(default, "\\udfff"),
                                            "lone UTF-16 surrogate \\udfff")
    key = model_text(lambda m: m["mappings"][0]["columns"].update({"N\udc00": "NAME"}))
    cases["surrogate_in_column_map_key"] = Hostile(key, "mappings[0].columns", line_at(key, '"columns"', 3),
                                                   "a key cannot be encoded")
    model_name = model_text(_set(("name",), "\ud83d"))
    cases["surrogate_in_model_name"] = Hostile(model_name, "name", line_at(model_name, "\\ud83d"), "surrogate")
    # methods nested too deeply: past the JSON limit, and just past the methods limit
    deep = model_text(name_map=nested_methods(1000))
    first = line_at(deep, '{"method": "upper"')
    cases["methods_1000_deep"] = Hostile(deep, "mappings[0].columns.NAME", first + MAX_METHOD_DEPTH,
                                         f"methods are nested more than {MAX_METHOD_DEPTH} deep")
    just = model_text(name_map=nested_methods(MAX_METHOD_DEPTH + 1))
    cases["methods_33_deep"] = Hostile(just, "mappings[0].columns.NAME", line_at(just, '"NAME"\n'),
                                       f"methods are nested more than {MAX_METHOD_DEPTH} deep")
    # numbers no JSON reader agrees on
    for label, raw, says in (("nan", "NaN", "NaN is not a number"), ("infinity", "-Infinity", "-Infinity is not"),
                             ("1e400", "1e400", "out of range"), ("5000_digits", "9" * 5000, "5000 digits")):
        text = model_text().replace('"priority": 1', f'"priority": {raw}', 1)
        cases[f"priority_{label}"] = Hostile(text, "servers[0].priority", line_at(text, '"priority"'), says)
    layout = model_text().replace('"s.T": [\n   0,', '"s.T": [' + "[" * 1000 + "0" + "]" * 1000 + ",", 1)
    cases["layout_nested_1000"] = Hostile(layout, "layout.s.T[0][0][0][0]...", line_at(layout, "[[[["),
                                          "nested more than 100 deep")
    newline = model_text(lambda m: m["mappings"][0]["columns"].update({"N\nAME": {"method": "concatt"}}))
    cases["newline_in_a_failing_key"] = Hostile(newline, "mappings[0].columns.N\\nAME",
                                                line_at(newline, '"N\\nAME"'), "unknown method 'concatt'")
    return cases


CASES = hostile_cases()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_base_model_and_the_cases_just_inside_the_limits_load() -> None:
    assert validate(parse_model(model_text())) == []
    parse_model(model_text(name_map=nested_methods(MAX_METHOD_DEPTH)))
    parse_model(model_text(_set(("mappings", 0, "where"), "(" * 16 + "ID > 1" + ")" * 16)))
    parse_model(model_text(_set(("tables", 0, "columns", 1, "type"), "ROW(" * 16 + "INTEGER" + ")" * 16)))
    parse_model(model_text(_set(("mappings", 0, "where"), " AND ".join(["ID > 1"] * 40))))
    paired = parse_model(model_text(_set(("name",), "\U0001f600")))  # an emoji, as a surrogate pair
    assert paired.name == "\U0001f600"


@pytest.mark.parametrize("case", list(CASES))
def test_loading_names_file_line_and_field(case: str) -> None:
    hostile = CASES[case]
    with pytest.raises(ModelLoadError) as info:
        parse_model(hostile.text, "hostile.json")
    message = str(info.value)
    assert message.startswith(f"hostile.json:{hostile.line} {hostile.field}: "), message
    assert hostile.says in message
    assert "\n" not in message and len(message) < 400


@pytest.mark.parametrize("word", ["NOT", "-", "~", "INTERVAL", "ARRAY", "ANY", "@", "$", "FROM", "DESC"])
def test_runs_of_operators_that_make_sqlglot_recurse_are_refused_before_it_reads_them(word: str) -> None:
    text = model_text(_set(("mappings", 0, "where"), f"{word} " * 400 + "ID"))
    with pytest.raises(ModelLoadError, match=r"mappings\[0\]\.where: the where clause is nested too deeply: 399"):
        parse_model(text)


@pytest.mark.parametrize("command", ["validate", "export", "run"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_command_exits_2_with_one_line(case: str, command: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    hostile = CASES[case]
    path = write(tmp_path, case, hostile.text)
    (tmp_path / "data").mkdir()
    extra = {"validate": [], "export": ["--to", "json", "--out", str(tmp_path / "out.json")],
             "run": ["--data", str(tmp_path / "data"), "--out", str(tmp_path / "run"), "--master", "local[1]"]}
    code = main([command, str(path), *extra[command]])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"mapwright: {path}:{hostile.line} {hostile.field}: "), err
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "run").exists()


@pytest.mark.parametrize("case", ["where_50_parentheses", "type_row_500_deep", "methods_1000_deep",
                                  "surrogate_in_table_name", "priority_5000_digits"])
def test_the_installed_command_in_a_fresh_process(case: str, tmp_path: Path) -> None:
    hostile = CASES[case]
    path = write(tmp_path, case, hostile.text)
    for args in (["validate", str(path)], ["export", str(path), "--to", "report", "--out", str(tmp_path / "r.html")],
                 ["designer", str(path), "--screenshot", str(tmp_path / "shot.png")]):
        res = subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120)
        assert res.returncode == 2, res.stderr
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"mapwright: {path}:{hostile.line} {hostile.field}: ")
        assert "Traceback" not in res.stderr and hostile.says in res.stderr and res.stdout == ""
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "shot.png").exists()


# --- invalid regular expressions: findings, never a crash at run time --------------------------------


def _rlike_where(pattern: str) -> str:
    return model_text(_set(("mappings", 0, "where"), f"NAME rlike '{pattern}'"))


def test_an_invalid_regex_in_a_where_clause_is_mp003(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "rlike", _rlike_where("("))
    findings = validate(load_model(path))
    assert [(f.code, f.location.mapping) for f in findings] == [("MP003", "m")]
    assert "invalid regular expression '('" in findings[0].message
    assert main(["validate", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in doc["findings"]] == ["MP003"]
    # run refuses the model before any Spark starts: exit 1, a manifest that says why
    (tmp_path / "data").mkdir()
    assert main(["run", str(path), "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run"),
                 "--master", "local[1]"]) == 1
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "validation error" in manifest["reason"]
    # a valid pattern is no finding
    assert validate(parse_model(_rlike_where("^[A-Z]+$"))) == []


@pytest.mark.parametrize(("pattern", "valid"), [
    ("^(?i)abc\\\\z", True),  # a flag inside the pattern: Java takes it there, Python 3.11 did not
    ("a(?s).b", True),
    ("[a[b]]", False),  # Java's union of two classes, which Python reads as a class and a literal ']'
])
def test_validation_reads_a_pattern_as_the_run_does(pattern: str, valid: bool) -> None:
    """MP003 follows the run's translation of a Java pattern, not Python's own reading of it: validation
    accepts exactly what the run can evaluate."""
    findings = validate(parse_model(_rlike_where(pattern)))
    assert [f.code for f in findings] == ([] if valid else ["MP003"])


@pytest.mark.parametrize("sql", ["regexp_extract(NAME, '[a-', 0)", "regexp_replace(NAME, '*x', '')",
                                 "CASE WHEN NAME rlike '(?P<' THEN 1 ELSE 0 END"])
def test_an_invalid_regex_in_an_expression_is_mp004(sql: str) -> None:
    model = parse_model(model_text(name_map=json.dumps({"method": "expression", "sql": sql})))
    findings = validate(model)
    assert [f.code for f in findings] == ["MP004"]
    assert "invalid regular expression" in findings[0].message and findings[0].location.column == "NAME"


def test_the_evaluator_refuses_a_bad_pattern_and_deep_sql_in_one_line() -> None:
    from engine.model.schema import Table
    from engine.run.semantics.context import RunModelError, default_value, table_plan
    from engine.sql.errors import UnsupportedSql
    from engine.sql.evaluate import evaluate_sql, predicate_holds

    with pytest.raises(UnsupportedSql, match="invalid regular expression '\\('"):
        predicate_holds("NAME rlike PATTERN", {"NAME": "x", "PATTERN": "("})  # a pattern from the data
    assert predicate_holds("NAME rlike PATTERN", {"NAME": "abc", "PATTERN": "^a"}) is True
    with pytest.raises(UnsupportedSql, match="nested too deeply"):
        evaluate_sql("(" * 200 + "1" + ")" * 200, {})
    with pytest.raises(UnsupportedSql, match="levels once parsed"):
        evaluate_sql(" + ".join(["1"] * 500), {})
    assert evaluate_sql("(" * 10 + "1 + 1" + ")" * 10, {}) == 2
    # a column default beyond the limits is kept as text, as any default the evaluator cannot read, and a
    # column of another type refuses that text in one line that names the rule (TB003 reports the model)
    deep_default = "(" * 300 + "1" + ")" * 300
    columns = [{"name": "C", "type": "INTEGER", "default": deep_default},
               {"name": "D", "type": "INTEGER", "default": "(2)"},
               {"name": "E", "type": "VARCHAR(700)", "default": deep_default}]
    plan = table_plan(Table.model_validate({"server": "s", "name": "T", "columns": columns}), None)
    with pytest.raises(RunModelError, match=r"the default of C does not fit its type \(TB003\)"):
        default_value(plan, "C", None)
    assert default_value(plan, "D", None) == 2
    assert default_value(plan, "E", None) == deep_default


# --- schedule.json ------------------------------------------------------------------------------------


def schedule_text(delay: str) -> str:
    return '{\n "links": [\n  {"from": "hq", "to": "branch", "delay_s": 30},\n  {"from": "branch", "to": "hq",\n' \
           f'   "delay_s": {delay}}}\n ]\n}}\n'


@pytest.mark.parametrize(("delay", "says"), [
    ("1e20", "from 0 to 31536000 (one year), got 1e+20"),
    ("31536001", "got 31536001"),
    ("-1", "got -1"),
    ('"soon"', "got 'soon'"),
    ("NaN", "NaN is not a number JSON allows"),
    ("Infinity", "Infinity is not a number JSON allows"),
    ("1e400", "1e400 is out of range"),
])
def test_schedule_numbers_out_of_range_name_file_line_link_and_field(tmp_path: Path, delay: str, says: str) -> None:
    from engine.run.input.schedule import ScheduleError, load_schedule

    path = tmp_path / "schedule.json"
    path.write_text(schedule_text(delay))
    with pytest.raises(ScheduleError) as info:
        load_schedule(path)
    message = str(info.value)
    assert message.startswith(f"{path}:5 links[1].delay_s: "), message
    assert says in message and "\n" not in message
    if delay not in ("NaN", "Infinity", "1e400"):  # those are refused as JSON, before any link is read
        assert "link branch->hq" in message


@pytest.mark.parametrize(("window", "says"), [
    (["2026-01-05T10:09:00Z", "2026-01-05T10:02:00Z"], "the window ends before it starts"),
    (["2026-01-05T10:02:00Z", "2026-01-05T10:02:00Z"], "the window is empty (it ends where it starts)"),
])
def test_a_down_window_that_ends_before_or_where_it_starts_is_named_as_such(tmp_path: Path, window: list[str],
                                                                           says: str) -> None:
    from engine.run.input.schedule import ScheduleError, load_schedule

    path = tmp_path / "schedule.json"
    path.write_text(json.dumps({"links": [{"from": "hq", "to": "branch", "delay_s": 0, "down": [window]}]}))
    with pytest.raises(ScheduleError) as info:
        load_schedule(path)
    assert str(info.value).endswith(says), str(info.value)


def test_a_deeply_nested_schedule_is_one_line(tmp_path: Path) -> None:
    from engine.run.input.schedule import ScheduleError, load_schedule

    path = tmp_path / "schedule.json"
    path.write_text('{"links": [\n' + "[" * 5000 + "]" * 5000 + "]}")
    with pytest.raises(ScheduleError, match=r"schedule\.json:2: arrays and objects are nested more than 100 deep"):
        load_schedule(path)


def test_run_with_a_schedule_delay_of_1e20_exits_2_naming_the_field(examples: Path, tmp_path: Path) -> None:
    """The real command, on Spark: the schedule is read on the driver and refused in one line."""
    data = tmp_path / "data"
    shutil.copytree(examples / "ordering_conflict" / "data", data)
    (data / "schedule.json").write_text(schedule_text("1e20"))
    out = tmp_path / "run"
    res = subprocess.run([MAPWRIGHT, "run", str(examples / "ordering_conflict" / "model.json"), "--data", str(data),
                          "--out", str(out), "--master", "local[1]"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith(
        f"mapwright: {data / 'schedule.json'}:5 links[1].delay_s: link branch->hq: the delay must be")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "links[1].delay_s" in manifest["reason"]


# --- the designer ---------------------------------------------------------------------------------------


@pytest.fixture
def window(qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from PySide6.QtCore import QSettings

    from designer.window import MainWindow

    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    w = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ask=False)
    assert w.open_path(write(tmp_path, "base", model_text()))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.mark.parametrize("case", ["where_50_parentheses", "type_row_500_deep", "methods_1000_deep",
                                  "surrogate_in_column_map_key", "priority_nan", "layout_nested_1000"])
def test_the_designer_shows_the_error_and_keeps_its_model(window: Any, tmp_path: Path, case: str) -> None:
    hostile = CASES[case]
    before = window.document
    path = write(tmp_path, case, hostile.text)
    assert window.open_path(path) is False
    shown = window.statusBar().currentMessage()
    assert shown.startswith(f"{path}:{hostile.line} {hostile.field}: ") and hostile.says in shown
    assert window.document is before and window.document.model.mapping("m") is not None
    assert window.isVisible()


def test_the_designer_opens_a_bad_regex_with_its_finding(window: Any, tmp_path: Path) -> None:
    assert window.open_path(write(tmp_path, "rlike", _rlike_where("(")))
    view = window.problems.model
    rows = [[view.index(r, c).data() for c in range(3)] for r in range(view.rowCount())]
    assert [r[1] for r in rows] == ["MP003"] and "invalid regular expression" in rows[0][2]


def test_the_inspector_refuses_a_where_beyond_the_limits(window: Any, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    window.inspector.show_ref(("mapping", "m"))
    field = window.inspector.fields["where"]
    field.setText("(" * 50 + "ID > 1" + ")" * 50)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert window.document.model.mapping("m").where is None
    assert "nested too deeply" in window.inspector.error.text()
    window.inspector.show_ref(("mapping", "m"))
    field = window.inspector.fields["where"]
    field.setText("NAME rlike '('")
    qtbot.keyClick(field, Qt.Key.Key_Return)  # applied: a finding, fixable in place
    assert window.document.model.mapping("m").where == "NAME rlike '('"
    assert [f.code for f in window.document.findings()] == ["MP003"]


def test_the_inspector_refuses_a_type_nested_too_deeply(window: Any, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    window.inspector.show_ref(("column", "t.T", "NAME"))
    field = window.inspector.fields["type"]
    field.setText("ROW(" * 40 + "INTEGER" + ")" * 40)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert window.document.model.table("t.T").column("NAME").type == "VARCHAR(40)"
    assert "nested more than 16 deep" in window.inspector.error.text()


# --- other JSON a run reads or writes: change records, snapshots, the run directory --------------------------


@pytest.mark.parametrize(("line", "why"), [("[" * 100_000 + "]" * 100_000, "JSON nested deeper than 64 levels"),
                                           ('{"site": ' + "9" * 5000 + "}", "not JSON: Exceeds the limit")])
def test_a_change_record_too_deep_or_too_long_is_a_reject(line: str, why: str) -> None:
    from engine.run.input.records import Reject, decode_record

    found = decode_record(line, "changes/a.jsonl", 3, parse_model(model_text()))
    assert isinstance(found, Reject) and found.line == 3 and why in found.reason


def test_a_snapshot_line_too_deep_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    from engine.run.input.files import InputError
    from engine.run.input.snapshots import read_snapshots

    folder = tmp_path / "snapshots" / "s"
    folder.mkdir(parents=True)
    (folder / "T.jsonl").write_text('{"ID": 1}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InputError, match=r"T\.jsonl:2: JSON nested deeper than 64 levels"):
        read_snapshots(tmp_path, parse_model(model_text()))


def test_conflicts_on_a_run_directory_with_hostile_json_exits_2(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.run.rundir.write import conflicts_arrow

    rundir = tmp_path / "run"
    rundir.mkdir()
    (rundir / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["conflicts", str(rundir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mapwright: {rundir / 'manifest.json'}") and "nested" in err
    counts = dict.fromkeys(("records", "rejects", "filtered", "deliveries", "applied", "resolved", "queued"), 0)
    (rundir / "manifest.json").write_text(json.dumps({"status": "succeeded", "engine": "mapwright 0.1.0",
                                                      "counts": {**counts, "conflicts": 1}}))
    for name in ("error_queue.jsonl", "rejects.jsonl"):
        (rundir / name).write_text("")
    (rundir / "convergence.json").write_text('{"mappings": []}')
    (rundir / "tables" / "s").mkdir(parents=True)
    pq.write_table(pa.table({"ID": pa.array([], pa.int64())}), rundir / "tables" / "s" / "T.parquet")
    pq.write_table(conflicts_arrow([]), rundir / "conflicts.parquet")
    (rundir / "conflicts.jsonl").write_text('{"n": ' + "9" * 5000 + "}\n")
    assert main(["conflicts", str(rundir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mapwright: {rundir / 'conflicts.jsonl'}:1")


@pytest.mark.parametrize("autosave", [
    "[" * 100_000 + "]" * 100_000,
    '{"model": {"format": "mapwright/1", "name": 5}}',
    '["model"]',
    '{"model": ' + model_text().replace('"priority": 1', '"priority": NaN') + "}",
])
def test_a_hostile_autosave_is_not_offered_and_the_model_opens(window: Any, tmp_path: Path, autosave: str) -> None:
    import os

    from designer.autosave import autosave_path

    path = write(tmp_path, "other", model_text(_set(("name",), "other")))
    auto = autosave_path(path)
    auto.parent.mkdir(parents=True, exist_ok=True)
    auto.write_text(autosave)
    os.utime(auto, (path.stat().st_mtime + 60, path.stat().st_mtime + 60))  # newer than the model
    assert window.open_path(path)
    assert window.document.model.name == "other" and not window.document.dirty


def test_the_sample_data_generator_refuses_a_hostile_model_in_one_line(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from engine.sampledata.cli import main as sampledata

    hostile = CASES["methods_1000_deep"]
    path = write(tmp_path, "deep", hostile.text)
    assert sampledata([str(path), "--out", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:{hostile.line} {hostile.field}: " in err
    assert not (tmp_path / "data").exists()


def test_a_surrogate_encoded_in_the_bytes_is_not_utf8_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cesu.json"
    text = model_text()
    at = text.index('"T"')
    path.write_bytes(text[:at].encode() + b'"T\xed\xa0\x80"' + text[at + 3:].encode())  # U+D800 as UTF-8 bytes
    with pytest.raises(ModelLoadError) as info:
        load_model(path)
    assert str(info.value).startswith(f"{path}:{text.count(chr(10), 0, at) + 1}: not UTF-8 text (byte {at + 2})")


def test_the_inspector_refuses_an_expression_beyond_the_limits(window: Any, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from engine import authoring as au

    doc = window.document
    doc.apply(au.set_method(doc.model, "m", "NAME", {"method": "expression", "sql": "upper(NAME)"}), "expr")
    window.inspector.show_ref(("method", "m", "NAME", ()))
    field = window.inspector.fields["sql"]
    field.setText("upper(" * 40 + "NAME" + ")" * 40)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert doc.model.mapping("m").columns["NAME"].sql == "upper(NAME)"
    assert "the expression is nested too deeply: 40 levels" in window.inspector.error.text()


def test_operator_runs_inside_each_bracket_add_up() -> None:
    """`(NOT NOT (NOT NOT ...` costs the parser a bracket and two operators a level: counted as 2 a level."""
    from engine.sql import limit_problem, token_nesting

    assert token_nesting("(" * 50 + "ID > 1" + ")" * 50) == 50
    assert token_nesting("NOT NOT (NOT NOT (x))") == 4
    assert limit_problem("(NOT NOT " * 8 + "TRUE" + ")" * 8) is None
    assert "30 levels" in (limit_problem("(NOT NOT " * 15 + "TRUE" + ")" * 15) or "")
