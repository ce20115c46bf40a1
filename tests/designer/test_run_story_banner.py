"""The browser's banner tells a run's story: why each change was queued, why each mapping diverged, the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.run.rundir.write import run_reference_to_dir
from engine.summary import read_run
from resources import SAMPLE_MODEL

SAMPLE_DATA = SAMPLE_MODEL.parent / "orders-data"


def test_the_bundled_runs_banner_explains_each_diverged_mapping_and_queued_reason(browser: Any,
                                                                                 tmp_path: Path) -> None:
    status, out = run_reference_to_dir(SAMPLE_MODEL, SAMPLE_DATA, tmp_path / "run")
    assert status == "succeeded"
    browser.open_run(out)
    text = browser.banner.text()
    summary = read_run(out)
    for mapping in summary.convergence:
        if mapping["diverged"]:
            assert f"<li>{mapping['mapping']} diverged on {mapping['diverged']:,} keys: " in text, mapping["mapping"]
    reasons = {str(e["reason"]).split(": ", 1)[-1] if "rolled back" in e["reason"] else e["reason"]
               for e in summary.error_queue}
    assert summary.error_queue and len(reasons) >= 5
    for says in ("on_insert_exists: as_update", "on_delete_missing: discard", "on_update_missing: insert",
                 "put STATUS in a column group", "a person decides", "scope: transaction",
                 "not passed on to web.CUSTOMER", "the copies differ by design"):
        assert says in text, says
    assert text.count("queued at ") >= len({(e["site"], e["table"], e["mapping"]) for e in summary.error_queue})


def test_a_long_story_leaves_the_conflicts_most_of_the_window(browser: Any, tmp_path: Path) -> None:
    from designer.browser.window import BANNER_LINES

    status, out = run_reference_to_dir(SAMPLE_MODEL, SAMPLE_DATA, tmp_path / "run")
    browser.resize(1280, 800)
    browser.open_run(out)
    lines = browser.banner.fontMetrics().lineSpacing()
    banner, tabs = browser.split.sizes()
    assert banner <= BANNER_LINES * lines + 8 < browser.banner.height()  # the story is longer: it scrolls
    assert browser.banner_area.verticalScrollBar().maximum() > 0
    assert tabs > 2 * banner  # the conflicts keep most of the window
