"""Import tests: the helper modules (`catalog`, `pgdata`) importable in any pytest import mode; the `db` fixture."""

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from pgdata import ODD_TYPES  # noqa: E402


@pytest.fixture(scope="session")
def db(pg_server: Any) -> Iterator[str]:
    """A database with odd types, a second schema, and a role that must give a password (scram on loopback)."""
    url = pg_server.create_database("import_cli")
    pg_server.psql(ODD_TYPES, "import_cli")
    hba = pg_server.datadir / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text("host all reader 127.0.0.1/32 scram-sha-256\n" + original)
    pg_server.psql("SELECT pg_reload_conf()")
    try:
        yield url
    finally:
        hba.write_text(original)
        pg_server.psql("SELECT pg_reload_conf()")
