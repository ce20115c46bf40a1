"""`mapwright import`: tables of a live database into a model, through SQLAlchemy (headless).

`read_database` connects, reflects and closes; the designer calls the same pieces off its GUI thread.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from engine.dbimport.connect import (
    PASSWORD_ENV,
    ImportFailure,
    PasswordNeeded,
    Prompt,
    Source,
    connected,
    display_url,
    parse_source,
    probe_connection,
    sqlite_file,
)
from engine.dbimport.merge import check_into, import_edits, new_model, node_size, place
from engine.dbimport.reflect import ImportedSchema, ImportNote, Progress, list_schemas, list_tables, reflect_tables


def read_database(source: Source, server: str, dbms: str | None = None, schema: str | None = None,
                  tables: Sequence[str] | None = None, progress: Progress | None = None,
                  prompt: Prompt | None = None) -> ImportedSchema:
    """Connect (asking `prompt` for a password if the server wants one), reflect, disconnect."""
    with connected(source, prompt) as (used, connection):
        try:
            return reflect_tables(connection, server, dbms, schema, tables, progress)
        except sa.exc.SQLAlchemyError as exc:
            reason = str(exc.orig) if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None else str(exc)
            raise ImportFailure(f"reading {used.shown}: {used.scrub(reason)}") from None


__all__ = [
    "PASSWORD_ENV", "ImportFailure", "ImportNote", "ImportedSchema", "PasswordNeeded", "Progress", "Prompt",
    "Source", "check_into", "connected", "display_url", "import_edits", "list_schemas", "list_tables",
    "new_model", "node_size", "parse_source", "place", "probe_connection", "read_database", "reflect_tables",
    "sqlite_file",
]
