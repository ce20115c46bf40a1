"""The model's diagram as a file (PNG, SVG or PDF): the designer's own canvas scene, drawn offscreen.

`mapwright diagram` draws here, and so does File ▸ Export diagram… (`diagram_export`, in a child process).
The scene is the canvas's (`MappingScene`, laid out as the canvas lays it out, with its findings marks), plus
a label naming each mapping, which the canvas shows only in tooltips. The file is written whole or not at all
(a temporary file renamed over it).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPageSize, QPainter, QPalette, QPdfWriter, QPen
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from designer.canvas.items import colour
from designer.canvas.overview import font_metrics
from designer.canvas.scene import MappingScene
from designer.document import Document
from engine.model import Model
from engine.model.io import one_line, write_atomic

FILTERS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "pdf": "PDF document (*.pdf)"}
PAD = 30.0  # room around the drawing
PNG_SCALE = 1.0  # pixels per canvas unit: the canvas at 100% (zoomed, the canvas clips its tables' DBMS labels)
MAX_PIXELS, MAX_SIDE = 40_000_000, 16_000  # a huge model's PNG is drawn smaller (the canvas's overview below 45%)
PDF_MAX_SIDE = 14_400.0  # points (200 inches): the largest page PDF readers accept
NOT_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # control characters XML 1.0 cannot hold, even escaped


class DiagramError(ValueError):
    """A diagram that cannot be made (an unknown suffix or server); the message is one line for the user."""


def diagram_kind(path: Path) -> str:
    """`png`, `svg` or `pdf`, from the file name's suffix (any case)."""
    kind = path.suffix.lower().lstrip(".")
    if kind not in FILTERS:
        shown = f"suffix {one_line(path.suffix)!r}" if path.suffix else "no suffix"
        raise DiagramError(f"{one_line(str(path))}: {shown}; a diagram is a .png, .svg or .pdf file")
    return kind


def server_model(model: Model, server: str) -> Model:
    """Only `server`'s tables, the mappings between them and their conflict settings."""
    if model.server(server) is None:
        known = ", ".join(one_line(s.id) for s in model.servers) or "none"
        raise DiagramError(f"--server {one_line(server)}: no such server in the model (its servers: {known})")
    keys = {t.key for t in model.tables if t.server == server}
    mappings = [m for m in model.mappings if m.source in keys and m.target in keys]
    ids = {m.id for m in mappings}
    mappings = [m if m.reverse is None or m.reverse in ids else m.model_copy(update={"reverse": None})
                for m in mappings]  # a pair's other half is not drawn: no dashed link to a table that is not there
    part = model.model_copy(update={
        "servers": [s for s in model.servers if s.id == server],
        "tables": [t for t in model.tables if t.key in keys], "mappings": mappings,
        "conflicts": [c for c in model.conflicts if c.table in keys],
        "layout": {k: v for k, v in model.layout.items() if k in keys}})
    part.drop_index()  # the copy holds the whole model's lookups otherwise
    return part


