"""Column types and dialect names in `export --to ddl` for SQL Server, MySQL and DB2 (issue 36).

Before: SQL Server DDL had a DATE as DATETIME and text and binary large objects as the deprecated TEXT and
IMAGE (SQLAlchemy, not connected, writes for SQL Server 2000); MySQL DDL had a TIMESTAMP as MySQL's
TIMESTAMP, which refuses a date before 1970, and a DATETIME without fractions of a second; and
`--dialect db2`, `--dialect sqlserver` (any name but SQLAlchemy's own) were refused.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from builders import one_table

from engine.ddl import DBMS_BY_NAME, model_ddl

MAPWRIGHT = shutil.which("mapwright", path=str(Path(sys.executable).parent)) or "mapwright"
TYPES = {"D": "DATE", "TS": "TIMESTAMP", "DT": "DATETIME", "C": "CLOB", "TX": "TEXT", "L": "LONG", "B": "BLOB",
         "LR": "LONG RAW", "BY": "BYTE", "BI": "BINARY(8)", "V": "VARCHAR(10)"}


def column_types(ddl: str) -> dict[str, str]:
    """Each column's name and type as written in one CREATE TABLE (quoted with [], `` or "")."""
    found = re.findall(r'^\s*[\["`](\w+)[\]"`] ([A-Z0-9]+(?:\([^)]*\))?)', ddl, re.M)
    return dict(found)


def test_sql_server_gets_date_and_max_types_not_datetime_text_or_image() -> None:
    model = one_table("oracle", {name: (t, None) for name, t in TYPES.items()})
    types = column_types(model_ddl(model, "mssql", server="s"))
    assert types == {"ID": "INTEGER", "D": "DATE", "TS": "DATETIME2", "DT": "DATETIME", "C": "NVARCHAR(max)",
                     "TX": "NVARCHAR(max)", "L": "NVARCHAR(max)", "B": "VARBINARY(max)", "LR": "VARBINARY(max)",
                     "BY": "VARBINARY(max)", "BI": "VARBINARY(8)", "V": "VARCHAR(10)"}


def test_mysql_timestamps_are_datetime6_with_a_default_of_the_same_precision() -> None:
    """MySQL refuses `DATETIME(6) DEFAULT CURRENT_TIMESTAMP` (Invalid default value): the precision is one."""
    model = one_table("postgresql", {"D": ("DATE", None), "TS": ("TIMESTAMP", "CURRENT_TIMESTAMP"),
                                     "DT": ("DATETIME", None), "NOW": ("TIMESTAMP", "now()")})
    ddl = model_ddl(model, "mysql", server="s")
    assert column_types(ddl) == {"ID": "INTEGER", "D": "DATE", "TS": "DATETIME(6)", "DT": "DATETIME(6)",
                                 "NOW": "DATETIME(6)"}
    assert "`TS` DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6)" in ddl
    assert "`NOW` DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6)" in ddl
    assert "TIMESTAMP " not in ddl.replace("CURRENT_TIMESTAMP", "")


def test_the_dialect_names_users_type_are_accepted_in_any_case() -> None:
    model = one_table("sqlite", {"C": ("CLOB", None)})
    expected = {"db2": "standard SQL (no SQLAlchemy dialect for db2 is installed)", "sqlserver": "mssql",
                "SQL-Server": "mssql", "MSSQL": "mssql", "postgres": "postgresql", "PG": "postgresql",
                "Oracle": "oracle", "mysql": "mysql", "MariaDB": "mysql", "sqlite": "sqlite",
                "postgresql": "postgresql"}
    for name, label in expected.items():
        assert f"-- server s (sqlite): {label}\n" in model_ddl(model, name, server="s"), name
    assert '"C" CLOB' in model_ddl(model, "db2", server="s")  # DB2's standard SQL, as for a db2 server
    assert {n.lower() for n in expected} <= set(DBMS_BY_NAME)


def test_cli_takes_db2_and_an_unknown_name_is_exit_2_listing_the_names(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(one_table("mssql", {"D": ("DATE", None)}).model_dump_json(exclude_none=True))
    out = tmp_path / "t.sql"
    done = subprocess.run([MAPWRIGHT, "export", str(path), "--to", "ddl", "--server", "s", "--dialect", "DB2",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "standard SQL" in out.read_text() and 'CREATE TABLE "T"' in out.read_text()
    bad = subprocess.run([MAPWRIGHT, "export", str(path), "--to", "ddl", "--dialect", "sybaseish", "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown SQL dialect 'sybaseish'" in bad.stderr, bad.stderr
    assert "sqlserver" in bad.stderr and "db2" in bad.stderr and "Traceback" not in bad.stderr
