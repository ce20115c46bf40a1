"""Help ▸ Legend (what the canvas's dots, dashes and colours mean, and every validation code, read from the rule
registry), Help ▸ Keyboard shortcuts (read from the window's actions, so it never goes stale) and Help ▸ About
(versions)."""

from __future__ import annotations

import html
import platform
from collections.abc import Callable
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QPointF, QRectF, Qt, qVersion
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPainter, QPainterPath, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QGridLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

import engine
from designer.canvas.items import BAD_COLOUR, DK_COLOUR, OK_COLOUR, PK_COLOUR
from designer.severity import ERROR_COLOUR, SEVERITY_COLOURS, WARNING_COLOUR, dot_icon
from engine.rules.registry import REGISTRY

SWATCH_W, SWATCH_H = 56, 20


def spark_version() -> str:
    """PySpark's version from its package metadata (importing pyspark would take a second)."""
    try:
        return metadata.version("pyspark")
    except metadata.PackageNotFoundError:
        return "not installed"


def about_text() -> str:
    return (f"<h3>Mapwright {html.escape(engine.__version__)}</h3>"
            "<p>A replication mapping designer: draw source-to-target mappings, check them as you edit, "
            "configure conflict resolution and preview a run on sample data with Apache Spark.</p>"
            f"<p>Spark (PySpark) {html.escape(spark_version())}<br>"
            f"Qt {html.escape(qVersion())} (PySide6 {html.escape(pyside_version)})<br>"
            f"Python {html.escape(platform.python_version())} ({html.escape(platform.python_implementation())})</p>")


def about_box(parent: QWidget) -> QMessageBox:
    """A non-modal About box (it never blocks the window)."""
    box = QMessageBox(QMessageBox.Icon.Information, "About Mapwright", about_text(),
                      QMessageBox.StandardButton.Close, parent)
    box.setObjectName("aboutBox")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return box


# --- the legend: each entry draws what the canvas draws -----------------------------------------

Painter = Callable[[QPainter, QRectF], None]


def _dot(colour: QColor) -> Painter:
    def paint(p: QPainter, r: QRectF) -> None:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawEllipse(r.center(), 5, 5)
    return paint


def _line(colour: QColor, style: Qt.PenStyle, width: float = 2.0) -> Painter:
    def paint(p: QPainter, r: QRectF) -> None:
        p.setPen(QPen(colour, width, style))
        path = QPainterPath(QPointF(r.left() + 2, r.center().y() + 4))
        path.cubicTo(QPointF(r.center().x(), r.top()), QPointF(r.center().x(), r.bottom()),
                     QPointF(r.right() - 2, r.center().y() - 4))
        p.drawPath(path)
    return paint


def _badge(text: str, colour: QColor) -> Painter:
    def paint(p: QPainter, r: QRectF) -> None:
        badge = QRectF(r.center().x() - 9, r.top() + 3, 18, r.height() - 6)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawRoundedRect(badge, 3, 3)
        font = QFont(p.font())
        font.setBold(True)
        font.setPointSizeF(max(5.0, font.pointSizeF() * 0.8))
        p.setFont(font)
        p.setPen(QColor("white"))
        p.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)
    return paint


def _node(p: QPainter, r: QRectF) -> None:
    pal = QApplication.palette()
    p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1.5))
    p.setBrush(pal.color(QPalette.ColorRole.ToolTipBase))
    p.drawRoundedRect(r.adjusted(4, 2, -4, -2), 9, 9)


def _text(label: str) -> Painter:
    def paint(p: QPainter, r: QRectF) -> None:
        p.setPen(QApplication.palette().color(QPalette.ColorRole.PlaceholderText))
        p.drawText(r, Qt.AlignmentFlag.AlignCenter, label)
    return paint


def legend_entries() -> list[tuple[str, str, Painter]]:
    """(key, what it means, how the canvas draws it)."""
    link = QApplication.palette().color(QPalette.ColorRole.Link)
    highlight = QApplication.palette().color(QPalette.ColorRole.Highlight)
    return [
        ("error", "Red dot: an error (beside a column: that column; in a table's title: the table or mapping)",
         _dot(ERROR_COLOUR)),
        ("warning", "Orange dot: a warning (worth a look; the model still runs)", _dot(WARNING_COLOUR)),
        ("map", "Solid line: a column map, from a source column (or method) to what it feeds",
         _line(link, Qt.PenStyle.SolidLine, 1.6)),
        ("method", "Rounded node: a method (concat, cast, substring...) between source and target", _node),
        ("reversible", "Green dashes: a mapping and its reverse; the distribution key survives the round trip",
         _line(OK_COLOUR, Qt.PenStyle.DashLine)),
        ("not-reversible", "Red dashes: a mapping and its reverse that do not give the key back (hover for why)",
         _line(BAD_COLOUR, Qt.PenStyle.DashLine)),
        ("drawing", "Dashes in the selection colour: the link being drawn (drop it on a target column)",
         _line(highlight, Qt.PenStyle.DashLine)),
        ("pk", "PK: a primary-key column", _badge("PK", PK_COLOUR)),
        ("dk", "DK: a distribution-key column of a mapping into the table", _badge("DK", DK_COLOUR)),
        ("nn", "NN after the type: the column is NOT NULL", _text("NN")),
    ]


