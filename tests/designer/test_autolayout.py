"""Imported models laid out legibly (issue 37, item 2): a band per server, a grid of a few columns inside it,
tables related by foreign keys (else mappings) side by side; Fit shows an 11-table import with its rows and
whole names, and the overview never clips a name that fits."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from windows import make_window

from designer.canvas import autolayout
from designer.canvas.items import HEADER, OVERVIEW_LOD, ROW, WIDTH, ColumnRow, TableItem, TableLook, font_metrics
from engine.dbimport import read_database
from engine.dbimport.connect import parse_source
from engine.dbimport.merge import new_model
from engine.model.io import save_model
from engine.model.schema import Model

CHINOOK = """
CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY, Title NVARCHAR(160) NOT NULL,
    ArtistId INTEGER NOT NULL REFERENCES Artist (ArtistId));
CREATE TABLE Employee (EmployeeId INTEGER PRIMARY KEY, LastName NVARCHAR(20) NOT NULL,
    FirstName NVARCHAR(20) NOT NULL, Title NVARCHAR(30), ReportsTo INTEGER REFERENCES Employee (EmployeeId),
    BirthDate DATETIME, HireDate DATETIME, Address NVARCHAR(70), City NVARCHAR(40), State NVARCHAR(40),
    Country NVARCHAR(40), PostalCode NVARCHAR(10), Phone NVARCHAR(24), Fax NVARCHAR(24), Email NVARCHAR(60));
CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, FirstName NVARCHAR(40) NOT NULL,
    LastName NVARCHAR(20) NOT NULL, Company NVARCHAR(80), Address NVARCHAR(70), City NVARCHAR(40),
    State NVARCHAR(40), Country NVARCHAR(40), PostalCode NVARCHAR(10), Phone NVARCHAR(24), Fax NVARCHAR(24),
    Email NVARCHAR(60) NOT NULL, SupportRepId INTEGER REFERENCES Employee (EmployeeId));
CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER NOT NULL REFERENCES Customer (CustomerId),
    InvoiceDate DATETIME NOT NULL, BillingAddress NVARCHAR(70), BillingCity NVARCHAR(40),
    BillingState NVARCHAR(40), BillingCountry NVARCHAR(40), BillingPostalCode NVARCHAR(10),
    Total NUMERIC(10, 2) NOT NULL);
