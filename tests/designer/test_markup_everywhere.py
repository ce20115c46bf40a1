"""A model's strings and a run's text are shown as they are in every label, form row, message box and prompt of
the designer and the conflict browser: never rendered as markup (nor an `<img src=...>` in them loaded); in
menus and the Undo entry an `&` in a name is not taken as a shortcut marker."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import Qt  # QtGui's Qt has mightBeRichText
from PySide6.QtWidgets import QDialog, QInputDialog, QLabel, QMenu, QMessageBox, QWidget
from pytestqt.qtbot import QtBot
from windows import make_window

from designer.browser import ConflictBrowser
from designer.labels import menu_text
from engine.run.rundir.write import run_reference_to_dir
from resources import SAMPLE_MODEL

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
HOSTILE = ("<b>hq</b>", "<i>CUSTOMER</i>", "<u>EMAIL</u>", "<img src=x>", "<h1>status</h1>", "<b>N</b>", "<a href=",
           "<b>orders</b>", "<b>address_cg</b>", "<b>UX_")  # what hostile_model() puts in the model
RUN_HOSTILE = ("<b>A_to", "<b>B_to", "<b>C_to", "<img src=x>")  # what example_with_marked_ids() puts in a run


def renders_markup(label: QLabel, hostile: tuple[str, ...]) -> bool:
    """The label would render a hostile string as markup (one escaped in a label's own rich text is fine)."""
    text = label.text()
    return (any(m in text for m in hostile) and label.textFormat() != Qt.TextFormat.PlainText
            and (label.textFormat() == Qt.TextFormat.RichText or Qt.mightBeRichText(text)))


def rendered(widget: QWidget, hostile: tuple[str, ...] = HOSTILE) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel) if renders_markup(label, hostile)]


def hostile_model(tmp_path: Path) -> Path:
    """The sample with markup in every kind of name and string (as a hostile or careless model file has)."""
    text = SAMPLE_MODEL.read_text()
    text = text.replace('"hq"', '"<b>hq</b>"').replace('"hq.', '"<b>hq</b>.').replace('"CUSTOMER', '"<i>CUSTOMER</i>')
    text = text.replace('"EMAIL"', '"<u>EMAIL</u>"').replace("EMAIL IS NOT NULL", "`<u>EMAIL</u>` IS NOT NULL")
    text = text.replace('"BRANCH"', '"<img src=x>BRANCH"').replace("DISCONTINUED = 'N'", "DISCONTINUED = '<b>N</b>'")
    text = text.replace('address_cg', '<b>address_cg</b>').replace('status_cg', '<h1>status</h1>')
    text = text.replace('"orders_hq_to_web"', '"<a href=\'http://evil\'>orders_hq_to_web</a>"')
    model = json.loads(text)
    model["name"] = "<b>orders</b> &amp; more"
    for table in model["tables"]:
        for index in table.get("unique_indexes", []):
            index["name"] = f"<b>{index['name']}</b>"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(model))
    return path


def test_no_label_of_the_window_renders_a_model_s_markup(qtbot: QtBot, tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, hostile_model(tmp_path))
    model = w.document.model
    refs: list[tuple[Any, ...]] = [("server", s.id) for s in model.servers]
    for table in model.tables:
        refs += [("table", table.key)] + [("column", table.key, c.name) for c in table.columns]
    for mapping in model.mappings:
        refs += [("mapping", mapping.id)] + [("link", mapping.id, c) for c in mapping.columns]
        refs += [("method", mapping.id, c, ()) for c, m in mapping.columns.items() if m.method != "column"]
    assert len(refs) > 100
    found: set[str] = set()
    for ref in refs:
        w.select(ref)
        found.update(rendered(w))
        if ref[0] == "table":
            for i in range(w.conflicts.groups.topLevelItemCount()):
                w.conflicts.groups.setCurrentItem(w.conflicts.groups.topLevelItem(i))
                found.update(rendered(w.conflicts))
    assert not found


def test_the_properties_rows_named_after_a_mapping_show_it_as_it_is(qtbot: QtBot, tmp_path: Path) -> None:
    w = make_window(qtbot, tmp_path, hostile_model(tmp_path))

    def labels(widget: QWidget, start: str) -> list[QLabel]:
        found = [label for label in widget.findChildren(QLabel) if label.text().startswith(start)]
        assert found, start
        return found
    for ref, widget, start in (
            (("column", "web.ORDERS", "ORDER_NO"), w.inspector, "<a href="),  # a row per mapping into it
            (("mapping", "<a href='http://evil'>orders_hq_to_web</a>"), w.inspector, "<b>hq</b>.ORDERS"),  # from → to
            (("server", "<b>hq</b>"), w.inspector, "<i>CUSTOMER</i>"),  # its tables
            (("table", "<b>hq</b>.PRODUCT"), w.conflicts, "<b>UX_PRODUCT_EAN</b>")):  # a row per unique index
        w.select(ref)
        assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels(widget, start))


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[QLabel]]]:
    """Every message box and prompt shown, with its labels; a prompt is answered with its own text, a box
    with OK."""
    shown: list[tuple[str, list[QLabel]]] = []

    def box(self: QMessageBox) -> int:
        shown.append(("box", self.findChildren(QLabel)))
        return int(QMessageBox.StandardButton.Ok.value)

    def prompt(self: QInputDialog) -> int:
        shown.append(("prompt", self.findChildren(QLabel)))
        return int(QDialog.DialogCode.Accepted.value)
    monkeypatch.setattr(QMessageBox, "exec", box)
    monkeypatch.setattr(QInputDialog, "exec", prompt)
    # closing the window at the end of the test: its edits are thrown away
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    return shown


