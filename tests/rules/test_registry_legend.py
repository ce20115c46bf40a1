"""The designer's Help ▸ Legend lists every validation code from the rule registry (pytest-qt, offscreen)."""

from __future__ import annotations

import html

from pytestqt.qtbot import QtBot

from designer.helpmenu import LegendDialog
from engine.rules.registry import REGISTRY


def test_the_legend_lists_every_code_with_its_severity_title_and_explanation(qtbot: QtBot) -> None:
    legend = LegendDialog()
    qtbot.addWidget(legend)
    table = legend.codes
    assert table.rowCount() == len(REGISTRY)
    for row, rule in enumerate(REGISTRY.values()):
        cells = [table.item(row, column) for column in range(3)]
        assert [c.text() for c in cells if c is not None] == [rule.code, rule.severity.value, rule.title]
        tip = cells[0].toolTip() if cells[0] is not None else ""
        assert html.escape(rule.meaning) in tip and html.escape(rule.fix) in tip
    assert "error" in legend.rows and "warning" in legend.rows  # the canvas's marks are still explained
