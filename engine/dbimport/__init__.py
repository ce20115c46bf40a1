"""`mapwright import`: tables of a live database into a model, through SQLAlchemy (headless).

`read_database` connects, reflects and closes; the designer calls the same pieces off its GUI thread.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

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
from engine.dbimport.reflect import (
    ImportedSchema,
    ImportNote,
    Progress,
    checked_server_id,
    list_schemas,
    list_tables,
    reflect_tables,
)


def read_database(source: Source, server: str, dbms: str | None = None, schema: str | None = None,
                  tables: Sequence[str] | None = None, progress: Progress | None = None,
                  prompt: Prompt | None = None) -> ImportedSchema:
    """Connect (asking `prompt` for a password if the server wants one), reflect, disconnect. A server id
    Add server would refuse is refused first, before connecting (`checked_server_id`)."""
    server = checked_server_id(server)
    with connected(source, prompt) as (used, connection), _read_failures(used):
        return reflect_tables(connection, server, dbms, schema, tables, progress)


def read_listing(source: Source, schema: str | None = None,
                 prompt: Prompt | None = None) -> tuple[str | None, list[str], list[str]]:
    """Connect, read the default schema, every schema and the tables of `schema` (else the default's),
    disconnect: what a user picks tables from."""
    with connected(source, prompt) as (used, connection), _read_failures(used):
        default, schemas = list_schemas(connection)
        return default, schemas, list_tables(connection, schema or default)


@contextmanager
def _read_failures(used: Source) -> Iterator[None]:
    """A database error while reading as one `ImportFailure` line naming the database (its password
    scrubbed), never the driver's exception: a file that is no SQLite database, a catalog query refused."""
    try:
        yield
    except sa.exc.SQLAlchemyError as exc:
        reason = str(exc.orig) if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None else str(exc)
        raise ImportFailure(f"reading {used.shown}: {used.scrub(reason)}") from None


__all__ = [
    "PASSWORD_ENV", "ImportFailure", "ImportNote", "ImportedSchema", "PasswordNeeded", "Progress", "Prompt",
    "Source", "check_into", "checked_server_id", "connected", "display_url", "import_edits", "list_schemas",
    "list_tables", "new_model", "node_size", "parse_source", "place", "probe_connection", "read_database",
    "read_listing", "reflect_tables",
    "sqlite_file",
]
