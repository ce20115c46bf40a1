"""`--to goldengate`: Replicat parameter files, checked against reviewed golden files, per method of the
contract (expressed exactly as written here, or listed), and against a hostile model."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from builders import col, mapping, model, server, table

from engine.deploy.goldengate import COLUMN_METHODS, RESOLUTIONS, GoldenGateExport, goldengate_files, write_goldengate
from engine.model import load_model
from engine.model.methods import METHOD_NAMES
from engine.model.schema import Model, ResolutionMethodName
from resources import SAMPLE_MODEL

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "goldengate"
ROOT = Path(__file__).resolve().parents[2]


def sample() -> Model:
    return load_model(SAMPLE_MODEL)


def active_lines(text: str) -> list[str]:
    """The lines GoldenGate reads: not comments, not blank."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("--")]


def map_statement(export: GoldenGateExport, mapping_id: str) -> str:
    """The text of one mapping's MAP statement (commented out or not), from its header comment on."""
    for name, text in export.files.items():
        if name.endswith(".prm") and f"-- mapping {mapping_id}:" in text:
            block = text.split(f"-- mapping {mapping_id}:", 1)[1]
            return block.split("\n\n", 1)[0]
    raise AssertionError(f"no MAP for {mapping_id}")


def listed(export: GoldenGateExport, mapping_id: str) -> list[str]:
    return [item.text() for item in export.not_expressed if item.mapping == mapping_id]


# --- the bundled sample, against reviewed golden files --------------------------------------------


def test_sample_gives_the_golden_files_exactly() -> None:
    export = goldengate_files(sample())
    golden = {p.name: p.read_text() for p in GOLDEN.iterdir()}
    assert sorted(export.files) == sorted(golden)
    for name, text in export.files.items():
        assert text == golden[name], f"{name} differs from tests/fixtures/goldengate/{name}"


def test_sample_files_have_one_replicat_each_and_no_credential() -> None:
    export = goldengate_files(sample())
    for name, text in export.files.items():
        if not name.endswith(".prm"):
            continue
        lines = active_lines(text)
        assert lines[0] == f"REPLICAT {name.removesuffix('.prm').upper()}"
        assert sum(1 for line in lines if line.startswith("REPLICAT ")) == 1
        assert [line for line in lines if line.startswith("USERIDALIAS ")] != []
        assert not re.search(r"\b(USERID|PASSWORD)\b", "\n".join(lines))
        # every active MAP statement ends with exactly one semicolon
        assert "\n".join(lines).count(";") == sum(1 for line in lines if line.startswith("MAP "))


def test_every_mapping_of_the_sample_is_in_a_file_or_listed() -> None:
    export = goldengate_files(sample())
    for m in sample().mappings:
        statement = map_statement(export, m.id)
        if "not active" in statement:
            assert any("written commented out" in t for t in listed(export, m.id))


# --- column methods: each expressed as written here, or listed ------------------------------------

SRC = [col("ID", nullable=False), col("A", "VARCHAR(20)"), col("N", "INTEGER"), col("D", "DATE"),
       col("CK", "VARCHAR(20)")]
TGT = [col("ID", nullable=False), col("X", "VARCHAR(40)")]
METHODS: dict[str, tuple[Any, str | None]] = {
    "column": ("A", '"X" = "A"'),
    "concat": ({"method": "concat", "inputs": ["A", "N"], "sep": "-"}, '"X" = @STRCAT ("A", \'-\', @STRNUM ("N"))'),
    "split": ({"method": "split", "input": "CK", "sep": "-", "index": 1}, None),
    "substring": ({"method": "substring", "input": "A", "start": 2, "length": 3}, '"X" = @STREXT ("A", 2, 4)'),
    "constant": ({"method": "constant", "value": "HQ"}, "\"X\" = 'HQ'"),
    "system": ({"method": "system", "name": "commit_ts"}, "\"X\" = @GETENV ('GGHEADER', 'COMMITTIMESTAMP')"),
    "cast": ({"method": "cast", "input": "A", "type": "INTEGER"}, '"X" = @NUMSTR ("A")'),
    "upper": ({"method": "upper", "input": "A"}, '"X" = @STRUP ("A")'),
    "lower": ({"method": "lower", "input": "A"}, None),
    "trim": ({"method": "trim", "input": "A"}, '"X" = @STRTRIM ("A")'),
    "expression": ({"method": "expression", "sql": "N * 2"}, None),
}


