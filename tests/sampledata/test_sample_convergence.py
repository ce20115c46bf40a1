"""The sample day's ordinary work converges: what diverges after a run of the bundled sample comes from its
scenarios, not from changes the generator sent where the model's mappings never pass them on."""

from __future__ import annotations

from pathlib import Path

from engine.model import load_model
from engine.run import run_reference
from engine.sampledata.day import ordinary_day
from engine.sampledata.shop import Shop
from engine.sampledata.snapshot import snapshot
from engine.sampledata.writer import Writer
from resources import SAMPLE_MODEL


def test_a_day_of_ordinary_work_alone_meets_no_conflict_and_converges(tmp_path: Path) -> None:
    """Customers replicate HQ<->branch and HQ<->web only, and a site does not pass on what it receives: a web
    customer's move had reached HQ and never the branch, a web order voided at the web left HQ and stayed at
    the web. The day without its scenarios must leave every mapping converged."""
    model = load_model(SAMPLE_MODEL)
    shop = Shop(model, seed=7)
    start = snapshot(shop, 1_000)
    ordinary_day(shop, 1_500, 0)
    Writer(model, shop.ctx).write(tmp_path, start, shop.txns)
    ops = {(op.table, op.op) for txn in shop.txns for op in txn.ops}
    assert {("hq.CUSTOMER", "U"), ("hq.CUSTOMER", "I"), ("branch.CUSTOMER", "U"), ("web.ORDERS", "D")} <= ops
    assert not {op for op in ops if op[0] == "web.CUSTOMER"}  # the web's customers are kept by HQ
    result = run_reference(model, tmp_path)
    assert result.counts.conflicts == 0 and result.counts.queued == 0 and not result.rejects
    assert {m: n for m, n in result.diverged().items() if n} == {}
