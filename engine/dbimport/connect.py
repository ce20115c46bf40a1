"""Connecting to the database an import reads, without ever writing a password down.

A URL is SQLAlchemy's (`postgresql://me@db.example.com:5432/sales`). The password comes, in this order,
from the caller (the designer's password field), from an environment variable the URL names with the
query parameter `password_env` (`postgresql://me@host/sales?password_env=PGPASS`; the parameter is
removed before connecting), from the URL itself, or from `prompt` when the server asks for one. URLs are
shown with the password hidden, and every message is scrubbed of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.pool import NullPool

PASSWORD_ENV = "password_env"
CONNECT_TIMEOUT_S = 10

DBMS_BY_DIALECT = {"postgresql": "postgresql", "oracle": "oracle", "mssql": "mssql", "mysql": "mysql",
                   "mariadb": "mysql", "sqlite": "sqlite", "ibm_db_sa": "db2", "db2": "db2", "sybase": "ase",
                   "informix": "informix"}
DEFAULT_DRIVERS = {"postgresql": "postgresql+psycopg"}  # psycopg 3 is installed with Mapwright; psycopg2 may not be
DRIVER_PACKAGES = {"psycopg": "psycopg[binary]", "psycopg2": "psycopg2-binary", "oracledb": "oracledb",
                   "cx_oracle": "cx_Oracle", "pyodbc": "pyodbc", "pymssql": "pymssql", "pymysql": "PyMySQL",
                   "mysqldb": "mysqlclient", "ibm_db_sa": "ibm_db_sa"}


class ImportFailure(Exception):
    """An import that cannot be done; the message is one line for the user, with no password in it."""


class PasswordNeeded(ImportFailure):
    """The server asks for a password and none was given."""


Prompt = Callable[[str], str]


@dataclass(frozen=True)
class Source:
    """Where to connect: the URL with its password (never shown), and how to show it."""

    url: URL

    @property
    def shown(self) -> str:
        return display_url(self.url)

    @property
    def dbms(self) -> str:
        return DBMS_BY_DIALECT.get(self.url.get_backend_name(), "other")

    def scrub(self, text: str) -> str:
        """`text` (an error from a driver) as one line without the password in it."""
        line = " ".join(text.strip().split("\n")[0].split()) or "unknown error"
        secrets = [str(self.url.password)] if self.url.password else []
        for name, value in self.url.query.items():
            values = [value] if isinstance(value, str) else list(value)
            secrets += values if _secret(name) else [s for v in values for s in _pair_secrets(v)]
        for secret in sorted(filter(None, secrets), key=len, reverse=True):
            line = line.replace(secret, "***")
        return line


SECRET_PARAMETER = re.compile(r"pass|pwd|secret|token", re.IGNORECASE)
"""Query parameters whose values are never shown (`password`, `sslpassword`...); not `password_env`, which
names the environment variable that holds the password."""


def _secret(name: str) -> bool:
    return name != PASSWORD_ENV and SECRET_PARAMETER.search(name) is not None


PAIR = re.compile(r"(?P<key>[^=;]*)=(?P<value>\{(?:[^}]|\}\})*\}|[^;]*)(?:;|$)")
"""One `KEY=value;` of a connection string in a query parameter (pyodbc's `odbc_connect=DRIVER=...;PWD=...`),
a value in braces (`{a;b}}c}`) taken whole."""


def _pair_secrets(value: str) -> list[str]:
    """The passwords in a query parameter's connection string (`PWD={x}` gives `{x}` and `x`)."""
    found: list[str] = []
    for pair in PAIR.finditer(value):
        if _secret(pair["key"].strip()) and pair["value"]:
            braced = pair["value"]
            found += [braced, braced[1:-1].replace("}}", "}")] if braced.startswith("{") else [braced]
    return found


def _without_secret_pairs(value: str) -> str:
    """A query parameter's value with each `PWD=...;` of its connection string left out."""
    return PAIR.sub(lambda pair: "" if _secret(pair["key"].strip()) else pair[0], value)


def display_url(url: URL | str) -> str:
    """A URL as text that is safe to show and to remember: no password, in its user part or its query (a
    secret query parameter is left out, and so is a password inside a parameter that holds a whole
    connection string, as pyodbc's `odbc_connect` does)."""
    if isinstance(url, str):
        try:
            url = make_url(url)
        except Exception:
            return "(not a database URL)"
    query = {k: _without_secret_pairs(v) if isinstance(v, str) else tuple(_without_secret_pairs(x) for x in v)
             for k, v in url.query.items() if not _secret(k)}
    return url.set(query=query)._replace(password=None).render_as_string(hide_password=False)  # set() ignores None


def parse_source(text: str, password: str | None = None, environ: Mapping[str, str] | None = None) -> Source:
    """The URL with its password settled (see the module's docstring); raises `ImportFailure`."""
    environ = os.environ if environ is None else environ
    try:
        url = make_url(text.strip())
    except Exception:
        raise ImportFailure(f"not a database URL: {_shown_text(text)!r} (expected e.g. "
                            "postgresql://user@host:5432/database)") from None
    query = dict(url.query)
    variable = query.pop(PASSWORD_ENV, None)
    url = url.set(query=query, drivername=DEFAULT_DRIVERS.get(url.drivername, url.drivername))
    if isinstance(variable, tuple):
        variable = variable[-1]
    if password:
        url = url.set(password=password)
    elif variable:
        if variable not in environ:
            raise ImportFailure(f"{PASSWORD_ENV}={variable}: the environment variable {variable} is not set")
        url = url.set(password=environ[variable])
    return Source(url)


def _shown_text(text: str) -> str:
    """Text that did not parse as a URL, with what may be a password in it hidden: what stands between a
    colon and an `@`, and the values of secret-looking query parameters."""
    text = re.sub(r"(?<=:)[^:@/?#]*(?=@)", "***", text)
    return re.sub(r"((?:^|[?&;])[^=&;?]*=)([^&;#]*)",
                  lambda m: m.group(1) + ("***" if _secret(m.group(1).lstrip("?&;").rstrip("=")) else m.group(2)),
                  text)


def sqlite_file(url: URL) -> Path | None:
    """The file a SQLite URL opens, None for an in-memory database or another DBMS.

    A `file:` URI (`sqlite:///file:/data/shop.db?mode=ro&uri=true`) names its file in its path, so the
    checks made on the file (it exists, it is not the model being written) apply to it too.
    """
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    if str(url.query.get("uri", "")).lower() not in ("true", "1") or not url.database.startswith("file:"):
        return Path(url.database)
    if url.query.get("mode") == "memory":
        return None
    path = unquote(urlsplit(url.database).path)
    return Path(path) if path and path != ":memory:" else None


def make_engine(source: Source) -> Engine:
    """An engine that holds no pooled connections (an import connects once or twice)."""
    url = source.url
    database = sqlite_file(url)
    if database is not None and not database.is_file():  # SQLite would create it: looking must not
        raise ImportFailure(f"{source.shown}: no such SQLite database file {str(database)!r}")
    connect_args: dict[str, object] = {}
    if url.get_backend_name() in ("postgresql", "mysql", "mariadb") and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        return sa.create_engine(url, poolclass=NullPool, connect_args=connect_args)
    except sa.exc.NoSuchModuleError:
        raise ImportFailure(f"{source.shown}: SQLAlchemy has no dialect {url.drivername!r}") from None
    except (sa.exc.ArgumentError, ValueError, TypeError) as exc:
        raise unusable_url(source, exc) from None
    except ModuleNotFoundError as exc:
        driver = url.get_driver_name()
        package = DRIVER_PACKAGES.get(driver, exc.name or driver)
        raise ImportFailure(f"{source.shown}: the database driver {driver!r} is not installed "
                            f"(pip install {package})") from None


def unusable_url(source: Source, exc: Exception) -> ImportFailure:
    """A URL that parses but that the dialect refuses when the engine is made (`sqlite://me:pw@/shop.db`,
    `sqlite://host/shop.db`: SQLite has no user nor host; `?timeout=abc`: not a number), as the one-line
    failure any other bad URL is. The dialect's own message says what it wants; it is scrubbed of the
    password (SQLAlchemy masks it as `***`, but a query value it echoes, `?password=x`, it does not)."""
    hint = " (expected sqlite:///relative/path.db or sqlite:////absolute/path.db)" \
        if source.url.get_backend_name() == "sqlite" else ""
    return ImportFailure(f"not a usable database URL: {source.shown}: {source.scrub(str(exc))}{hint}")


@contextmanager
def connected(source: Source, prompt: Prompt | None = None) -> Iterator[tuple[Source, Connection]]:
    """A connection (and the source it was made with: a prompted password lands there).

    When the server refuses for want of a password and `prompt` is given, it is asked once, then the
    connection is tried again. Raises `PasswordNeeded` or `ImportFailure`.
    """
    engine = make_engine(source)
    try:
        try:
            connection = engine.connect()
        except sa.exc.DBAPIError as exc:
            reason = source.scrub(str(exc.orig) if exc.orig is not None else str(exc))
            if not _asks_for_password(reason) or source.url.password:
                raise ImportFailure(f"cannot connect to {source.shown}: {reason}") from None
            if prompt is None:
                raise PasswordNeeded(
                    f"cannot connect to {source.shown}: the server asks for a password (put it in an environment "
                    f"variable and add ?{PASSWORD_ENV}=NAME to the URL, or run in a terminal to be asked)") from None
            engine.dispose()
            try:
                typed = prompt(f"Password for {source.shown}: ")
            except EOFError:
                raise ImportFailure(f"cannot connect to {source.shown}: no password given") from None
            source = Source(source.url.set(password=typed))
            engine = make_engine(source)
            try:
                connection = engine.connect()
            except sa.exc.DBAPIError as again:
                reason = source.scrub(str(again.orig) if again.orig is not None else str(again))
                raise ImportFailure(f"cannot connect to {source.shown}: {reason}") from None
        with connection:
            yield source, connection
    finally:
        engine.dispose()


def _asks_for_password(reason: str) -> bool:
    text = reason.lower()
    return "no password supplied" in text or "password authentication failed" in text \
        or "password is required" in text or "access denied" in text or "login failed" in text


def probe_connection(source: Source) -> str:
    """Connect once; a one-line description of the server (raises `ImportFailure`)."""
    with connected(source) as (_, connection):
        dialect = connection.dialect
        version = ".".join(str(v) for v in (dialect.server_version_info or ()))
        return f"connected to {source.shown} ({dialect.name}{' ' + version if version else ''})"