def one_mapping(method: Any, **extra: Any) -> Model:
    return model([server("s", "oracle"), server("t", "oracle")],
                 [table("s", "T", SRC, pk=["ID"]), table("t", "T", TGT, pk=["ID"])],
                 [mapping("m", "s.T", "t.T", {"ID": "ID", "X": method}, **extra)])


def test_every_method_of_the_contract_is_covered_here() -> None:
    assert set(METHODS) == set(METHOD_NAMES) == set(COLUMN_METHODS)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_column_method_is_expressed_or_listed(name: str) -> None:
    method, expected = METHODS[name]
    export = goldengate_files(one_mapping(method))
    statement = map_statement(export, "m")
    column_items = [t for t in listed(export, "m") if t.startswith("column X:")]
    if expected is None:
        assert COLUMN_METHODS[name] is None
        assert '"X" =' not in statement
        assert column_items and column_items[0].startswith(f"column X: {name}:")
    else:
        assert f"    {expected}," in statement or f"    {expected})," in statement
        assert column_items == []
        assert "not active" not in statement


@pytest.mark.parametrize(("name", "expected"), [
    ("site", "\"X\" = 's'"),
    ("txn", "\"X\" = @GETENV ('TRANSACTION', 'XID')"),
    ("op", "\"X\" = @CASE (@GETENV ('GGHEADER', 'OPTYPE'), 'INSERT', 'I', 'DELETE', 'D', 'U')"),
])
def test_system_values(name: str, expected: str) -> None:
    statement = map_statement(goldengate_files(one_mapping({"method": "system", "name": name})), "m")
    assert expected in statement


def test_concat_of_a_date_and_cast_of_a_date_are_listed() -> None:
    for method, construct in (({"method": "concat", "inputs": ["A", "D"]}, "concat"),
                              ({"method": "cast", "input": "D", "type": "INTEGER"}, "cast")):
        export = goldengate_files(one_mapping(method))
        assert '"X" =' not in map_statement(export, "m")
        assert listed(export, "m")[0].startswith(f"column X: {construct}:")


def test_substring_to_the_end_and_nested_methods() -> None:
    nested = {"method": "upper", "input": {"method": "substring", "input": {"method": "trim", "input": "A"},
                                           "start": 3}}
    statement = map_statement(goldengate_files(one_mapping(nested)), "m")
    assert '"X" = @STRUP (@STREXT (@STRTRIM ("A"), 3, @STRLEN (@STRTRIM ("A"))))' in statement


def test_a_key_column_not_expressed_comments_the_map_out() -> None:
    export = goldengate_files(model(
        [server("s"), server("t")],
        [table("s", "T", SRC, pk=["ID"]), table("t", "T", TGT, pk=["X"])],
        [mapping("m", "s.T", "t.T", {"ID": "ID", "X": {"method": "lower", "input": "A"}})]))
    text = next(t for n, t in export.files.items() if n.endswith(".prm"))
    assert not [line for line in active_lines(text) if line.startswith("MAP ")]
    assert "-- MAP \"T\", TARGET \"T\"," in text
    assert any("written commented out: its distribution key (X)" in t for t in listed(export, "m"))


def test_journal_mapping_inserts_every_record_without_key_or_resolution() -> None:
    statement = map_statement(goldengate_files(one_mapping("A", journal=True)), "m")
    assert "INSERTALLRECORDS" in statement
    assert "KEYCOLS" not in statement and "RESOLVECONFLICT" not in statement


def test_default_distribution_key_becomes_keycols() -> None:
    statement = map_statement(goldengate_files(one_mapping("A")), "m")
    assert '  KEYCOLS ("ID"),' in statement


