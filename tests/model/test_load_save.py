"""Loading reports one clear error naming file, line and field; saving is atomic and round-trips."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.core.types import TypeFamily, parse_type
from engine.model import ModelLoadError, load_model, parse_model, save_model
from engine.model.io import dump_model
from resources import SAMPLE_MODEL

MODEL_FILES = ["bidirectional.json", "dkey_rules.json", "ordering_conflict/model.json", "row_images/model.json"]


@pytest.mark.parametrize("name", MODEL_FILES)
def test_every_example_loads_and_round_trips(examples: Path, name: str, tmp_path: Path) -> None:
    model = load_model(examples / name)
    out = tmp_path / "saved.json"
    save_model(model, out)
    assert load_model(out) == model
    # a second save is byte-identical: saving is stable
    first = out.read_text()
    save_model(load_model(out), out)
    assert out.read_text() == first


def test_bundled_sample_round_trips(tmp_path: Path) -> None:
    model = load_model(SAMPLE_MODEL)
    save_model(model, tmp_path / "s.json")
    assert load_model(tmp_path / "s.json") == model


def test_bare_string_column_maps_stay_bare(examples: Path) -> None:
    data = json.loads(dump_model(load_model(examples / "bidirectional.json")))
    m_fwd = next(m for m in data["mappings"] if m["id"] == "m_fwd")
    assert m_fwd["columns"]["NAME"] == "NAME"
    assert m_fwd["columns"]["CUST_KEY"]["method"] == "concat"
    assert m_fwd["columns"]["CUST_KEY"]["inputs"] == ["REGION", "CUST_NO"]


def _edited(examples: Path, old: str, new: str) -> str:
    text = (examples / "bidirectional.json").read_text()
    assert old in text
    return text.replace(old, new, 1)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(("old", "new", "field", "says", "line_at"), [
    ('"method": "concat"', '"method": "concatt"', "mappings[0].columns.CUST_KEY", "unknown method 'concatt'",
     '"CUST_KEY": {'),
    ('"CHAR(2)"', '"CHARR(2)"', "tables[0].columns[0].type", "unknown type 'CHARR(2)'", '"CHARR(2)"'),
    ('"nullable": false', '"nullable": "maybe"', "tables[0].columns[0].nullable", "valid boolean", '"maybe"'),
    ('"sep": "-"', '"sepp": "-"', "mappings[0].columns.CUST_KEY.sepp", "unknown field", '"sepp"'),
    ('"server": "br"', '"server": "xx"', "tables[1].server", "unknown server 'xx'", '"xx"'),
    ('"mapwright/1"', '"mapwright/2"', "format", "cannot read", '"mapwright/2"'),
    ('"dbms": "db2"', '"dbms": "db3"', "servers[4].dbms", "'db3' is not one of", '"db3"'),
    ('"id": "m_back"', '"id": "m_fwd"', "mappings[1].id", "used twice", '"m_fwd",\n   "source": "br.CUST"'),
    ('"NAME": "NAME"', '"NAME": 5', "mappings[0].columns.NAME", "source column name or a method", '"NAME": 5'),
])
def test_bad_field_names_file_line_and_path(examples: Path, old: str, new: str, field: str, says: str,
                                            line_at: str) -> None:
    text = _edited(examples, old, new)
    with pytest.raises(ModelLoadError) as info:
        parse_model(text, "orders.json")
    assert str(info.value).startswith(f"orders.json:{_line_of(text, line_at)} {field}: "), str(info.value)
    assert says in str(info.value)


def test_an_unknown_type_names_its_column(examples: Path) -> None:
    """docs/contract.md §1: "An unknown type string is a load error that names the column" (the path gives
    only its place)."""
    text = _edited(examples, '"CHAR(2)"', '"INTERVAL"')
    with pytest.raises(ModelLoadError) as info:
        parse_model(text, "orders.json")
    assert str(info.value).endswith("unknown type 'INTERVAL' (column REGION)"), str(info.value)


def test_unknown_method_matches_the_contract_example_shape(examples: Path) -> None:
    text = _edited(examples, '"method": "concat"', '"method": "concatt"')
    with pytest.raises(ModelLoadError) as info:
        parse_model(text, "orders.json")
    assert str(info.value).startswith(f"orders.json:{_line_of(text, 'concatt') - 1} mappings[0].columns.CUST_KEY: "
                                      "unknown method 'concatt'")


@pytest.mark.parametrize(("text", "says", "line"), [
    ("", "the file is empty", None),
    ("   \n", "the file is empty", None),
    ('{"format": "mapwright/1",\n "servers": [}', "invalid JSON", 2),
    ("[1, 2]", "expected a JSON object", 1),
    ('{"name": "x"}', "missing 'format'", 1),
])
def test_unreadable_text(text: str, says: str, line: int | None) -> None:
    with pytest.raises(ModelLoadError) as info:
        parse_model(text, "m.json")
    assert says in str(info.value)
    assert info.value.line == line


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="no such file"):
        load_model(tmp_path / "absent.json")
    with pytest.raises(ModelLoadError, match="is a folder"):
        load_model(tmp_path)


def test_huge_file_is_refused_quickly(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("w") as fh:
        fh.write('{"format": "mapwright/1", "tables": [')
        fh.write(",".join(['{"server": "s", "name": "T", "columns": []}'] * 1_200_000))
        fh.write("]}")
    assert big.stat().st_size > 50_000_000
    with pytest.raises(ModelLoadError, match="at most 32 MB"):
        load_model(big)


def _load_in_a_thread(path: Path, seconds: float = 10.0) -> BaseException | None:
    """`load_model(path)`'s exception (None when it loads), or a test failure when it is still reading after
    `seconds` (a FIFO without a writer blocked forever: the thread is left behind, a daemon)."""
    box: dict[str, BaseException | None] = {}

    def load() -> None:
        try:
            load_model(path)
            box["error"] = None
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"loading {path} still blocks after {seconds:g} s")
    return box["error"]


def _stat_saying(size: int | None, mode: int | None, real: os.stat_result) -> os.stat_result:
    fields = list(real)[:10]
    fields[0] = real.st_mode if mode is None else mode
    fields[6] = real.st_size if size is None else size
    return os.stat_result(fields)


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    """`read_bytes()` of a FIFO without a writer never returned; saving already refused pipes and devices."""
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    error = _load_in_a_thread(fifo)
    assert isinstance(error, ModelLoadError), error
    assert str(error) == f"{fifo}: is a named pipe (FIFO), not a model file (a model is a regular file; a pipe, " \
        "device or socket is never read)"


def test_a_fifo_swapped_in_after_the_check_is_refused_not_waited_on(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The path is checked, then opened: what is opened is checked again, and opening it cannot block."""
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    real_stat = Path.stat

    def looks_regular(self: Path, **kwargs: Any) -> os.stat_result:
        real = real_stat(self, **kwargs)
        return _stat_saying(None, stat.S_IFREG | 0o644, real) if self == fifo else real

    monkeypatch.setattr(Path, "stat", looks_regular)
    error = _load_in_a_thread(fifo)
    assert isinstance(error, ModelLoadError) and "is a named pipe (FIFO), not a model file" in str(error), error


