"""A model's strings and a run's data show as they are in labels and tooltips: never rendered as markup."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import Qt, QTextDocument  # QtGui's Qt has mightBeRichText

from designer.browser.models import REJECT_COLUMNS, RecordTableModel
from designer.labels import plain_label, plain_tip
from designer.problems import FindingsModel
from engine.rules.findings import Finding, Location

HOSTILE = ['<img src="/etc/passwd">', "<b>bold</b> & more", "<qt>x</qt>\nsecond <i>line</i>",
           "<table><tr><td>cell", "  <a href='file:///'>link</a>  "]


def shown(tip: str) -> str:
    """What a tooltip shows: rich text as Qt renders it where Qt takes it for rich text, else the text."""
    if not Qt.mightBeRichText(tip):
        return tip
    doc = QTextDocument()
    doc.setHtml(tip)
    return doc.toPlainText()


@pytest.mark.parametrize("text", HOSTILE)
def test_a_tooltip_that_looks_like_html_shows_as_it_is(qapp: Any, text: str) -> None:
    assert Qt.mightBeRichText(text)  # shown unescaped, Qt would render it
    assert shown(plain_tip(text)) == text  # its spaces and line breaks too


@pytest.mark.parametrize("text", ["plain", "a < b", "STATUS <> 'void'", "", "x\n<b>later</b>"])
def test_a_tooltip_qt_shows_plain_is_left_alone(qapp: Any, text: str) -> None:
    assert plain_tip(text) == text and shown(text) == text


def test_a_label_never_reads_its_text_as_markup(qapp: Any) -> None:
    label = plain_label(HOSTILE[0], wrap=True)
    assert label.textFormat() == Qt.TextFormat.PlainText and label.text() == HOSTILE[0] and label.wordWrap()


def test_the_problems_panel_and_the_run_browser_give_tooltips_that_show_as_they_are(qapp: Any) -> None:
    finding = Finding("MP003", HOSTILE[1], Location(mapping=HOSTILE[0]))
    problems = FindingsModel([finding])
    for column in range(problems.columnCount()):
        index = problems.index(0, column)
        display = problems.data(index, Qt.ItemDataRole.DisplayRole)
        assert shown(problems.data(index, Qt.ItemDataRole.ToolTipRole)) == display
    assert HOSTILE[1] in [problems.data(problems.index(0, c)) for c in range(problems.columnCount())]
    rejects = RecordTableModel(REJECT_COLUMNS, [{"file": "changes/a.jsonl", "line": 3, "reason": "not JSON",
                                                 "raw": HOSTILE[0]}])
    raw = rejects.index(0, [c.key for c in REJECT_COLUMNS].index("raw"))
    assert rejects.data(raw) == HOSTILE[0]
    assert shown(rejects.data(raw, Qt.ItemDataRole.ToolTipRole)) == HOSTILE[0]