# --- where --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("where", "expected"), [
    ("A = 'x'", "WHERE (\"A\" <> @NULL AND \"A\" = 'x')"),
    ("ID >= -3 AND (A IS NULL OR N < 10)",
     'WHERE ("ID" >= -3 AND ("A" = @NULL OR ("N" <> @NULL AND "N" < 10)))'),
    ("a IS NOT NULL", 'WHERE ("A" <> @NULL)'),
    ("ID <> N", 'WHERE ("N" <> @NULL AND "ID" <> "N")'),
    ("ID BETWEEN 1 AND 5", 'WHERE ("ID" >= 1 AND "ID" <= 5)'),
    ("ID IN (1, 2, 3)", 'WHERE (("ID" = 1 OR "ID" = 2) OR "ID" = 3)'),
    ("A IN ('x') AND N = 1", "WHERE ((\"A\" <> @NULL AND \"A\" = 'x') AND (\"N\" <> @NULL AND \"N\" = 1))"),
])
def test_where_becomes_a_where_option(where: str, expected: str) -> None:
    export = goldengate_files(one_mapping("A", where=where))
    assert f"  {expected}," in map_statement(export, "m")
    assert any(t.startswith("where: where (net effect):") for t in listed(export, "m"))


@pytest.mark.parametrize("where", ["NOT (A = 'x')", "N + 1 > 3", "A LIKE 'x%'", "upper(A) = 'X'",
                                   "A NOT IN ('x', 'y')", "A = 'it''s'", "ID IN (SELECT 1)"])
def test_where_without_equivalent_is_listed_and_the_map_is_not_active(where: str) -> None:
    export = goldengate_files(one_mapping("A", where=where))
    statement = map_statement(export, "m")
    assert "WHERE" not in statement and "-- MAP" in statement
    assert any(t.startswith("where: where:") for t in listed(export, "m"))


# --- conflict resolution: each method expressed as written here, or listed -----------------------

CR_COLS = [col("ID", nullable=False), col("V", "INTEGER"), col("TS", "TIMESTAMP"), col("S", "VARCHAR(10)"),
           col("E", "VARCHAR(10)")]
RESOLUTION_CASES: dict[str, tuple[dict[str, Any], str | None]] = {
    "latest_timestamp": ({"column": "TS"}, 'USEMAX ("TS")'),
    "earliest_timestamp": ({"column": "TS"}, 'USEMIN ("TS")'),
    "maximum": ({"column": "V"}, 'USEMAX ("V")'),
    "minimum": ({"column": "V"}, 'USEMIN ("V")'),
    "additive": ({}, "USEDELTA"),
    "overwrite": ({}, "OVERWRITE"),
    "discard": ({}, "IGNORE"),
    "average": ({}, None),
    "priority_group": ({"column": "S", "priorities": {"a": 1, "b": 2}}, None),
    "site_priority": ({}, None),
}


def cr_model(conflicts: dict[str, Any], columns: dict[str, Any] | None = None) -> Model:
    cols = columns or {c["name"]: c["name"] for c in CR_COLS}
    return model([server("s", "oracle", priority=2), server("t", "oracle", priority=1)],
                 [table("s", "T", CR_COLS, pk=["ID"]), table("t", "T", CR_COLS, pk=["ID"], unique={"UX": ["E"]})],
                 [mapping("m", "s.T", "t.T", cols)], [{"table": "t.T", **conflicts}])


def test_every_resolution_method_is_covered_here() -> None:
    assert set(RESOLUTION_CASES) == set(ResolutionMethodName.__args__) == set(RESOLUTIONS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(RESOLUTION_CASES))
