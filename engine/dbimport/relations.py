"""What a schema holds that an import may read: its tables, not its views nor its tables' partitions.

Views (and PostgreSQL's materialized views) are no tables of the model: a whole schema's import names them
in one note, and a view asked for by name is refused saying what it is, not as a table that does not exist.
A PostgreSQL partition is part of its partitioned table (`engine.dbimport.pgpartitions`): it is neither
listed nor imported on its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection, Inspector

from engine.dbimport.connect import ImportFailure
from engine.dbimport.pgpartitions import pg_partitions


def printable(text: str) -> str:
    """`text` with each character that is not printable (a line break, a tab) escaped: names from a database
    go into one-line messages."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def some(names: Sequence[str], limit: int = 12) -> str:
    """The first `limit` names, comma-separated, with how many there are in all when there are more."""
    shown = printable(", ".join(names[:limit]))
    return (shown + f", ... ({len(names)} in all)") if len(names) > limit else (shown or "none")


@dataclass
class Relations:
    """A schema's tables ({name as the database stores it: SQLAlchemy's name}), views and partitions."""

    tables: dict[str, str]
    views: list[str] = field(default_factory=list)
    partitions: dict[str, str] = field(default_factory=dict)  # partition -> the table it is a partition of


def read_relations(connection: Connection, inspector: Inspector, schema: str | None,
                   stored: Callable[[str], str]) -> Relations:
    """The relations of `schema` (SQLAlchemy's name; the default schema when None). `stored` gives a name
    as the database stores it."""
    tables = {stored(n): n for n in inspector.get_table_names(schema=schema)}
    partitions = pg_partitions(connection, schema) if connection.dialect.name == "postgresql" else {}
    for name in partitions:
        tables.pop(name, None)
    views = list(inspector.get_view_names(schema=schema))
    with contextlib.suppress(NotImplementedError):
        views += inspector.get_materialized_view_names(schema=schema)
    return Relations(tables, sorted({stored(v) for v in views}), partitions)


def pick(relations: Relations, wanted: Sequence[str] | None, where: str) -> list[str]:
    """Stored names of the tables asked for (all when None), matching case-insensitively when unambiguous.
    Raises `ImportFailure` for a name that is no table, saying what it is when it is a view or a partition."""
    available = relations.tables
    if wanted is None:
        return sorted(available)
    picked: list[str] = []
    for name in wanted:
        if name in available:
            picked.append(name)
            continue
        matches = [n for n in available if n.lower() == name.lower()]
        if len(matches) > 1:
            raise ImportFailure(f"table {name!r} is ambiguous: {where} has {some(sorted(matches))} "
                                "(name one exactly)")
        if not matches:
            raise ImportFailure(_not_a_table(relations, name, where))
        picked.append(matches[0])
    return list(dict.fromkeys(picked))


def _not_a_table(relations: Relations, name: str, where: str) -> str:
    view = _named(relations.views, name)
    if view is not None:
        return f"{printable(view)} is a view, not a table (views are not imported)"
    partition = _named(list(relations.partitions), name)
    if partition is not None:
        return (f"{printable(partition)} is a partition of {printable(relations.partitions[partition])} "
                "(a partition comes in with its table, not on its own)")
    return f"no table {name!r} in {where} (tables: {some(sorted(relations.tables))})"


def _named(names: list[str], name: str) -> str | None:
    """`name` among `names`, exactly or else by case when only one matches."""
    if name in names:
        return name
    matches = [n for n in names if n.lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None
