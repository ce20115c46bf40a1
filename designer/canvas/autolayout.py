"""Where tables without a saved position stand: a band per server, side by side, each band a grid.

A server with a handful of tables stays one column (its mapped tables level with their partners in the
next band); one with a dozen becomes a few columns (`columns_for`) instead of a tower that Fit shrinks to
an unreadable overview. Related tables stand near each other: the tables are taken in breadth-first
order over their relations (foreign keys when the model has any, else mappings), and each takes the free
cell nearest the related tables already placed (then swaps that bring relations closer).
Pure: no Qt, the same model and sizes give the same places.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping as MappingOf
from collections.abc import Sequence

from engine.model.schema import Model

Size = tuple[float, float]
Point = tuple[float, float]
Cell = tuple[int, int]  # (row, column)
SERVER_GAP = 250.0  # between two servers' bands: room for a mapping's method nodes, one each way on a row
COLUMN_GAP, ROW_GAP = 60.0, 40.0  # between the cells of one server's grid
BAND_HEIGHT = 1200.0  # the tallest a server's band grows before it takes another column: 600 px at 50%


def relations(model: Model) -> dict[str, list[str]]:
    """Each table's related tables, in model order: by foreign keys (to tables of its server the model
    has) when any table has one, else by mappings (source and target)."""
    order = {t.key: i for i, t in enumerate(model.tables)}
    pairs: set[tuple[str, str]] = set()
    if any(t.foreign_keys for t in model.tables):
        pairs = {(t.key, f"{t.server}.{fk.references}") for t in model.tables for fk in t.foreign_keys}
    else:
        pairs = {(m.source, m.target) for m in model.mappings}
    out: dict[str, set[str]] = {key: set() for key in order}
    for a, b in pairs:
        if a in order and b in order and a != b:
            out[a].add(b)
            out[b].add(a)
    return {key: sorted(near, key=order.__getitem__) for key, near in out.items()}


def reading_order(keys: Sequence[str], near: MappingOf[str, Sequence[str]]) -> list[str]:
    """`keys` breadth first over `near`, a related group at a time (groups in the order of their first
    table); each group starts from its most related table, so that its neighbours can stand around it."""
    rank = {key: i for i, key in enumerate(keys)}
    seen: set[str] = set()
    out: list[str] = []
    for first in keys:
        if first in seen:
            continue
        group, queue = [first], deque([first])
        seen.add(first)
        while queue:
            for other in near.get(queue.popleft(), ()):
                if other not in seen:
                    seen.add(other)
                    group.append(other)
                    queue.append(other)
        start = max(group, key=lambda k: (len(near.get(k, ())), -rank[k]))
        out += _bfs(start, near, set(group))
    return out


def _bfs(start: str, near: MappingOf[str, Sequence[str]], group: set[str]) -> list[str]:
    out, queue, seen = [start], deque([start]), {start}
    while queue:
        for other in near.get(queue.popleft(), ()):
            if other in group and other not in seen:
                seen.add(other)
                out.append(other)
                queue.append(other)
    return out


def grid(keys: Sequence[str], columns: int, near: MappingOf[str, Sequence[str]]) -> dict[str, Cell]:
    """Cells for `keys` (in reading order) in a grid of `columns`: each key takes the free cell nearest its
    related keys already placed (the first related one the middle cell, so that its relations fit around
    it), a key with none the first free cell in reading order. Only the cells near a key's relations are
    weighed: thousands of tables are placed in linear time."""
    rows = math.ceil(len(keys) / columns) if keys else 0
    free = dict.fromkeys([(r, c) for r in range(rows) for c in range(columns)][:len(keys)])  # reading order
    members = set(keys)
    placed: dict[str, Cell] = {}
    for key in keys:
        around = [placed[k] for k in near.get(key, ()) if k in placed]
        cell = next(iter(free))
        if around:
            spots = {(a[0] + dr, a[1] + dc) for a in around[:8] for dr in range(-2, 3) for dc in range(-2, 3)}
            spots &= free.keys()
            if spots:
                cell = min(spots, key=lambda f: (sum(max(abs(f[0] - a[0]), abs(f[1] - a[1])) for a in around), f))
        elif not placed and any(k in members for k in near.get(key, ())):
            middle = ((rows - 1) // 2, (columns - 1) // 2)
            cell = middle if middle in free else cell
        del free[cell]
        placed[key] = cell
    return _tighten(placed, near, rows, columns)


def _tighten(cells: dict[str, Cell], near: MappingOf[str, Sequence[str]], rows: int, columns: int) -> dict[str, Cell]:
    """Swap tables (or move one to an empty cell) two cells around at most, while that brings related tables
    closer: the greedy placement leaves a late table's relations wherever room was left."""
    at = {cell: key for key, cell in cells.items()}

    def cost(key: str | None, cell: Cell) -> int:
        return 0 if key is None else sum(max(0, abs(cell[0] - o[0]) - 1, abs(cell[1] - o[1]) - 1)
                                         for o in (cells[k] for k in near.get(key, ()) if k in cells))

    for _ in range(8):
        better = False
        for key in list(cells):
            for spot in [(cells[key][0] + dr, cells[key][1] + dc) for dr in range(-2, 3) for dc in range(-2, 3)]:
                here, other = cells[key], at.get(spot)
                if spot == here or not (0 <= spot[0] < rows and 0 <= spot[1] < columns):
                    continue
                before = cost(key, here) + cost(other, spot)
                cells[key] = spot
                if other is not None:
                    cells[other] = here
                if cost(key, spot) + cost(other, here) < before:
                    at[spot], better = key, True
                    if other is None:
                        del at[here]
                    else:
                        at[here] = other
                else:
                    cells[key] = here
                    if other is not None:
                        cells[other] = spot
        if not better:
            break
    return cells