def test_resolution_method_is_expressed_or_listed(name: str) -> None:
    params, expected = RESOLUTION_CASES[name]
    columns = ["V"] if name == "additive" else ["V", "TS", "S"]  # USEDELTA adds to numbers only
    group = {"name": "g", "columns": columns, "resolution": [{"method": name, **params}]}
    export = goldengate_files(cr_model({"column_groups": [group]}))
    statement = map_statement(export, "m")
    items = listed(export, "m")
    if expected is None:
        assert RESOLUTIONS[name] is None
        assert "UPDATEROWEXISTS" not in statement
        assert items == [f"conflicts of t.T: column group g: {name}: " + items[0].split(f"{name}: ", 1)[1]]
    else:
        cols = ", ".join(f'"{c}"' for c in columns)
        assert f"RESOLVECONFLICT (UPDATEROWEXISTS, (g, {expected}, COLS ({cols})))" in statement
        assert items == []


@pytest.mark.parametrize(("resolution", "is_listed"), [("append_site_name", True), ("append_sequence", True),
                                                       ("discard", True), ("error", False)])
def test_unique_index_resolution_is_listed_unless_error(resolution: str, is_listed: bool) -> None:
    export = goldengate_files(cr_model({"unique": [{"index": "UX", "resolution": resolution}]}))
    items = [t for t in listed(export, "m") if t.startswith(f"conflicts of t.T: unique UX: {resolution}:")]
    assert bool(items) == is_listed


def test_backups_are_listed_and_groups_use_only_columns_the_mapping_writes() -> None:
    groups = [{"name": "g", "columns": ["V", "TS"], "resolution": [{"method": "latest_timestamp", "column": "TS"},
                                                                  {"method": "site_priority"}]},
              {"name": "unwritten", "columns": ["E"], "resolution": [{"method": "overwrite"}]}]
    export = goldengate_files(cr_model({"column_groups": groups}, {"ID": "ID", "V": "V", "TS": "TS"}))
    statement = map_statement(export, "m")
    assert 'RESOLVECONFLICT (UPDATEROWEXISTS, (g, USEMAX ("TS"), COLS ("V", "TS")))' in statement
    assert "unwritten" not in statement
    assert [t.split(":")[1].strip() for t in listed(export, "m")] == ["column group g"]
    assert "site_priority (backup)" in listed(export, "m")[0]


def test_policies_compare_old_and_scope() -> None:
    export = goldengate_files(cr_model({
        "column_groups": [{"name": "g", "columns": ["V"], "resolution": [{"method": "additive"}]},
                          {"name": "h", "columns": ["TS"], "resolution": [{"method": "latest_timestamp",
                                                                           "column": "TS"}]}],
        "on_insert_exists": "as_update", "on_update_missing": "insert", "on_delete_missing": "discard",
        "compare_old": {"S": False, "E": False, "V": True}, "scope": "transaction"}))
    statement = map_statement(export, "m")
    for expected in [
        '  COMPARECOLS (ON UPDATE ALLEXCLUDING ("S", "E"), ON DELETE ALLEXCLUDING ("S", "E")),',
        '  RESOLVECONFLICT (UPDATEROWEXISTS,\n    (g, USEDELTA, COLS ("V")),\n    (h, USEMAX ("TS"), COLS ("TS"))),',
        '  RESOLVECONFLICT (INSERTROWEXISTS, (h, USEMAX ("TS"), COLS ("TS"))),',
        "  RESOLVECONFLICT (UPDATEROWMISSING, (DEFAULT, OVERWRITE)),",
        "  RESOLVECONFLICT (DELETEROWMISSING, (DEFAULT, DISCARD)),",
        "  REPERROR (DEFAULT, TRANSDISCARD);",
    ]:
        assert expected in statement
    assert any("as_update" in t and "additive" in t for t in listed(export, "m"))


@pytest.mark.parametrize(("policy", "expected"), [
    ({"on_insert_exists": "discard"}, "RESOLVECONFLICT (INSERTROWEXISTS, (DEFAULT, DISCARD))"),
    ({"on_insert_exists": "overwrite"}, "RESOLVECONFLICT (INSERTROWEXISTS, (DEFAULT, OVERWRITE))"),
    ({"on_update_missing": "discard"}, "RESOLVECONFLICT (UPDATEROWMISSING, (DEFAULT, DISCARD))"),
])
def test_on_policies(policy: dict[str, str], expected: str) -> None:
    assert expected in map_statement(goldengate_files(cr_model(policy)), "m")