CREATE TABLE MediaType (MediaTypeId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE Track (TrackId INTEGER PRIMARY KEY, Name NVARCHAR(200) NOT NULL,
    AlbumId INTEGER REFERENCES Album (AlbumId), MediaTypeId INTEGER NOT NULL REFERENCES MediaType (MediaTypeId),
    GenreId INTEGER REFERENCES Genre (GenreId), Composer NVARCHAR(220), Milliseconds INTEGER NOT NULL,
    Bytes INTEGER, UnitPrice NUMERIC(10, 2) NOT NULL);
CREATE TABLE InvoiceLine (InvoiceLineId INTEGER PRIMARY KEY,
    InvoiceId INTEGER NOT NULL REFERENCES Invoice (InvoiceId), TrackId INTEGER NOT NULL REFERENCES Track (TrackId),
    UnitPrice NUMERIC(10, 2) NOT NULL, Quantity INTEGER NOT NULL);
CREATE TABLE Playlist (PlaylistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE PlaylistTrack (PlaylistId INTEGER NOT NULL REFERENCES Playlist (PlaylistId),
    TrackId INTEGER NOT NULL REFERENCES Track (TrackId), PRIMARY KEY (PlaylistId, TrackId));
"""
"""The Chinook sample's eleven tables and foreign keys (the database the product side imported)."""


def imported(tmp_path: Path) -> Model:
    """Chinook, written to a real SQLite file and imported as `mapwright import` does (server `chinook`)."""
    db = tmp_path / "chinook.sqlite"
    with sqlite3.connect(db) as connection:
        connection.executescript(CHINOOK)
    connection.close()
    return new_model(read_database(parse_source(f"sqlite:///{db}"), "chinook"), "chinook")


def sizes(model: Model) -> dict[str, tuple[float, float]]:
    return {t.key: (WIDTH, HEADER + ROW * len(t.columns)) for t in model.tables}


def rect(places: dict[str, tuple[float, float]], size: dict[str, tuple[float, float]], key: str) -> QRectF:
    return QRectF(*places[key], *size[key])


def cells(rects: dict[str, QRectF]) -> dict[str, tuple[int, int]]:
    """Each box's (row, column) in the grid: the rank of its top and of its left among all the boxes'."""
    tops, lefts = sorted({r.top() for r in rects.values()}), sorted({r.left() for r in rects.values()})
    return {k: (tops.index(r.top()), lefts.index(r.left())) for k, r in rects.items()}


def beside(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Neighbours in the grid: across, down or diagonally."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def test_an_import_is_a_grid_with_its_foreign_keys_side_by_side(tmp_path: Path) -> None:
    model = imported(tmp_path)
    assert len(model.tables) == 11 and sum(len(t.foreign_keys) for t in model.tables) == 11
    size = sizes(model)
    places = autolayout.layout(model, size)
    rects = {k: rect(places, size, k) for k in places}
    assert set(rects) == {t.key for t in model.tables}
    keys = sorted(rects)
    assert not [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if rects[a].intersects(rects[b])]
    assert autolayout.layout(model, size) == places  # the same every time
    grid = cells(rects)
    assert len({c for _, c in grid.values()}) in (3, 4, 5) and len(set(grid.values())) == 11  # one table a cell
    pairs = [(t.key, f"chinook.{fk.references}") for t in model.tables for fk in t.foreign_keys
             if fk.references != t.name]
    assert [(a, b) for a, b in pairs if not beside(grid[a], grid[b])] == []  # Track's five around it, and the rest


def test_servers_stand_apart_and_mapped_tables_level(tmp_path: Path) -> None:
    """Without foreign keys, mappings relate the tables: two servers' bands never overlap (the room between
    them holds method nodes), and a table stands level with the one it maps to."""
    columns = [{"name": "ID", "type": "INTEGER", "nullable": False}, {"name": "V", "type": "VARCHAR(20)"}]
    tables = [{"server": s, "name": f"T{i}", "columns": columns, "primary_key": ["ID"]}
              for s in ("a", "b") for i in range(12)]
    order = [*range(12)]
    order.reverse()  # b's tables in the other order: their places come from the mappings, not the file
    mappings = [{"id": f"m{i}", "source": f"a.T{i}", "target": f"b.T{i}", "columns": {"ID": "ID", "V": "V"}}
                for i in order]
    model = Model.model_validate({"format": "mapwright/1", "name": "two", "servers": [
        {"id": "a", "dbms": "oracle"}, {"id": "b", "dbms": "postgresql"}], "tables": tables[:12] + tables[12:][::-1],
        "mappings": mappings})
    size = sizes(model)
    places = autolayout.layout(model, size)
    a = [rect(places, size, f"a.T{i}") for i in range(12)]
    b = [rect(places, size, f"b.T{i}") for i in range(12)]
    assert len({r.left() for r in a}) > 1  # twelve tables: more than one column
    assert max(r.right() for r in a) + autolayout.SERVER_GAP <= min(r.left() for r in b)
    assert all(ra.top() == rb.top() for ra, rb in zip(a, b, strict=True))


def _look(key: str) -> TableLook:
    return TableLook(key, "sqlite", [ColumnRow("id", "INTEGER", True, True, False),
                                     ColumnRow("name", "VARCHAR(20)", False, False, False)])


class Recording(QPainter):
    """A painter that keeps what it is asked to write, with the font and the room it is given."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.texts: list[tuple[QRectF, str, QFont]] = []

    def drawText(self, *args: Any) -> Any:  # noqa: N802 (Qt's name)
        if len(args) >= 3 and isinstance(args[0], QRectF):
            self.texts.append((QRectF(args[0]), str(args[2]), QFont(self.font())))
        return super().drawText(*args)


def test_the_overview_writes_a_long_name_whole_in_its_box(qtbot: Any) -> None:
    """Zoomed out, a two-column table's box still has room for a long name in a smaller font or on two
    lines: no name that fits is cut at the box's edge; one that fits nowhere is elided with "…"."""
    image = QImage(400, 200, QImage.Format.Format_ARGB32)
    for key, lod in (("chinook.InvoiceLine", 0.3), ("chinook.PlaylistTrack", 0.3), ("chinook.Album", 0.4),
                     ("s.T", 0.2), ("chinook.PlaylistTrack", 0.1)):
        item = TableItem(_look(key))
        painter = Recording(image)
        painter.scale(lod, lod)
        item._paint_overview(painter, lod)
        painter.end()
        [(room, text, font)] = [(r, t, f) for r, t, f in painter.texts if t.strip()]
        if lod > 0.1:
            assert text.replace("\n", "") == key
        else:
            assert text.endswith("…") and key.startswith(text[:-1])
        for line in text.split("\n"):
            assert font_metrics(font).horizontalAdvance(line) <= room.width() + 0.5, (key, line)
        assert font.pixelSize() * lod >= 6.5  # legible: about 7 pixels on screen, at least


def test_fit_shows_an_imported_model_with_its_rows_and_whole_names(qtbot: Any, tmp_path: Path) -> None:
    """View ▸ Fit (Ctrl+0, as a keyboard sends it) on the import: above the overview's zoom, so the tables
    show their rows, and each header writes its name whole. Zoomed out to the overview, the pointer on a
    table shows its whole name."""
    path = tmp_path / "chinook.json"
    save_model(imported(tmp_path), path)
    w = make_window(qtbot, tmp_path, path)
    w.view.setFocus()
    window = w.windowHandle()
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert w.view.zoom_level() > OVERVIEW_LOD
    visible = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    font = QFont(w.view.font())
    for key, item in w.scene.tables.items():
        assert visible.contains(item.sceneBoundingRect())
        assert item.header(font).name == key
    w.view.zoom(0.25 / w.view.zoom_level())
    assert w.view.zoom_level() < OVERVIEW_LOD
    item = w.scene.tables["chinook.InvoiceLine"]
    w.view.centerOn(item)
    QApplication.processEvents()
    inside = w.view.mapFromScene(item.mapToScene(QPointF(WIDTH / 2, HEADER + ROW * 2.5)))  # over a row
    QTest.mouseMove(w.view.viewport(), inside)
    QApplication.processEvents()
    assert item.toolTip().startswith("chinook.InvoiceLine (sqlite)")