def test_messages_and_prompts_quoting_names_are_plain_text(qtbot: QtBot, tmp_path: Path,
                                                           dialogs: list[tuple[str, list[QLabel]]]) -> None:
    path = Path(shutil.copy(SAMPLE_MODEL, tmp_path / "m.json"))
    w = make_window(qtbot, tmp_path, path, ask=True)
    actions = w.authoring
    assert actions.add_table("hq", "<b>X</b>", [{"name": "A", "type": "INTEGER"}])
    assert not actions.add_table("hq", "<b>X</b>", [{"name": "A", "type": "INTEGER"}])  # refused: "Not applied"
    actions.rename(("table", "hq.<b>X</b>"))  # "New name for <b>X</b>:", answered with the same name
    actions.replicate_table("hq.<b>X</b>")  # "Replicate hq.<b>X</b> to server:"
    kinds = [kind for kind, _ in dialogs]
    assert kinds[:3] == ["box", "prompt", "prompt"]
    quoting = [label for _, labels in dialogs for label in labels if "<b>X</b>" in label.text()]
    assert len(quoting) >= 3 and all(label.textFormat() == Qt.TextFormat.PlainText for label in quoting)


def test_cannot_open_model_is_plain_text(qtbot: QtBot, tmp_path: Path,
                                         dialogs: list[tuple[str, list[QLabel]]]) -> None:
    model = json.loads(SAMPLE_MODEL.read_text())
    model["servers"][0]["dbms"] = "<b>oracle</b><img src=x>"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(model))
    w = make_window(qtbot, tmp_path, Path(shutil.copy(SAMPLE_MODEL, tmp_path / "m.json")), ask=True)
    assert not w.open_path(bad)
    quoting = [label for _, labels in dialogs for label in labels if "<b>oracle</b>" in label.text()]
    assert quoting and all(label.textFormat() == Qt.TextFormat.PlainText for label in quoting)


# --- menus ----------------------------------------------------------------------------------------------------

def test_a_name_with_an_ampersand_shows_it_in_menus_and_undo(qtbot: QtBot, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path, Path(shutil.copy(SAMPLE_MODEL, tmp_path / "m.json")))
    assert window.authoring.add_table("hq", "R&D", [{"name": "A", "type": "INTEGER"}])
    menu = QMenu(window)
    window.authoring.fill_menu(menu, ("table", "hq.R&D"))
    canvas = window.controller.menu_for(("table", "hq.R&D"))
    assert canvas is not None
    texts = [a.text() for m in (menu, canvas) for a in m.actions()] + [window.undo_action.text()]
    assert "Remove table hq.R&&D" in texts and "&Undo Add table hq.R&&D" in texts
    assert not [t for t in texts if "R&D" in t and "R&&D" not in t]


def test_menu_text_doubles_each_ampersand() -> None:
    assert menu_text("R&D & more") == "R&&D && more" and menu_text("plain") == "plain"


def test_menu_text_never_breaks_a_line_or_starts_the_shortcut_column() -> None:
    """A table named `L1<newline>L2` made "Rename table hq.L1" and "L2…" two lines of one menu entry, and a
    tab starts the column Qt keeps for the entry's shortcut."""
    assert menu_text("Rename table hq.L1\nL2\tx & y\u202e…") == "Rename table hq.L1\\nL2\\tx && y\\u202e…"


# --- the conflict browser -------------------------------------------------------------------------------------

def example_with_marked_ids(tmp_path: Path, break_it: bool = False) -> Path:
    """The ordering example, its mapping ids in markup; `break_it`: a mapping names a target column that does
    not exist, so the (pure-Python reference) run fails with a reason quoting them."""
    example = Path(shutil.copytree(EXAMPLES / "ordering_conflict", tmp_path / "example"))
    model = json.loads((example / "model.json").read_text())
    for mapping in model["mappings"]:
        mapping["id"] = f"<b>{mapping['id']}</b>"
    if break_it:
        model["mappings"][0]["columns"]["<img src=x>"] = "X"
    (example / "model.json").write_text(json.dumps(model))
    _status, out = run_reference_to_dir(example / "model.json", example / "data", tmp_path / "run")
    return out


def open_browser(qtbot: QtBot, run: Path) -> ConflictBrowser:
    browser = ConflictBrowser()
    qtbot.addWidget(browser)
    browser.show()
    browser.open_run(run)
    return browser


def test_a_failed_run_s_reason_is_plain_text(qtbot: QtBot, tmp_path: Path) -> None:
    browser = open_browser(qtbot, example_with_marked_ids(tmp_path, break_it=True))
    label = browser.overview.reason_label
    assert "<b>A_to_B</b>" in label.text() and label.textFormat() == Qt.TextFormat.PlainText
    assert not rendered(browser, RUN_HOSTILE)


def test_the_convergence_captions_are_plain_text(qtbot: QtBot, tmp_path: Path) -> None:
    browser = open_browser(qtbot, example_with_marked_ids(tmp_path))
    page = browser.convergence_page
    browser.tabs.setCurrentWidget(page)
    assert page.proxy.rowCount() == 6
    for row in range(page.proxy.rowCount()):
        page.view.setCurrentIndex(page.proxy.index(row, 0))
        assert "<b>" in page.examples_caption.text()
        assert not rendered(browser, RUN_HOSTILE)