def test_error_policies_write_no_resolution_and_unresolved_conflicts_go_to_the_discard_file() -> None:
    export = goldengate_files(cr_model({}))
    statement = map_statement(export, "m")
    assert "RESOLVECONFLICT" not in statement and "COMPARECOLS (ON UPDATE ALL, ON DELETE ALL)" in statement
    text = next(t for n, t in export.files.items() if n.endswith(".prm"))
    assert "REPERROR (DEFAULT, DISCARD)" in active_lines(text)


# --- a hostile model --------------------------------------------------------------------------------

def hostile() -> Model:
    src = [col("ID", nullable=False), col("NAME", "VARCHAR(40)"), col('Q"; MAP x, TARGET EVIL; --', "VARCHAR(5)"),
           col("TS", "TIMESTAMP")]
    tgt = [col("ID", nullable=False), col("MY NAME", "VARCHAR(40)"), col("C1", "VARCHAR(40)"),
           col("C2", "VARCHAR(40)"), col('B"AD', "VARCHAR(5)"), col("TS", "TIMESTAMP")]
    return model(
        [server("s\nREPLICAT EVIL", "oracle"), server("t';EVIL", "oracle"), server("u", "oracle")],
        [table("s\nREPLICAT EVIL", "ORDER LINES", src, pk=["ID"]),
         table("t';EVIL", "T", tgt, pk=["ID"]), table("u", 'X"; EVIL', tgt, pk=["ID"])],
        [mapping("m\nREPLICAT EVIL", "s\nREPLICAT EVIL.ORDER LINES", "t';EVIL.T", {
            "ID": "ID", "MY NAME": "NAME",
            "C1": {"method": "constant", "value": "x'); MAP a, TARGET EVIL; --"},
            "C2": {"method": "concat", "inputs": ["NAME", "NAME"], "sep": "\n-- EVIL\nREPLICAT EVIL"},
            'B"AD': 'Q"; MAP x, TARGET EVIL; --', "TS": {"method": "system", "name": "site"}},
            where="NAME <> 'a\nREPLICAT EVIL'"),
         mapping("n", "s\nREPLICAT EVIL.ORDER LINES", 'u.X"; EVIL', {"ID": "ID"}),
         mapping("o", "s\nREPLICAT EVIL.ORDER LINES", "t';EVIL.T", {"ID": "ID", "MY NAME": "NAME"},
                 where="NAME = 'fine' OR ID > 3")],
        [{"table": "t';EVIL.T", "column_groups": [
            {"name": "g; EVIL", "columns": ["MY NAME", 'B"AD'], "resolution": [{"method": "overwrite"}]}],
          "compare_old": {'B"AD': False}}])


def test_a_hostile_model_never_gives_a_broken_or_injected_file() -> None:
    export = goldengate_files(hostile())
    for name, text in export.files.items():
        assert re.fullmatch(r"[a-z0-9]+\.prm|REPORT\.txt", name)
        assert all(" " <= c <= "~" or c == "\n" for c in text), f"{name}: a character outside printable ASCII"
        if not name.endswith(".prm"):
            continue
        lines = active_lines(text)
        active = "\n".join(lines)
        for injected in ("REPLICAT EVIL", "TARGET EVIL", "MAP a,", "MAP x,", "'a", "X\""):
            assert injected not in active, f"{name} carries {injected!r} from the model outside comments"
        assert all(re.fullmatch(r"USERIDALIAS [A-Za-z0-9_]+", line) for line in lines if "ALIAS" in line)
        assert sum(1 for line in lines if line.startswith("REPLICAT ")) == 1
        for line in lines:  # quotes balanced on every line, and nothing after a statement's end
            assert line.count("'") % 2 == 0 and line.count('"') % 2 == 0, line
            assert ";" not in line[:-1], line
    names = "\n".join(export.files)
    assert "s\n" not in names


