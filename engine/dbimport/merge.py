"""Imported tables into a model: a new model, or edits that add them to an open one (one undo step).

New tables are placed to the right of everything already on the canvas, stacked in columns, so they
overlap nothing; a front end passes the sizes its table nodes really have.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.dbimport.connect import ImportFailure
from engine.dbimport.reflect import ImportedSchema, checked_server_id
from engine.dbimport.relations import printable
from engine.edits import Edit, add, chain, set_setting
from engine.model.schema import FORMAT, Model, Server, Table

Size = tuple[float, float]
Footprint = Callable[[Table], Size]
NODE_WIDTH, NODE_HEADER, NODE_ROW = 270.0, 28.0, 20.0
GAP = 60.0


def node_size(table: Table) -> Size:
    """The size of a table node on the designer's canvas (a header, then one row per column)."""
    return NODE_WIDTH, NODE_HEADER + NODE_ROW * len(table.columns)


def place(occupied: Sequence[tuple[float, float, float, float]], sizes: Sequence[Size],
          column_height: float = 1200.0) -> list[tuple[float, float]]:
    """Top-left corners for boxes of `sizes`, right of every occupied (x, y, w, h) box, in columns."""
    left = max((x + w for x, _, w, _ in occupied), default=-GAP) + GAP
    top = min((y for _, y, _, _ in occupied), default=0.0)
    height = max([column_height] + [h for _, _, _, h in occupied])
    out: list[tuple[float, float]] = []
    x, y, widest = left, top, 0.0
    for w, h in sizes:
        if y > top and y + h > top + height:
            x, y, widest = x + widest + GAP, top, 0.0
        out.append((round(x, 1), round(y, 1)))
        y += h + GAP / 2
        widest = max(widest, w)
    return out


def new_model(imported: ImportedSchema, name: str) -> Model:
    """A model holding one server and its imported tables."""
    return Model(format=FORMAT, name=name, servers=[Server(id=imported.server, dbms=imported.dbms)],  # type: ignore[arg-type]
                 tables=list(imported.tables))


def check_into(model: Model, imported: ImportedSchema, label: str = "the model") -> None:
    """Raise `ImportFailure` when the tables cannot be added: a server id Add server would refuse, a table already
    there, or the server's DBMS differs."""
    if checked_server_id(imported.server) != imported.server:
        raise ImportFailure(f"server id {imported.server!r} has spaces around it")
    server = model.server(imported.server)
    if server is not None and server.dbms != imported.dbms:
        raise ImportFailure(f"{label} has server {server.id} as {server.dbms}, but the database is {imported.dbms} "
                            f"(give --dbms {server.dbms} to import it as {server.dbms}, or another --server)")
    present = [t.key for t in imported.tables if model.table(t.key) is not None]
    if present:
        more = f" and {len(present) - 5} more" if len(present) > 5 else ""
        raise ImportFailure(f"{label} already has {printable(', '.join(present[:5]))}{more} (leave it out with "
                            "--tables, or import into another --server)")


def import_edits(model: Model, imported: ImportedSchema, footprint: Footprint | None = node_size,
                 occupied: Sequence[tuple[float, float, float, float]] | None = None) -> list[Edit]:
    """The edits that add the server (if new) and the tables, and place them on the canvas.

    `occupied` are the boxes already on the canvas (default: the model's layout, sized by `footprint`).
    With `footprint` None, or a model without any layout (the designer then lays out everything), the
    tables are not placed. Raises `ImportFailure` (see `check_into`).
    """
    check_into(model, imported)
    steps: list[Callable[[Model], list[Edit]]] = []
    if model.server(imported.server) is None:
        steps.append(lambda m: [add(m, Server(id=imported.server, dbms=imported.dbms))])  # type: ignore[arg-type]
    steps += [lambda m, t=t: [add(m, t)] for t in imported.tables]  # type: ignore[misc]
    if footprint is not None and (model.layout or occupied):
        if occupied is None:
            by_key = {t.key: t for t in model.tables}
            occupied = [(x, y, *footprint(by_key[k])) for k, (x, y) in model.layout.items() if k in by_key]
        corners = place(occupied, [footprint(t) for t in imported.tables])
        positions = {t.key: [x, y] for t, (x, y) in zip(imported.tables, corners, strict=True)}
        steps.append(lambda m: [set_setting(m, "layout", {**m.layout, **positions})])
    return chain(model, *steps)