def test_the_size_cap_holds_whatever_the_size_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A device says 0 bytes (`/dev/zero` was read to 21 GB): at most the cap and one byte are read."""
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(40 * 2**20)  # 40 MB of zeros, sparse
    real_stat, real_fstat, inode = Path.stat, os.fstat, big.stat().st_ino

    def says_empty(real: os.stat_result) -> os.stat_result:
        return _stat_saying(0, None, real) if real.st_ino == inode else real

    monkeypatch.setattr(Path, "stat", lambda self, **kwargs: says_empty(real_stat(self, **kwargs)))
    monkeypatch.setattr(os, "fstat", lambda fd: says_empty(real_fstat(fd)))
    with pytest.raises(ModelLoadError) as info:
        load_model(big)
    assert str(info.value) == f"{big}: the file is more than 32 MB; a model file is at most 32 MB " \
        "(is this a data file?)"


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_a_device_is_refused_even_through_a_symlink(tmp_path: Path) -> None:
    """/dev/null, which ends at once, was "the file is empty"; /dev/zero, which never ends, is in the CLI's
    tests (a process of its own, its memory capped, in case it is read again)."""
    link = tmp_path / "model.json"
    link.symlink_to("/dev/null")
    for path in (Path("/dev/null"), link):
        with pytest.raises(ModelLoadError) as info:
            load_model(path)
        assert str(info.value).startswith(f"{path}: is a character device, not a model file"), info.value


def test_an_unreadable_path_is_a_load_error(tmp_path: Path) -> None:
    """A path through a file (ENOTDIR) was an OSError traceback, not the one line other unreadable files give."""
    (tmp_path / "file").write_text("{}")
    with pytest.raises(ModelLoadError, match="cannot read"):
        load_model(tmp_path / "file" / "model.json")


def test_save_is_atomic_and_keeps_the_old_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = load_model(SAMPLE_MODEL)
    target = tmp_path / "m.json"
    save_model(model, target)
    before = target.read_text()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_model(model.model_copy(update={"name": "changed"}), target)
    assert target.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]  # no temporary file left behind


def test_loading_never_executes_code(tmp_path: Path) -> None:
    text = (SAMPLE_MODEL.read_text()
            .replace('"name": "orders"', '"name": "__import__(\'os\').system(\'touch PWNED\')"', 1))
    path = tmp_path / "m.json"
    path.write_text(text)
    os.chdir(tmp_path)
    model = load_model(path)
    assert "__import__" in model.name
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(("text", "family", "length", "precision", "scale"), [
    ("CHAR(2)", TypeFamily.CHARACTER, 2, None, None),
    ("varchar2(80)", TypeFamily.CHARACTER, 80, None, None),
    ("DECIMAL(10,2)", TypeFamily.EXACT_NUMERIC, None, 10, 2),
    ("NUMBER(5)", TypeFamily.EXACT_NUMERIC, None, 5, 0),
    ("double", TypeFamily.APPROX_NUMERIC, None, None, None),
    ("LONG RAW", TypeFamily.LARGE_OBJECT, None, None, None),
    ("VARBINARY(16)", TypeFamily.BINARY, 16, None, None),
    ("UDT:point", TypeFamily.UDT, None, None, None),
    ("SET(ROW(a INTEGER, b UDT:pt))", TypeFamily.COMPLEX, None, None, None),
])
def test_type_strings_parse(text: str, family: TypeFamily, length: int | None, precision: int | None,
                            scale: int | None) -> None:
    t = parse_type(text)
    assert (t.family, t.length, t.precision, t.scale) == (family, length, precision, scale)


@pytest.mark.parametrize(("text", "bytes_"), [
    ("CHAR(7)", 7), ("SMALLINT", 2), ("INT", 4), ("SERIAL8", 8), ("DECIMAL(9,2)", 5), ("REAL", 4),
    ("DOUBLE", 8), ("DATE", 4), ("TIMESTAMP", 10), ("BIT", 1), ("BOOLEAN", 1), ("BINARY(12)", 12),
])
def test_key_byte_lengths(text: str, bytes_: int) -> None:
    assert parse_type(text).byte_length == bytes_


@pytest.mark.parametrize(("text", "dbms", "bytes_"), [
    ("DECIMAL", "db2", 3), ("NUMERIC", "mssql", 10), ("NUMBER", "oracle", 20), ("DECIMAL", "informix", 9),
    ("DECIMAL", "mysql", 6), ("DECIMAL", "ase", 10), ("DECIMAL", "postgresql", 20), ("DECIMAL", None, 20),
    ("DECIMAL(9,2)", "db2", 5), ("INTEGER", "db2", 4), ("CHAR(7)", "oracle", 7),
])
def test_key_bytes_of_a_decimal_without_precision_follow_the_dbms(text: str, dbms: str | None, bytes_: int) -> None:
    assert parse_type(text).key_bytes(dbms) == bytes_


def test_complex_type_holding_a_udt() -> None:
    assert parse_type("LIST(ROW(x INTEGER, p UDT:point))").holds_udt
    assert not parse_type("LIST(INTEGER)").holds_udt


@pytest.mark.parametrize("text", ["FOO", "VARCHAR", "INTEGER(3)", "DECIMAL(2,5)", "ROW()", "UDT:"])
def test_unknown_or_malformed_types(text: str) -> None:
    with pytest.raises(ValueError):
        parse_type(text)


@pytest.mark.parametrize(("text", "parsed"), [
    ("ROW(date DATE, text VARCHAR(10))", "ROW(DATE, VARCHAR(10))"),
    ("ROW(integer INTEGER, char CHAR(3), long LONG)", "ROW(INTEGER, CHAR(3), LONG)"),
    ("ROW(row ROW(set SET(INTEGER)), udt UDT:point)", "ROW(ROW(SET(INTEGER)), UDT:point)"),
    ("ROW(x INTEGER, p UDT:point)", "ROW(INTEGER, UDT:point)"),
    ("ROW(LONG RAW, long LONG RAW)", "ROW(LONG RAW, LONG RAW)"),
    ("ROW(DATE, date)", "ROW(DATE, DATE)"),  # unnamed fields
    ("SET(ROW(a INTEGER, b UDT:pt))", "SET(ROW(INTEGER, UDT:pt))"),
    # Informix's collections require NOT NULL elements: `SET(INTEGER NOT NULL)` failed as type 'NOT NULL'
    ("SET(INTEGER NOT NULL)", "SET(INTEGER)"),
    ("LIST(VARCHAR(10)  not  null)", "LIST(VARCHAR(10))"),
    ("MULTISET(ROW(a INTEGER, b CHAR(2)) NOT NULL)", "MULTISET(ROW(INTEGER, CHAR(2)))"),
    ("ROW(a INTEGER NOT NULL, b DATE)", "ROW(INTEGER, DATE)"),
])
def test_row_field_names_may_be_any_identifier(text: str, parsed: str) -> None:
    """A field name that is also a type name (date, text) once made the element an unknown type."""
    assert str(parse_type(text)) == parsed


@pytest.mark.parametrize(("text", "says"), [
    ("ROW(x FOO)", "unknown type 'FOO'"),
    ("ROW(text VARCHAR)", "VARCHAR needs a length"),
    ("ROW(FOO)", "unknown type 'FOO'"),
    ("ROW(a b c)", "unknown type 'b c'"),
    ("SET (SET (BAD))", "unknown type 'BAD'"),
    ("ROW (a INTEGER, b FOO)", "unknown type 'FOO'"),
])
def test_a_row_field_of_an_unknown_type_names_the_type(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_type(text)


def test_a_model_with_row_fields_named_like_types_loads(examples: Path) -> None:
    text = _edited(examples, '"CHAR(2)"', '"ROW(date DATE, text VARCHAR(10))"')
    model = parse_model(text, "orders.json")
    assert str(model.tables[0].columns[0].sql_type) == "ROW(DATE, VARCHAR(10))"


# --- files fit for version control ---------------------------------------------------


def test_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "shared.json"
    save_model(load_model(SAMPLE_MODEL), out)
    for mode in (0o644, 0o664, 0o600):
        os.chmod(out, mode)
        save_model(load_model(SAMPLE_MODEL), out)
        assert out.stat().st_mode & 0o777 == mode


def test_a_new_file_gets_the_umask_permissions_not_the_temporary_files_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        save_model(load_model(SAMPLE_MODEL), tmp_path / "new.json")
        os.umask(0o002)
        save_model(load_model(SAMPLE_MODEL), tmp_path / "group.json")
    finally:
        os.umask(old)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "group.json").stat().st_mode & 0o777 == 0o664


def test_saving_through_a_symlink_replaces_the_file_it_points_to(tmp_path: Path) -> None:
    real = tmp_path / "repo" / "orders.json"
    real.parent.mkdir()
    save_model(load_model(SAMPLE_MODEL), real)
    link = tmp_path / "orders.json"
    link.symlink_to(real)
    model = load_model(link)
    model.name = "renamed"
    save_model(model, link)
    assert link.is_symlink()
    assert load_model(real).name == "renamed"


def test_numbers_are_saved_as_written(tmp_path: Path) -> None:
    text = SAMPLE_MODEL.read_text(encoding="utf-8")
    data = json.loads(text)
    data["servers"][0]["priority"] = 30
    data["servers"][1]["priority"] = 2.5
    data["layout"] = {"hq.CUSTOMER": [120, 40.5]}
    groups = [g for c in data["conflicts"] for g in c["column_groups"]]
    chain = next(s for g in groups for s in g["resolution"] if s["method"] == "priority_group")
    chain["priorities"] = {k: i + 1 for i, k in enumerate(chain["priorities"])}
    src = tmp_path / "in.json"
    src.write_text(json.dumps(data), encoding="utf-8")
    save_model(load_model(src), tmp_path / "out.json")
    saved = (tmp_path / "out.json").read_text(encoding="utf-8")
    again = json.loads(saved)
    assert '"priority": 30\n' in saved or '"priority": 30,' in saved
    assert again["servers"][0]["priority"] == 30 and isinstance(again["servers"][0]["priority"], int)
    assert again["servers"][1]["priority"] == 2.5
    assert again["layout"]["hq.CUSTOMER"] == [120, 40.5] and isinstance(again["layout"]["hq.CUSTOMER"][0], int)
    saved_chain = next(s for c in again["conflicts"] for g in c["column_groups"] for s in g["resolution"]
                       if s["method"] == "priority_group")
    assert all(isinstance(v, int) for v in saved_chain["priorities"].values())


def test_complex_types_nest_at_most_16_deep() -> None:
    assert parse_type("ROW(" * 16 + "INTEGER" + ")" * 16).family is TypeFamily.COMPLEX
    with pytest.raises(ValueError, match="nested more than 16 deep"):
        parse_type("LIST(" * 17 + "INTEGER" + ")" * 17)
    with pytest.raises(ValueError, match="nested more than 16 deep"):
        parse_type("ROW(" * 100_000 + "INTEGER" + ")" * 99_999)  # unbalanced, and deep: refused up front
    with pytest.raises(ValueError, match="unknown type"):
        parse_type("ROW(" * 100_000 + "INTEGER")  # no closing parenthesis: no recursion at all


def test_methods_nest_at_most_32_deep_in_an_edit_too() -> None:
    """The designer builds mappings with `evolve`, which validates: a 33rd level is refused there too."""
    from pydantic import ValidationError

    from engine.edits import evolve

    model = parse_model(json.dumps({"format": "mapwright/1", "servers": [{"id": "s", "dbms": "oracle"}], "tables": [
        {"server": "s", "name": "T", "columns": [{"name": "A", "type": "INTEGER"}]}],
        "mappings": [{"id": "m", "source": "s.T", "target": "s.T", "columns": {"A": "A"}}]}))
    method: object = "A"
    for _ in range(31):
        method = {"method": "trim", "input": method}
    mapping = evolve(model.mappings[0], columns={"A": method})
    with pytest.raises(ValidationError, match="methods are nested more than 32 deep"):
        evolve(mapping, columns={"A": {"method": "upper", "input": method}})


@pytest.mark.parametrize(("text", "says", "line"), [
    ('{"format": "mapwright/1",\n "name": NaN}', "NaN is not a number JSON allows", 2),
    ('{"format": "mapwright/1",\n "layout": {"s.T": [1e999, 0]}}', "1e999 is out of range", 2),
    ('{"format": "mapwright/1", "name":\n "\\udfff"}', "lone UTF-16 surrogate \\udfff", 2),
    ('{"format": "mapwright/1",\n "name": "' + "\ud800" + '"}', "lone UTF-16 surrogate \\ud800", 2),
])
def test_values_no_file_can_hold_are_load_errors(text: str, says: str, line: int) -> None:
    with pytest.raises(ModelLoadError) as info:
        parse_model(text, "m.json")
    assert says in str(info.value) and info.value.line == line


def test_a_model_in_memory_refuses_non_finite_numbers() -> None:
    from pydantic import ValidationError

    from engine.model.schema import Server

    with pytest.raises(ValidationError, match="finite"):
        Server(id="s", dbms="oracle", priority=float("inf"))


def test_a_key_given_twice_in_one_object_is_refused_where_it_is() -> None:
    """JSON's readers keep one of two values of a key, silently: a model naming a mapping's source twice, or
    a column map twice, is ambiguous, and refused naming the line and field (a hostile probe's find)."""
    text = dump_model(load_model(SAMPLE_MODEL))
    doc = json.loads(text)
    mapping = doc["mappings"][0]
    twice = text.replace(f'"source": "{mapping["source"]}"',
                         f'"source": "{mapping["source"]}", "source": "elsewhere.T"', 1)
    with pytest.raises(ModelLoadError) as info:
        parse_model(twice, "m.json")
    error = info.value
    assert "the key 'source' is given twice" in str(error) and error.field == "mappings[0].source"
    assert error.line == twice[:twice.index('"source": "elsewhere.T"')].count("\n") + 1


def test_a_schedule_naming_a_key_twice_is_refused(tmp_path: Path) -> None:
    from engine.run.input.schedule import ScheduleError, load_schedule

    path = tmp_path / "schedule.json"
    path.write_text('{"links": [{"from": "a", "to": "b", "delay_s": 1, "delay_s": 5}]}')
    with pytest.raises(ScheduleError, match=r"schedule.json:1 links\[0\]\.delay_s: the key 'delay_s' is given twice"):
        load_schedule(path)
