"""Starting the designer: a QApplication, the main window, a model (the bundled sample by default)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from engine.model import Model

NO_DISPLAY = ("mapwright designer needs a display, and none was found (no DISPLAY or WAYLAND_DISPLAY). "
              "Run it under a virtual screen: `xvfb-run mapwright designer` (Debian/Ubuntu: apt-get install xvfb), "
              "or render without a screen: `QT_QPA_PLATFORM=offscreen mapwright designer --screenshot out.png`.")


# the libraries Qt's xcb platform plugin loads beyond a basic X11 desktop, with their Debian packages
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1",
                 "xkbcommon-x11": "libxkbcommon-x11-0", "xcb-render-util": "libxcb-render-util0",
                 "xcb-image": "libxcb-image0", "xcb-shape": "libxcb-shape0"}


def missing_system_library() -> str | None:
    """Qt's xcb platform aborts the whole process when a library is missing; say which, before it does."""
    import ctypes.util

    uses_xcb = sys.platform == "linux" and os.environ.get("QT_QPA_PLATFORM", "xcb") == "xcb" \
        and os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
    if not uses_xcb:
        return None
    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if not missing:
        return None
    return (f"the desktop designer needs X11 libraries that are not installed: {', '.join(missing)} "
            f"(Debian/Ubuntu: apt-get install {' '.join(missing)}).")


def has_display() -> bool:
    if sys.platform != "linux" or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def main(model: Path | None, screenshot: Path | None = None, loaded: Model | None = None) -> int:
    """The designer's window on `model` (`loaded`: the model as just read from that file), or the sample."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QStyleFactory

    from designer.window import MainWindow
    from resources import SAMPLE_MODEL

    # instance() is typed QCoreApplication; the designer's is a QApplication (made here, or by a test)
    app = cast("QApplication | None", QApplication.instance()) or QApplication(sys.argv[:1])
    app.setApplicationName("Mapwright")
    app.setOrganizationName("Mapwright")
    app.setDesktopFileName("org.mapwright.Designer")
    from PySide6.QtGui import QIcon

    from resources import ROOT as RESOURCES

    app.setWindowIcon(QIcon(str(RESOURCES / "icons" / "org.mapwright.Designer.svg")))
    if "Fusion" in QStyleFactory.keys():  # noqa: SIM118 - keys() is a Qt call, not a dict
        app.setStyle("Fusion")  # follows the system's light or dark colour scheme
    warm = screenshot is None and os.environ.get("MAPWRIGHT_WARM_SPARK", "1") != "0"
    window = MainWindow(warm=warm)  # previews run in one Spark session kept warm while the window is open
    window.check_when_painted = screenshot is None  # a screenshot is the first paint: a large model unchecked
    window.open_path(model or SAMPLE_MODEL, loaded if model else None)
    if screenshot is not None:
        window.resize(1600, 1000)
        window.show()
        _settle(app)
        window.view.fit()
        _settle(app)
        window.grab().save(str(screenshot))
        print(f"wrote {screenshot}")
        code = 0
    else:
        window.show()
        QTimer.singleShot(0, window.offer_orphaned_autosaves)  # once the window shows, above it
        code = int(app.exec())
        if window.warm_session is not None:  # closed, so stopping: let it stop Spark before Qt kills it
            window.warm_session.wait_stopped()
    _close(window)
    return code


def _settle(app: object) -> None:
    """Let queued layout and timers run (the window sizes its docks and fits the canvas once shown)."""
    import time

    end = time.monotonic() + 0.1
    while time.monotonic() < end:
        app.processEvents()  # type: ignore[attr-defined]


def _close(window: object) -> None:
    """Delete the window's Qt objects while Python still runs: letting interpreter shutdown collect them
    crashes PySide6 (a refcount error in `none_dealloc`)."""
    from PySide6.QtWidgets import QApplication

    window.close()  # type: ignore[attr-defined]
    window.deleteLater()  # type: ignore[attr-defined]
    QApplication.processEvents()
    QApplication.sendPostedEvents(None, 0)
