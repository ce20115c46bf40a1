"""Each exported PostgreSQL script stops on a server older than 16 before it changes anything.

Step 4's `origin = none` is PostgreSQL 16's: on 15, steps 1-3 used to succeed and step 4 fail, leaving a half
deployment. Run here on Debian's real PostgreSQL 15 (the `pg_server` fixture); the PostgreSQL 18 side is
covered by verification (tests/deploy/test_pg_verify.py), which runs the same scripts with psql.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from pgmodel import three_site_model

from engine.cli import main


def _psql_file(pg_server: Any, database: str, path: Path) -> subprocess.CompletedProcess[str]:
    """The README's command for a step: `psql "$CONNINFO" -f <server>/<n>-<step>.sql` (no -v ON_ERROR_STOP)."""
    cmd = [str(pg_server.bindir / "psql"), "-X", "-h", "127.0.0.1", "-p", str(pg_server.port), "-U", pg_server.user,
           "-d", database, "-v", "conninfo_east=host=127.0.0.1", "-v", "conninfo_west=host=127.0.0.1",
           "-f", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def test_every_step_stops_on_postgresql_15_before_changing_anything(pg_server: Any, tmp_path: Path) -> None:
    version = int(pg_server.psql("SHOW server_version_num").strip())
    assert version < 160000, f"this test needs a PostgreSQL 15 server (Debian's); pg_server is {version}"
    model = tmp_path / "m.json"
    model.write_text(json.dumps(three_site_model()))
    out = tmp_path / "out"
    assert main(["export", str(model), "--to", "postgresql", "--out", str(out), "--force"]) == 0
    pg_server.create_database("version_check")
    for step in ("1-settings", "2-tables", "3-publications", "4-subscriptions"):
        result = _psql_file(pg_server, "version_check", out / "hq" / f"{step}.sql")
        assert result.returncode != 0, step
        errors = [line for line in result.stderr.splitlines() if "ERROR" in line]
        assert len(errors) == 1, (step, result.stderr)
        assert "Mapwright's PostgreSQL deployment needs PostgreSQL 16 or later (origin = none); this server is 15" \
            in errors[0], (step, errors[0])
    nothing = ("SELECT (SELECT count(*) FROM pg_publication) + (SELECT count(*) FROM pg_subscription)"
               " + (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')"
               " + (SELECT count(*) FROM pg_file_settings WHERE name IN ('wal_level', 'track_commit_timestamp'))")
    assert pg_server.psql(nothing, "version_check").strip() == "0"