class MappingLabel(QGraphicsItem):
    """A mapping's id, on a rounded background, above the two tables it joins."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = one_line(text)
        self.font = QFont(QApplication.font())
        self.font.setItalic(True)
        width = font_metrics(self.font).horizontalAdvance(self.text) + 12
        self.rect = QRectF(0, 0, width, font_metrics(self.font).height() + 6)
        self.setZValue(3)

    def boundingRect(self) -> QRectF:
        return self.rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(colour(QPalette.ColorRole.Mid), 1))
        back = colour(QPalette.ColorRole.Window)
        back.setAlpha(230)
        painter.setBrush(back)
        painter.drawRoundedRect(self.rect, 6, 6)
        painter.setFont(self.font)
        painter.setPen(colour(QPalette.ColorRole.WindowText))
        painter.drawText(self.rect, Qt.AlignmentFlag.AlignCenter, self.text)


class Spots:
    """Rectangles already taken (tables and labels), in cells of a grid: a label moves up until it is clear."""

    CELL = 200.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[QRectF]] = {}

    def _cells(self, rect: QRectF) -> list[tuple[int, int]]:
        c = self.CELL
        return [(x, y) for x in range(int(rect.left() // c), int(rect.right() // c) + 1)
                for y in range(int(rect.top() // c), int(rect.bottom() // c) + 1)]

    def free(self, rect: QRectF) -> bool:
        return not any(rect.intersects(r) for cell in self._cells(rect) for r in self.cells.get(cell, ()))

    def take(self, rect: QRectF) -> None:
        for cell in self._cells(rect):
            self.cells.setdefault(cell, []).append(rect)


def label_mappings(scene: MappingScene) -> None:
    """Name each drawn mapping: its id centred between its two tables, just above them, clear of tables and
    of the labels already placed (a pair's two ids stack)."""
    spots = Spots()
    for table in scene.tables.values():
        spots.take(table.sceneBoundingRect())
    for mapping in scene.model.mappings:
        source, target = scene.tables.get(mapping.source), scene.tables.get(mapping.target)
        if source is None or target is None:
            continue
        a, b = source.sceneBoundingRect(), target.sceneBoundingRect()
        label = MappingLabel(mapping.id)
        size = label.rect
        rect = QRectF(QPointF((a.center().x() + b.center().x() - size.width()) / 2,
                              min(a.top(), b.top()) - size.height() - 4), size.size())
        while not spots.free(rect):
            rect.translate(0, -size.height() - 2)
        spots.take(rect)
        label.setPos(rect.topLeft())
        scene.addItem(label)


def render(scene: MappingScene, kind: str, title: str) -> bytes:
    """The scene's items drawn as a `kind` file's bytes, on the canvas's background colour."""
    for table in scene.tables.values():
        table.setCacheMode(QGraphicsItem.CacheMode.NoCache)  # a cached table is a picture: its text would be lost
    source = scene.itemsBoundingRect().adjusted(-PAD, -PAD, PAD, PAD)
    background = colour(QPalette.ColorRole.Base)
    screen = QApplication.primaryScreen()
    dpi = round(screen.logicalDotsPerInch()) if screen is not None else 96
    if kind == "png":
        return _png(scene, source, background)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if kind == "svg":
        svg = QSvgGenerator()
        svg.setOutputDevice(buffer)
        svg.setResolution(dpi)  # a canvas unit is a pixel of the screen the canvas's fonts are measured on
        svg.setSize(QSize(math.ceil(source.width()), math.ceil(source.height())))
        svg.setViewBox(QRectF(0, 0, source.width(), source.height()))
        svg.setTitle(title)
        svg.setDescription("A Mapwright replication mapping diagram")
        _draw(svg, scene, QRectF(0, 0, source.width(), source.height()), source, background)
        return NOT_XML.sub("\N{REPLACEMENT CHARACTER}".encode(), bytes(buffer.data().data()))
    pdf = QPdfWriter(buffer)
    pdf.setResolution(dpi)  # a canvas unit is a device pixel, as for the SVG
    scale = min(72 / dpi, PDF_MAX_SIDE / max(source.width(), source.height()))  # points per canvas unit
    pdf.setPageSize(QPageSize(QSizeF(source.width() * scale, source.height() * scale), QPageSize.Unit.Point,
                              "diagram", QPageSize.SizeMatchPolicy.ExactMatch))
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0))
    pdf.setTitle(title)
    pdf.setCreator("Mapwright")
    _draw(pdf, scene, QRectF(0, 0, pdf.width(), pdf.height()), source, background)
    return bytes(buffer.data().data())


def _png(scene: MappingScene, source: QRectF, background: QColor) -> bytes:
    area = source.width() * source.height()
    scale = min(PNG_SCALE, (MAX_PIXELS / area) ** 0.5, MAX_SIDE / max(source.width(), source.height()))
    image = QImage(max(1, int(source.width() * scale)), max(1, int(source.height() * scale)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    _draw(image, scene, QRectF(image.rect()), source, background)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # the stub says bytes; PySide6 takes str
        raise OSError(f"the PNG of {image.width()} x {image.height()} pixels could not be encoded")
    return bytes(data.data())


def _draw(device: QImage | QSvgGenerator | QPdfWriter, scene: MappingScene, target: QRectF, source: QRectF,
          background: QColor) -> None:
    painter = QPainter()
    if not painter.begin(device):
        raise OSError("the diagram could not be drawn (Qt refused the output)")
    try:
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(target, background)
        scene.render(painter, target, source, Qt.AspectRatioMode.KeepAspectRatio)
    finally:
        painter.end()


def write_diagram(document: Document, out: Path) -> None:
    """Draw `document`'s model to `out` (its suffix says the format). Raises `DiagramError` or `OSError` (the
    caller says when `out` is the model's own file)."""
    kind = diagram_kind(out)
    if not out.parent.is_dir():  # said before the drawing, not after it
        raise FileNotFoundError(2, "No such file or directory", str(out.parent))
    scene = MappingScene(document)
    try:
        label_mappings(scene)
        data = render(scene, kind, one_line(document.model.name or (document.path.stem if document.path else "model")))
    finally:  # the scene would follow the document's edits until it goes
        document.sig_changed.disconnect(scene.apply_edits)
        document.sig_findings.disconnect(scene.show_findings)
        scene.clear()
        scene.deleteLater()
    write_atomic(out, data)


def write_model_diagram(model: Model, out: Path, server: str | None = None) -> None:
    """`mapwright diagram`: draw `model` (only `server`'s part when given) to `out`, without a display."""
    diagram_kind(out)
    if server is not None:
        model = server_model(model, server)
    app = _application()
    document = Document(model)
    try:
        write_diagram(document, out)
    finally:
        document.deleteLater()
        app.sendPostedEvents(None, 0)  # delete the scene and document now, not at interpreter exit (a crash)


def _application() -> QApplication:
    """The running application, or a new one on the offscreen platform: a file needs no screen, and Qt's
    X11 platform aborts the process when a library it needs is missing."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication(["mapwright"])
    _KEEP.append(app)
    return app


_KEEP: list[QApplication] = []