def _band(cells: MappingOf[str, Cell], sizes: MappingOf[str, Size], left: float) -> tuple[dict[str, Point], Size]:
    """Top-left corners of a band's cells from `left` (rows as tall as their tallest table), and its size."""
    if not cells:
        return {}, (0.0, 0.0)
    width = max(sizes[k][0] for k in cells)
    heights: dict[int, float] = {}
    for key, (row, _) in cells.items():
        heights[row] = max(heights.get(row, 0.0), sizes[key][1])
    tops, y = {}, 0.0
    for row in sorted(heights):
        tops[row] = y
        y += heights[row] + ROW_GAP
    columns = max(c for _, c in cells.values()) + 1
    out = {key: (left + col * (width + COLUMN_GAP), tops[row]) for key, (row, col) in cells.items()}
    return out, (columns * width + (columns - 1) * COLUMN_GAP, y - ROW_GAP)


def layout(model: Model, sizes: MappingOf[str, Size]) -> dict[str, Point]:
    """Top-left corners for every table of `model`, whose node sizes (width, height) are `sizes` by key:
    the servers' bands left to right in model order (a table of an unknown server in the first band)."""
    near = relations(model)
    ordered = reading_order([t.key for t in model.tables], near)
    servers = [s.id for s in model.servers]
    band_of = {t.key: servers.index(t.server) if t.server in servers else 0 for t in model.tables}
    bands: list[list[str]] = [[] for _ in range(max(1, len(servers)))]
    for key in ordered:
        bands[band_of[key]].append(key)
    bands = [b for b in bands if b]
    out: dict[str, Point] = {}
    left = 0.0
    for keys in bands:
        places, (width, _) = _band(grid(keys, columns_for(keys, sizes), near), sizes, left)
        out.update(places)
        left += width + SERVER_GAP
    return out


def columns_for(keys: Sequence[str], sizes: MappingOf[str, Size]) -> int:
    """How many columns a server's band has: the fewest that keep it within `BAND_HEIGHT` (a canvas's height
    at a legible zoom), at most the square root of its table count (a huge server stays a rough square).
    It depends on the band's own tables alone: an edit of another server moves none of them."""
    most = max(1, math.ceil(math.sqrt(len(keys))))
    for columns in range(1, most):
        if _band({k: divmod(i, columns) for i, k in enumerate(keys)}, sizes, 0.0)[1][1] <= BAND_HEIGHT:
            return columns
    return most