def swatch(paint: Painter) -> QPixmap:
    ratio = QApplication.primaryScreen().devicePixelRatio() if QApplication.primaryScreen() else 1.0
    pixmap = QPixmap(int(SWATCH_W * ratio), int(SWATCH_H * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint(painter, QRectF(0, 0, SWATCH_W, SWATCH_H))
    painter.end()
    return pixmap


class LegendDialog(QDialog):
    """A small, non-modal window: one row per mark the canvas draws, then every validation code (the rule
    registry's: code, severity, title; hover a row for what it means and how to fix it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.setWindowTitle("Legend — Mapwright")
        self.setModal(False)
        marks = QWidget()
        grid = QGridLayout(marks)
        grid.setContentsMargins(0, 0, 0, 0)
        self.rows: dict[str, QLabel] = {}
        for row, (key, text, paint) in enumerate(legend_entries()):
            picture = QLabel()
            picture.setPixmap(swatch(paint))
            label = QLabel(text)
            label.setObjectName(f"legend-{key}")
            label.setWordWrap(True)
            grid.addWidget(picture, row, 0)
            grid.addWidget(label, row, 1)
            self.rows[key] = label
        grid.setColumnStretch(1, 1)
        self.codes = code_table()
        layout = QVBoxLayout(self)
        layout.addWidget(marks)
        layout.addWidget(QLabel("Validation codes (<code>mapwright explain CODE</code> tells more):"))
        layout.addWidget(self.codes, 1)
        self.resize(560, self.sizeHint().height() + 160)


def code_table() -> QTableWidget:
    """Every code of the rule registry, family by family: code, severity (its colour's dot) and title; a row's
    tooltip says what the code means and how to fix it."""
    table = QTableWidget(len(REGISTRY), 3)
    table.setObjectName("legendCodes")
    table.setHorizontalHeaderLabels(["Code", "Severity", "What it checks"])
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
    for row, rule in enumerate(REGISTRY.values()):
        tip = f"<p>{html.escape(rule.meaning)}</p><p><b>How to fix it:</b> {html.escape(rule.fix)}</p>"  # wraps
        severity = QTableWidgetItem(dot_icon(SEVERITY_COLOURS[rule.severity.value]), rule.severity.value)
        for column, item in enumerate((QTableWidgetItem(rule.code), severity, QTableWidgetItem(rule.title))):
            item.setToolTip(tip)
            table.setItem(row, column, item)
    table.resizeColumnsToContents()
    return table


# --- keyboard shortcuts: what the window's actions say ------------------------------------------


def _entry_text(text: str) -> str:
    """An action's text as a menu shows it: without `&` markers (`&&` is one `&`) and the trailing tab part."""
    return text.split("\t")[0].replace("&&", "\0").replace("&", "").replace("\0", "&")


def shortcut_rows(window: QWidget) -> list[tuple[str, str]]:
    """(where the action is, its shortcuts) for every action of `window` that has a shortcut: those of its menu
    bar as "Menu ▸ Entry" in menu order, then any other (a context menu's, a view's own) by its text."""
    rows: list[tuple[str, str]] = []
    seen: list[QAction] = []  # held, so an id stays an action's for the walk

    def add(action: QAction, where: str) -> None:
        keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()
                         if not k.isEmpty())
        if keys and not any(action is other for other in seen):
            seen.append(action)
            rows.append((where, keys))

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            where = f"{path} ▸ {_entry_text(action.text())}"
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, where)
            elif not action.isSeparator():
                add(action, where)

    for top in window.menuBar().actions() if isinstance(window, QMainWindow) else []:
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _entry_text(top.text()))
    for action in sorted(window.findChildren(QAction), key=lambda a: _entry_text(a.text())):
        add(action, _entry_text(action.text()))
    return rows


class ShortcutsDialog(QDialog):
    """A small, non-modal window listing every keyboard shortcut; filled from the actions each time it shows."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("shortcuts")
        self.setWindowTitle("Keyboard shortcuts — Mapwright")
        self.setModal(False)
        self.source = window
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Action", "Shortcut"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        QVBoxLayout(self).addWidget(self.table)
        self.refresh()
        self.resize(520, 560)

    def refresh(self) -> None:
        rows = shortcut_rows(self.source)
        self.table.setRowCount(len(rows))
        for i, (where, keys) in enumerate(rows):
            self.table.setItem(i, 0, QTableWidgetItem(where))
            self.table.setItem(i, 1, QTableWidgetItem(keys))

    def shown(self) -> dict[str, str]:
        """What the table lists: action -> shortcuts."""
        return {self.table.item(i, 0).text(): self.table.item(i, 1).text()  # type: ignore[union-attr]
                for i in range(self.table.rowCount())}


def show_shortcuts(window: QWidget) -> ShortcutsDialog:
    """Help ▸ Keyboard shortcuts: one window per designer window, filled again and raised each time it is asked."""
    dialog = window.findChild(ShortcutsDialog) or ShortcutsDialog(window)
    dialog.refresh()
    dialog.show()
    dialog.raise_()
    return dialog