def test_a_hostile_model_lists_what_it_refuses() -> None:
    export = goldengate_files(hostile())
    items = listed(export, "m\nREPLICAT EVIL")
    assert any(t.startswith("column C1: constant:") for t in items)
    assert any(t.startswith("column C2: concat:") for t in items)
    assert any(t.startswith('column B"AD: column:') for t in items)
    assert any(t.startswith("column TS: system:") for t in items)  # the site is a server id with a line break
    assert any(t.startswith("where: where:") for t in items)
    assert any("compare_old" in t for t in items)
    assert listed(export, "n") and "not exported" in listed(export, "n")[0]
    o = map_statement(export, "o")
    assert 'MAP "ORDER LINES", TARGET "T",' in o and '"MY NAME" = "NAME"' in o
    assert "WHERE ((\"NAME\" <> @NULL AND \"NAME\" = 'fine') OR \"ID\" > 3)" in o


# --- the command line -------------------------------------------------------------------------------


def mapwright(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_cli_writes_the_folder_and_notes_what_is_not_expressed(tmp_path: Path) -> None:
    out = tmp_path / "gg"
    done = mapwright("export", str(SAMPLE_MODEL), "--to", "goldengate", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in GOLDEN.iterdir())
    assert (out / "rbrahq.prm").read_text() == (GOLDEN / "rbrahq.prm").read_text()
    assert "have no GoldenGate equivalent" in done.stderr and "REPORT.txt" in done.stderr


def test_cli_refuses_a_file_as_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "file.prm"
    out.write_text("keep")
    done = mapwright("export", str(SAMPLE_MODEL), "--to", "goldengate", "--out", str(out))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "is a file" in done.stderr and out.read_text() == "keep"


def test_numeric_constants_are_plain_decimals() -> None:
    for value, expected in ((1e-07, '"X" = 0.0000001'), (-42, '"X" = -42'), (2.5, '"X" = 2.5')):
        assert expected in map_statement(goldengate_files(one_mapping({"method": "constant", "value": value})), "m")


def test_a_server_goldengate_cannot_serve_is_listed() -> None:
    m = model([server("s", "sqlite"), server("t", "oracle")],
              [table("s", "T", SRC, pk=["ID"]), table("t", "T", TGT, pk=["ID"])],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "X": "A"})])
    assert any(t.startswith("mapping: source DBMS sqlite:") for t in listed(goldengate_files(m), "m"))


def test_a_new_export_removes_only_its_own_stale_replicats(tmp_path: Path) -> None:
    out = tmp_path / "gg"
    write_goldengate(sample(), out)
    mine = out / "rold.prm"
    mine.write_text((out / "rhqbra.prm").read_text())
    theirs = out / "custom.prm"
    theirs.write_text("REPLICAT CUSTOM\n")
    write_goldengate(one_mapping("A"), out)
    names = sorted(p.name for p in out.iterdir())
    assert names == ["REPORT.txt", "custom.prm", "rst.prm"]
    assert theirs.read_text() == "REPLICAT CUSTOM\n"


@pytest.mark.parametrize(("method", "why"), [
    ({"method": "maximum", "column": "S"}, "USEMAX compares only a number or a timestamp, not the column S"),
    ({"method": "minimum", "column": "E"}, "USEMIN compares only a number or a timestamp, not the column E"),
    ({"method": "additive"}, "USEDELTA adds only to numeric columns, not S, E"),
])
def test_resolutions_goldengate_cannot_apply_to_the_column_types_are_listed(method: dict[str, str], why: str) -> None:
    group = {"name": "g", "columns": ["V", "S", "E"], "resolution": [method]}
    export = goldengate_files(cr_model({"column_groups": [group]}))
    assert "UPDATEROWEXISTS" not in map_statement(export, "m")
    assert listed(export, "m") == [f"conflicts of t.T: column group g: {method['method']}: {why}"]


