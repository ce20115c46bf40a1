"""The designer's PostgreSQL export: the findings are known before the folder is chosen, and written too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pgmodel import three_site_model
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog

from designer.window import MainWindow


def test_designer_exports_the_deployment_and_lists_its_findings(qtbot: Any, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAPWRIGHT_AUTOSAVE_DIR", str(tmp_path / "autosave"))
    doc = three_site_model()
    doc["mappings"][0]["columns"]["NOTE"] = {"method": "trim", "input": "NOTE"}
    (tmp_path / "m.json").write_text(json.dumps(doc))
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), ask=False)
    qtbot.addWidget(window)
    window.open_path(tmp_path / "m.json")
    asked: list[list[str]] = []

    def choose(*_: Any, **__: Any) -> str:
        asked.append(list(window.export_findings))  # the findings are known before the folder is asked for
        return str(tmp_path / "out")

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", choose)
    window.export("postgresql")
    assert asked and any("hq_to_east.NOTE: not deployed: method trim" in line for line in asked[0])
    assert (tmp_path / "out" / "hq" / "3-publications.sql").is_file()
    report = (tmp_path / "out" / "report.txt").read_text()
    assert all(line in report for line in asked[0])
    assert f"{len(asked[0])} finding(s)" in window.statusBar().currentMessage()
