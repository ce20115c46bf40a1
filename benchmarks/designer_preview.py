"""The designer's F5 to a filled conflict browser, warm: `python -m benchmarks.designer_preview [--runs 3]`.

Opens the designer's window on the bundled sample as `mapwright designer` does (with its warm in-process
worker), waits for that worker to be ready, then presses F5 `--runs` times with the engine on Auto (the
sample is small: it runs in process) and times each from the key press to the conflict browser showing the
run's conflicts. Prints one JSON line, `{"seconds": [...]}`. Offscreen Qt is enough; settings go to a
temporary folder so the user's are untouched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from designer.window import MainWindow  # noqa: E402
from resources import SAMPLE_MODEL  # noqa: E402


def wait_for(condition: object, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError("the designer did not get there in time")
        QCoreApplication.processEvents()
        time.sleep(0.002)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory(prefix="mapwright-bench-") as tmp:
        QStandardPaths.setTestModeEnabled(True)
        os.environ["MAPWRIGHT_AUTOSAVE_DIR"] = str(Path(tmp) / "autosave")
        QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Yes  # type: ignore[method-assign]
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, ask=False, warm=True)
        window.open_path(SAMPLE_MODEL)
        window.show()
        launcher = window.launcher
        worker = getattr(launcher._runner, "inprocess", None)
        assert worker is not None, "the window has no in-process worker"
        wait_for(lambda: worker.state == "ready")
        seconds = []
        for i in range(args.runs):
            launcher.out_edit.setText(str(Path(tmp) / f"run{i}"))
            before = len(window.browsers)
            window.activateWindow()  # the last browser had the focus: F5 is the designer window's shortcut
            wait_for(lambda: QApplication.activeWindow() is window, 10.0)
            began = time.monotonic()
            QTest.keyClick(window, Qt.Key.Key_F5)
            wait_for(lambda before=before: len(window.browsers) > before)
            browser = window.browsers[-1]
            page = browser.conflicts_page
            wait_for(lambda browser=browser, page=page: not browser.loading() and page.view.model().rowCount() > 0)
            seconds.append(round(time.monotonic() - began, 3))
            browser.close()
            wait_for(lambda: not window.browsers)  # deleted on close, later
        worker.wait_stopped()
        window.close()
        app.processEvents()
    print(json.dumps({"seconds": seconds}))


if __name__ == "__main__":
    main()
