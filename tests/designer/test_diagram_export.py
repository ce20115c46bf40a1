"""The diagram export (issue 37): `mapwright diagram MODEL --out FILE.svg|png|pdf [--server ID]` and File ▸ Export
diagram…, both drawing the designer's canvas scene offscreen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtPdf import QPdfDocument
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot
from windows import TWO_TABLES, window_on

from engine.cli import main
from engine.edits import add
from engine.model import load_model
from engine.model.schema import Mapping
from resources import SAMPLE_MODEL

SAMPLE = load_model(SAMPLE_MODEL)
TABLES = [t.key for t in SAMPLE.tables]
MAPPINGS = [m.id for m in SAMPLE.mappings]


def svg_texts(path: Path) -> set[str]:
    """Every text element's text in an SVG file (parsed as XML: a malformed file fails here)."""
    root = ET.parse(path).getroot()
    return {"".join(e.itertext()).strip() for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "text"}


def test_sample_svg_and_pdf_name_every_table_and_mapping(tmp_path: Path, qapp: Any,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    svg, pdf = tmp_path / "orders.svg", tmp_path / "orders.PDF"
    assert main(["diagram", str(SAMPLE_MODEL), "--out", str(svg)]) == 0
    assert main(["diagram", str(SAMPLE_MODEL), "--out", str(pdf)]) == 0  # the suffix in any case
    assert capsys.readouterr().out.splitlines() == [f"wrote {svg}", f"wrote {pdf}"]
    texts = svg_texts(svg)
    assert set(TABLES) <= texts and set(MAPPINGS) <= texts
    assert {"VARCHAR2(80) NN", "concat"} <= texts  # the canvas's rows and method nodes, not only the names
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 10_000
    document = QPdfDocument()
    assert document.load(str(pdf)) == QPdfDocument.Error.None_ and document.pageCount() == 1
    words = document.getAllText(0).text().split()
    assert set(TABLES) <= set(words) and set(MAPPINGS) <= set(words)


def test_png_is_written_without_a_display(tmp_path: Path) -> None:
    out = tmp_path / "orders.png"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "diagram", str(SAMPLE_MODEL), "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    image = QImage(str(out)).convertToFormat(QImage.Format.Format_RGB32)
    assert image.width() > 1000 and image.height() > 800
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32)[: image.width() * image.height()] & 0xFFFFFF
    drawn = np.count_nonzero(pixels != 0xFFFFFF) / pixels.size
    assert 0.05 < drawn < 0.9  # tables, wires and names on a white background
    assert len(np.unique(pixels)) > 50  # text, the wires' blue, the findings' orange: not a flat fill


SERVERS = {
    "format": "mapwright/1", "name": "two-servers",
    "servers": [{"id": "hq", "dbms": "oracle", "priority": 20}, {"id": "br", "dbms": "postgresql", "priority": 10}],
    "tables": [{"server": s, "name": n, "columns": [{"name": "K", "type": "INTEGER", "nullable": False}],
                "primary_key": ["K"]} for s, n in (("hq", "A"), ("hq", "B"), ("br", "A"))],
    "mappings": [{"id": "a_to_b", "source": "hq.A", "target": "hq.B", "columns": {"K": "K"}},
                 {"id": "a_to_br", "source": "hq.A", "target": "br.A", "columns": {"K": "K"}}],
}


def test_bad_input_through_python_m_is_one_line_too(tmp_path: Path) -> None:
    """The designer's File ▸ Export diagram runs `python -m engine.cli diagram`: there the CLI module is
    `__main__` and the designer imported it again, so its UsageError was another class and left a traceback."""
    done = subprocess.run([sys.executable, "-m", "engine.cli", "diagram", str(SAMPLE_MODEL), "--out", ""],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "mapwright: --out names no file (an empty path)\n"


def test_server_limits_the_tables_and_mappings(tmp_path: Path, qapp: Any) -> None:
    model = tmp_path / "two.json"
    model.write_text(json.dumps(SERVERS))
    whole, hq = tmp_path / "whole.svg", tmp_path / "hq.svg"
    assert main(["diagram", str(model), "--out", str(whole)]) == 0
    assert main(["diagram", str(model), "--out", str(hq), "--server", "hq"]) == 0
    assert {"hq.A", "hq.B", "br.A", "a_to_b", "a_to_br"} <= svg_texts(whole)
    texts = svg_texts(hq)
    assert {"hq.A", "hq.B", "a_to_b"} <= texts
    assert not {"br.A", "a_to_br", "postgresql"} & texts


@pytest.mark.parametrize(("args", "said"), [
    (["--out", "{tmp}/d.txt"], "d.txt: suffix '.txt'; a diagram is a .png, .svg or .pdf file"),
    (["--out", "{tmp}/d.svg", "--server", "nowhere"], "--server nowhere: no such server in the model "
                                                       "(its servers: hq, branch, web)"),
    (["--out", "{tmp}/no/such/folder/d.png"], "d.png: cannot write (No such file or directory)"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, qapp: Any, capsys: pytest.CaptureFixture[str],
                                         args: list[str], said: str) -> None:
    argv = ["diagram", str(SAMPLE_MODEL), *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mapwright: ") and err.rstrip().endswith(said) and err.count("\n") == 1
    assert not list(tmp_path.rglob("*.*"))  # nothing written, no temporary file left


def test_unloadable_model_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "mapwright/1", "tables": 3}')
    assert main(["diagram", str(bad), "--out", str(tmp_path / "d.svg")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mapwright: {bad}") and err.count("\n") == 1
    assert not (tmp_path / "d.svg").exists()


def test_file_menu_exports_the_diagram(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window_on(qtbot, tmp_path, TWO_TABLES)
    mapping = Mapping.model_validate({"id": "unsaved_map", "source": "hq.CUST", "target": "br.CUST",
                                      "columns": {"NAME": "NAME"}})
    w.document.apply(add(w.document.model, mapping), "Add mapping")  # not saved: the diagram still shows it
    file_menu = w.menuBar().actions()[0].menu()
    action = next(a for a in file_menu.actions() if a.text() == "Export &diagram…")
    answers = iter([(str(tmp_path / "two.txt"), ""), (str(tmp_path / "two"), "SVG drawing (*.svg)")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: next(answers)))
    action.trigger()
    assert "two.txt: suffix '.txt'; a diagram is a .png, .svg or .pdf file" in w.statusBar().currentMessage()
    action.trigger()
    out = tmp_path / "two.svg"  # the filter's suffix added
    assert w.statusBar().currentMessage() == f"Drawing the diagram to {out}…"  # drawn in the background
    qtbot.waitUntil(lambda: w.statusBar().currentMessage() == f"Exported the diagram to {out}", timeout=60_000)
    assert {"hq.CUST", "br.CUST", "unsaved_map"} <= svg_texts(out)
    assert not list(tmp_path.glob("*.txt*"))
