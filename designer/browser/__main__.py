"""`python -m designer.browser RUNDIR`: the conflict browser on its own, for one run directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from designer.browser.window import ConflictBrowser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m designer.browser", description=__doc__)
    parser.add_argument("rundir", type=Path, help="a run directory (mapwright run --out RUNDIR)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    browser = ConflictBrowser()
    browser.setWindowTitle(f"Conflicts — {args.rundir}")
    browser.show()
    browser.load_run(args.rundir)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
