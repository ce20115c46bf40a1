"""`mapwright import`: options, passwords, types without a contract counterpart, and every error path."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pgdata import SECRET, reader_url

from engine import cli
from resources import ROOT as RESOURCES

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
SHOP = f"sqlite:///{RESOURCES / 'samples' / 'shop.sqlite'}"


def mw(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([MAPWRIGHT, *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def one_line_error(out: subprocess.CompletedProcess[str], *words: str) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mapwright: "), out.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "Traceback" not in out.stderr
    return lines[0]


def columns(model: Path, table: str) -> dict[str, dict[str, Any]]:
    doc = json.loads(model.read_text())
    found = next(t for t in doc["tables"] if t["name"] == table)
    return {c["name"]: c for c in found["columns"]}


# --- types ---------------------------------------------------------------------------------------


def test_types_without_a_counterpart_come_in_as_the_nearest_type_each_named(db: str, tmp_path: Path) -> None:
    model = tmp_path / "odd.json"
    out = mw("import", db, "--server", "pg", "--tables", "odd", "--out", str(model))
    assert out.returncode == 0, out.stderr
    got = {name: c["type"] for name, c in columns(model, "odd").items()}
    assert got == {"id": "INTEGER", "key": "UUID", "doc": "TEXT", "at": "TIMESTAMPTZ", "tod": "TIMESTAMP",
                   "span": "VARCHAR(40)", "feeling": "TEXT", "price": "DECIMAL(19,4)", "free": "TEXT",
                   "addr": "TEXT", "flags": "BIT", "tags": "ARRAY(INTEGER)"}
    assert columns(model, "odd")["feeling"]["enum"] == {"name": "mood", "values": ["ok", "grumpy", "delighted"]}
    notes = [line for line in out.stderr.splitlines() if line.startswith("mapwright: note: ")]
    noted = {line.split(":")[2].strip() for line in notes}
    assert noted == {f"pg.odd.{c}" for c in ("doc", "tod", "span", "price", "free", "addr", "flags")}
    assert "8 note(s)" not in out.stdout and "7 note(s)" in out.stdout
    assert mw("validate", str(model)).returncode == 0


def test_identity_columns_and_indexes_the_model_cannot_hold_are_noted(db: str, tmp_path: Path) -> None:
    model = tmp_path / "keyed.json"
    out = mw("import", db, "--server", "pg", "--tables", "keyed", "--out", str(model))
    assert out.returncode == 0, out.stderr
    table = json.loads(model.read_text())["tables"][0]
    assert table["columns"][0] == {"name": "id", "type": "SERIAL", "nullable": False, "identity": {"always": True}}
    assert table["unique_indexes"] == [{"name": "ux_keyed_partial", "columns": ["b"]}]
    assert sorted(out.stderr.strip().splitlines()) == [
        "mapwright: note: pg.keyed: unique index ux_keyed_lower is on an expression; not imported",
        "mapwright: note: pg.keyed: unique index ux_keyed_partial is partial (WHERE ...); imported on all rows"]


# --- options ---------------------------------------------------------------------------------------


def test_tables_and_schema_pick_what_is_read(db: str, tmp_path: Path) -> None:
    model = tmp_path / "sales.json"
    out = mw("import", db, "--server", "pg", "--schema", "sales", "--tables", "orders", "--out", str(model))
    assert out.returncode == 0, out.stderr  # `orders` matches "Orders" (the only table of that name, any case)
    doc = json.loads(model.read_text())
    assert [t["name"] for t in doc["tables"]] == ["Orders"]
    assert doc["tables"][0]["columns"][1] == {"name": "total", "type": "NUMERIC(8,2)", "default": "0"}
    everything = tmp_path / "all.json"
    assert mw("import", db, "--server", "pg", "--schema", "sales", "--out", str(everything)).returncode == 0
    assert sorted(t["name"] for t in json.loads(everything.read_text())["tables"]) == ["Orders", "items"]


def test_dbms_comes_from_the_dialect_unless_given(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert mw("import", SHOP, "--server", "shop", "--out", str(first)).returncode == 0
    assert json.loads(first.read_text())["servers"] == [{"id": "shop", "dbms": "sqlite"}]
    assert mw("import", SHOP, "--server", "shop", "--dbms", "db2", "--out", str(second)).returncode == 0
    assert json.loads(second.read_text())["servers"] == [{"id": "shop", "dbms": "db2"}]


def test_into_adds_a_server_and_its_tables_then_refuses_them_twice(db: str, tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    assert mw("import", SHOP, "--server", "shop", "--tables", "customer", "--out", str(model)).returncode == 0
    doc = json.loads(model.read_text())
    doc["layout"] = {"shop.customer": [100, 50]}
    model.write_text(json.dumps(doc))
    out = mw("import", db, "--server", "pg", "--tables", "plain", "--into", str(model))
    assert out.returncode == 0, out.stderr
    more = mw("import", SHOP, "--server", "shop", "--tables", "product,order_line", "--into", str(model))
    assert more.returncode == 0, more.stderr
    doc = json.loads(model.read_text())
    assert [s["id"] for s in doc["servers"]] == ["shop", "pg"]
    assert [f"{t['server']}.{t['name']}" for t in doc["tables"]] == [
        "shop.customer", "pg.plain", "shop.product", "shop.order_line"]
    assert set(doc["layout"]) == {"shop.customer", "pg.plain", "shop.product", "shop.order_line"}
    assert doc["layout"]["shop.customer"] == [100, 50]
    assert all(x >= 100 + 270 for k, (x, _) in doc["layout"].items() if k != "shop.customer")  # right of it
    before = model.read_bytes()
    again = mw("import", SHOP, "--server", "shop", "--tables", "customer,product", "--into", str(model))
    one_line_error(again, "already has shop.customer, shop.product")
    other = mw("import", SHOP, "--server", "pg", "--tables", "product", "--into", str(model))
    one_line_error(other, "has server pg as postgresql", "the database is sqlite")
    assert model.read_bytes() == before  # a refused import leaves the model alone


# --- passwords -----------------------------------------------------------------------------------


def test_password_from_an_environment_variable_is_never_written(db: str, pg_server: Any, tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    out = mw("import", reader_url(pg_server, query="?password_env=MW_TEST_PW"), "--server", "pg", "--tables",
             "plain", "--out", str(model), env={"MW_TEST_PW": SECRET})
    assert out.returncode == 0, out.stderr
    assert SECRET.encode() not in model.read_bytes()
    assert SECRET not in out.stdout + out.stderr
    assert "MW_TEST_PW" not in model.read_text()
    assert columns(model, "plain")["name"]["type"] == "VARCHAR(20)"


def test_a_password_in_the_url_works_and_is_not_repeated(db: str, pg_server: Any, tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    out = mw("import", reader_url(pg_server, SECRET), "--server", "pg", "--tables", "plain", "--out", str(model))
    assert out.returncode == 0, out.stderr
    assert SECRET not in out.stdout + out.stderr and SECRET.encode() not in model.read_bytes()
    assert f"reader@127.0.0.1:{pg_server.port}" in out.stdout


def test_without_a_terminal_a_needed_password_is_a_clear_error(db: str, pg_server: Any, tmp_path: Path) -> None:
    out = mw("import", reader_url(pg_server), "--server", "pg", "--out", str(tmp_path / "m.json"))
    one_line_error(out, "asks for a password", "password_env=NAME")
    assert not (tmp_path / "m.json").exists()


def test_wrong_or_missing_password_variable(db: str, pg_server: Any, tmp_path: Path) -> None:
    wrong = mw("import", reader_url(pg_server, query="?password_env=MW_TEST_PW"), "--server", "pg", "--out",
               str(tmp_path / "m.json"), env={"MW_TEST_PW": "not-" + SECRET})
    line = one_line_error(wrong, "cannot connect", "password authentication failed")
    assert "not-" + SECRET not in line
    unset = mw("import", reader_url(pg_server, query="?password_env=MW_NO_SUCH_VAR"), "--server", "pg", "--out",
               str(tmp_path / "m.json"))
    one_line_error(unset, "MW_NO_SUCH_VAR is not set")


def test_at_a_terminal_the_password_is_asked_for(db: str, pg_server: Any, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []

    def prompt(text: str) -> str:
        asked.append(text)
        return SECRET

    monkeypatch.setattr(cli, "_password_prompt", lambda: prompt)
    model = tmp_path / "m.json"
    code = cli.main(["import", reader_url(pg_server), "--server", "pg", "--tables", "plain", "--out", str(model)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert asked == [f"Password for postgresql+psycopg://reader@127.0.0.1:{pg_server.port}/import_cli: "]
    assert SECRET.encode() not in model.read_bytes() and SECRET not in out.out + out.err


# --- errors --------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_errors_are_one_line_and_exit_2(db: str, tmp_path: Path) -> None:
    out = str(tmp_path / "m.json")
    one_line_error(mw("import", f"postgresql://me@127.0.0.1:{_closed_port()}/x", "--server", "pg", "--out", out),
                   "cannot connect to postgresql+psycopg://me@127.0.0.1")
    one_line_error(mw("import", db, "--server", "pg", "--schema", "nope", "--out", out), "no schema 'nope'", "sales")
    one_line_error(mw("import", db, "--server", "pg", "--tables", "plain,nope", "--out", out),
                   "no table 'nope' in the default schema", "odd, plain")
    one_line_error(mw("import", db, "--server", "pg", "--tables", ",", "--out", out), "--tables names no table")
    one_line_error(mw("import", "not a url", "--server", "pg", "--out", out), "not a database URL")
    one_line_error(mw("import", "mysql+pymysql://me@127.0.0.1/x", "--server", "m", "--out", out),
                   "driver 'pymysql' is not installed", "pip install PyMySQL")
    missing = tmp_path / "missing.sqlite"
    one_line_error(mw("import", f"sqlite:///{missing}", "--server", "s", "--out", out), "no such SQLite database")
    assert not missing.exists()  # never created by looking
    empty = tmp_path / "empty.sqlite"
    import sqlite3

    sqlite3.connect(empty).close()
    one_line_error(mw("import", f"sqlite:///{empty}", "--server", "s", "--out", out), "has no tables")
    one_line_error(mw("import", SHOP, "--server", "s", "--into", str(tmp_path / "nope.json")), "nope.json",
                   "no such file")
    assert not Path(out).exists()


def test_a_name_that_matches_two_in_another_case_is_ambiguous_not_missing(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.create_database("import_cases")
    pg_server.psql('CREATE TABLE "Item" (a int); CREATE TABLE item (b int); '
                   'CREATE SCHEMA "Sales"; CREATE SCHEMA sales; CREATE TABLE sales.t (c int)', "import_cases")
    out = str(tmp_path / "m.json")
    one_line_error(mw("import", url, "--server", "pg", "--tables", "ITEM", "--out", out),
                   "table 'ITEM' is ambiguous", "Item, item")
    one_line_error(mw("import", url, "--server", "pg", "--schema", "SALES", "--out", out),
                   "schema 'SALES' is ambiguous", "Sales, sales")
    assert mw("import", url, "--server", "pg", "--schema", "sales", "--tables", "T", "--out", out).returncode == 0
    assert [t["name"] for t in json.loads(Path(out).read_text())["tables"]] == ["t"]


def test_out_never_replaces_a_file_unless_forced(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    model.write_text("my work")
    one_line_error(mw("import", SHOP, "--server", "s", "--out", str(model)), "already exists", "--into")
    assert model.read_text() == "my work"
    assert mw("import", SHOP, "--server", "s", "--out", str(model), "--force").returncode == 0
    assert json.loads(model.read_text())["servers"] == [{"id": "s", "dbms": "sqlite"}]


def test_an_empty_server_id_or_an_unanswered_prompt_is_one_line(db: str, pg_server: Any, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(mw("import", SHOP, "--server", " ", "--out", str(tmp_path / "m.json")), "--server needs")

    def end_of_input(_text: str) -> str:
        raise EOFError

    monkeypatch.setattr(cli, "_password_prompt", lambda: end_of_input)
    code = cli.main(["import", reader_url(pg_server), "--server", "pg", "--out", str(tmp_path / "m.json")])
    assert code == 2
    assert capsys.readouterr().err.strip().endswith("no password given")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("server", ["a.b", "x\ty", "a b"])
def test_a_server_id_add_server_refuses_is_refused(server: str, tmp_path: Path) -> None:
    one_line_error(mw("import", SHOP, "--server", server, "--out", str(tmp_path / "m.json")),
                   "cannot hold a dot or a space")
    assert not (tmp_path / "m.json").exists()


def test_out_never_replaces_the_database_being_imported(tmp_path: Path) -> None:
    """Not even with --force: the file is the input (a hostile probe's find: it became the model's JSON)."""
    victim = tmp_path / "victim.sqlite"
    shutil.copyfile(RESOURCES / "samples" / "shop.sqlite", victim)
    before = victim.read_bytes()
    one_line_error(mw("import", f"sqlite:///{victim}", "--server", "s", "--out", str(victim), "--force"),
                   "is the database being imported")
    assert victim.read_bytes() == before
    as_uri = f"sqlite:///file:{victim}?mode=ro&uri=true"  # SQLite's URI form names the same file
    one_line_error(mw("import", as_uri, "--server", "s", "--out", str(victim), "--force"),
                   "is the database being imported")
    assert victim.read_bytes() == before
    assert mw("import", as_uri, "--server", "s", "--out", str(tmp_path / "m.json")).returncode == 0


def test_a_missing_sqlite_file_is_never_created_by_looking_even_through_a_uri(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    one_line_error(mw("import", f"sqlite:///file:{missing}?uri=true", "--server", "s", "--out",
                      str(tmp_path / "m.json")), "no such SQLite database file", str(missing))
    assert not missing.exists()


def test_a_table_or_column_without_a_name_is_left_out_with_a_note(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "names.sqlite"
    with sqlite3.connect(path) as db:
        db.execute('CREATE TABLE "" (id INTEGER PRIMARY KEY)')
        db.execute('CREATE TABLE t ("" INT, a INT PRIMARY KEY)')
        db.execute("CREATE TABLE ok (a INT PRIMARY KEY)")
    out = mw("import", f"sqlite:///{path}", "--server", "s", "--out", str(tmp_path / "m.json"))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert [t["name"] for t in json.loads((tmp_path / "m.json").read_text())["tables"]] == ["ok"]
    notes = [line for line in out.stderr.splitlines() if "not imported" in line]
    assert len(notes) == 2 and any(line.startswith("mapwright: note: s.t: not imported") for line in notes), notes


@pytest.mark.parametrize("url", ["postgresql:/bob:S3cretPW@h/db", "bob:S3cretPW@h",
                                 "postgresql://bob@127.0.0.1:{port}/db?password=S3cretPW&sslmode=disable",
                                 "postgresql://bob@127.0.0.1:{port}/db?sslpassword=S3cretPW"])
def test_a_password_is_never_printed_whatever_the_url_looks_like(url: str, tmp_path: Path) -> None:
    out = mw("import", url.format(port=_closed_port()), "--server", "s", "--out", str(tmp_path / "m.json"))
    assert out.returncode == 2 and "S3cretPW" not in out.stderr + out.stdout, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("url", ["sqlite://me:S3cretPW@/shop.sqlite", "sqlite://localhost/shop.sqlite",
                                 "sqlite:///shop.sqlite?timeout=abc", "sqlite:///shop.sqlite?timeout=abc&password=S3cretPW"])
def test_a_url_the_dialect_refuses_is_one_line_exit_2_without_the_password(url: str, tmp_path: Path) -> None:
    """SQLite has no user nor host, and its timeout is a number: create_engine's ArgumentError and ValueError
    were tracebacks. The file exists, so it is the URL itself that is refused."""
    shutil.copyfile(RESOURCES / "samples" / "shop.sqlite", tmp_path / "shop.sqlite")
    out = mw("import", url, "--server", "s", "--out", "m.json", cwd=tmp_path)
    line = one_line_error(out, "not a usable database URL: sqlite://", "sqlite:///relative/path.db")
    assert "S3cretPW" not in out.stdout + out.stderr, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop.sqlite"]