def test_string_functions_over_national_characters_are_listed() -> None:
    cols = [col("ID", nullable=False), col("NA", "NVARCHAR(20)")]
    m = model([server("s", "mssql"), server("t", "oracle")],
              [table("s", "T", cols, pk=["ID"]), table("t", "T", TGT, pk=["ID"])],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "X": {"method": "upper", "input": "NA"}})])
    export = goldengate_files(m)
    assert '"X" =' not in map_statement(export, "m")
    assert listed(export, "m")[0].startswith("column X: column: GoldenGate's string functions do not support NCHAR")


def test_replicat_names_are_unique_and_at_most_eight_characters() -> None:
    cols = [col("ID", nullable=False)]
    m = model([server("north-1"), server("north-2"), server("hq")],
              [table("north-1", "T", cols, pk=["ID"]), table("north-2", "T", cols, pk=["ID"]),
               table("hq", "T", cols, pk=["ID"])],
              [mapping("a", "north-1.T", "hq.T", {"ID": "ID"}), mapping("b", "north-2.T", "hq.T", {"ID": "ID"})])
    names = sorted(n for n in goldengate_files(m).files if n.endswith(".prm"))
    assert names == ["rnorhq.prm", "rnorhq2.prm"]


def test_each_target_server_gets_its_own_credential_alias() -> None:
    """USERIDALIAS is all a Replicat knows of its target's login: two targets must never share one."""
    cols = [col("ID", nullable=False)]
    targets = ["eu-west", "eu_west", "EU_WEST", "a" * 30 + "X", "a" * 30 + "Y"]
    m = model([server("src", "oracle"), *(server(t, "oracle") for t in targets)],
              [table(s, "T", cols, pk=["ID"]) for s in ["src", *targets]],
              [mapping(f"m{i}", "src.T", f"{t}.T", {"ID": "ID"}) for i, t in enumerate(targets)])
    files = goldengate_files(m).files
    aliases = [line.split()[1] for name, text in files.items() if name.endswith(".prm")
               for line in text.splitlines() if line.startswith("USERIDALIAS ")]
    assert len(aliases) == len(targets) and len({a.lower() for a in aliases}) == len(targets), aliases
    assert all(re.fullmatch(r"mw_[A-Za-z0-9_]{1,26}", a) for a in aliases), aliases
    report = files["REPORT.txt"]
    assert all(f"ALIAS {a}\n" in report for a in aliases)


# --- schemas -----------------------------------------------------------------------------------------


def test_map_and_target_are_schema_qualified_where_the_model_gives_the_schema() -> None:
    m = model([server("s", "oracle"), server("t", "oracle")],
              [table("s", "T", SRC, pk=["ID"], schema="SALES"), table("t", "T", TGT, pk=["ID"], schema="DW")],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "X": "A"})])
    export = goldengate_files(m)
    assert map_statement(export, "m").splitlines()[1] == 'MAP "SALES"."T", TARGET "DW"."T",'
    assert export.whole_model == [] and export.not_expressed == []
    assert "\nNot expressed: nothing; every construct of the model is in the parameter files.\n" in \
        export.files["REPORT.txt"]


def test_names_without_a_schema_are_said_under_not_expressed() -> None:
    m = model([server("s", "oracle"), server("t", "oracle"), server("u", "oracle")],
              [table("s", "T", SRC, pk=["ID"], schema="SALES"), table("t", "T", TGT, pk=["ID"]),
               table("u", "T", TGT, pk=["ID"]), table("u", "UNMAPPED", TGT, pk=["ID"])],
              [mapping("m", "s.T", "t.T", {"ID": "ID", "X": "A"}), mapping("n", "s.T", "u.T", {"ID": "ID", "X": "A"})])
    export = goldengate_files(m)
    assert map_statement(export, "m").splitlines()[1] == 'MAP "SALES"."T", TARGET "T",'
    line = ("MAP and TARGET names are not schema-qualified: the model gives no schema for 2 table(s); GoldenGate "
            "will use the default schema of the extract/replicat login")
    assert export.whole_model == [line] and export.not_expressed == []
    report = export.files["REPORT.txt"]
    assert report.endswith(f"\nNot expressed: 1 item(s) for the whole model.\n\nthe whole model:\n  - {line}\n")
