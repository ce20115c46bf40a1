"""The model file, as pydantic models (docs/contract.md §1).

Entities are plain values: an edit builds a new entity and replaces the old
one (see `engine.edits`), so the model never holds half-applied changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from engine.core.types import SqlType, parse_type, type_name
from engine.limits import MAX_METHOD_DEPTH
from engine.model.methods import METHODS_TOO_DEEP, MethodSpec, method_depth
from engine.sql import parse_expression

Dbms = Literal["oracle", "db2", "mssql", "informix", "ase", "postgresql", "mysql", "sqlite", "other"]
FORMAT_MAJOR = 1
FORMAT = f"mapwright/{FORMAT_MAJOR}"


class _Entity(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, populate_by_name=True)


class Server(_Entity):
    id: str = Field(min_length=1)
    dbms: Dbms
    priority: int | float | None = None  # int first: 30 is saved as 30, not 30.0
    float_format: str | None = None
    replica_identity: Literal["full", "default"] = Field(
        "full", description="what a captured before image holds: every column (full) or only the key "
        "columns (default, PostgreSQL's REPLICA IDENTITY DEFAULT); missing old values are then unknown")


class Generated(_Entity):
    """A generated (computed) column: the database computes it from `expression`, in the server's SQL."""

    expression: str = Field(min_length=1)
    stored: bool = True  # False: virtual, computed on read (PostgreSQL 18, MySQL, Oracle)


class Identity(_Entity):
    """An identity column or the sequence behind a serial: where its numbers start and how they step."""

    always: bool = False  # GENERATED ALWAYS (True) or BY DEFAULT
    start: int = 1
    increment: int = 1


class EnumValues(_Entity):
    """The values an enumerated type allows, in their order; `name` is the type's name where it has one."""

    name: str | None = None
    values: list[str] = Field(min_length=1)


class ColumnDef(_Entity):
    name: str = Field(min_length=1)
    type: str
    nullable: bool = True
    default: str | int | float | bool | None = None
    storage: Literal["inrow", "blobspace", "sbspace"] | None = None
    stream_support: bool | None = None
    generated: Generated | None = None
    identity: Identity | None = None
    enum: EnumValues | None = None
    comment: str | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        return type_name(value)

    @property
    def sql_type(self) -> SqlType:
        return _parsed(self.type)


class UniqueIndex(_Entity):
    name: str = Field(min_length=1)
    columns: list[str] = Field(min_length=1)


class Index(_Entity):
    """A non-unique index (unique ones are `unique_indexes`, which identify rows)."""

    name: str = Field(min_length=1)
    columns: list[str] = Field(min_length=1)


ReferentialAction = Literal["no_action", "restrict", "cascade", "set_null", "set_default"]


class ForeignKey(_Entity):
    """`columns` of this table reference `referenced_columns` of table `references` on the same server."""

    name: str | None = None
    columns: list[str] = Field(min_length=1)
    references: str = Field(min_length=1)
    referenced_columns: list[str] = Field(min_length=1)
    on_delete: ReferentialAction = "no_action"
    on_update: ReferentialAction = "no_action"


class Check(_Entity):
    """A check constraint; `sql` is its condition in the server's SQL."""

    name: str | None = None
    sql: str = Field(min_length=1)


class Partition(_Entity):
    name: str = Field(min_length=1)
    bound: str = Field(min_length=1)  # e.g. FOR VALUES FROM (1) TO (1000), in the server's SQL


class Partitioning(_Entity):
    """A partitioned table: one table whose rows the database keeps in `partitions`."""

    method: Literal["range", "list", "hash"]
    columns: list[str] = Field(min_length=1)
    partitions: list[Partition] = Field(default_factory=list)
    publish_via_partition_root: bool = True


class RepDefColumn(_Entity):
    name: str = Field(min_length=1)
    type: str | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str | None) -> str | None:
        if value is not None:
            type_name(value)
        return value


def _bare_name(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


class ReplicationDefinition(_Entity):
    version: int
    columns: list[Annotated[RepDefColumn, BeforeValidator(_bare_name, json_schema_input_type=str | RepDefColumn)]]


class Table(_Entity):
    server: str = Field(min_length=1)
    name: str = Field(min_length=1)
    columns: list[ColumnDef] = Field(default_factory=list)
    primary_key: list[str] = Field(default_factory=list)
    unique_indexes: list[UniqueIndex] = Field(default_factory=list)
    parent: str | None = None
    replication_definitions: list[ReplicationDefinition] | None = None
    db_schema: str | None = Field(None, alias="schema", min_length=1,
                                  description="the database schema the table lives in, where the model keeps it")
    comment: str | None = None
    indexes: list[Index] = Field(default_factory=list)
    foreign_keys: list[ForeignKey] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    partitioning: Partitioning | None = None

    @property
    def key(self) -> str:
        return f"{self.server}.{self.name}"

    def column(self, name: str) -> ColumnDef | None:
        for col in self.columns:
            if col.name == name:
                return col
        return None

    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def unique_sets(self) -> list[list[str]]:
        """The primary key (if any) then each unique index: the column sets that identify a row."""
        sets = [self.primary_key] if self.primary_key else []
        return sets + [ux.columns for ux in self.unique_indexes]

    def is_unique(self, columns: set[str]) -> bool:
        """A set counts as unique when it contains every column of the primary key or of a unique index."""
        return any(set(s) <= columns for s in self.unique_sets())

    def latest_definition(self) -> ReplicationDefinition | None:
        if not self.replication_definitions:
            return None
        return max(self.replication_definitions, key=lambda d: d.version)


class Mapping(_Entity):
    id: str = Field(min_length=1)
    source: str
    target: str
    columns: dict[str, MethodSpec] = Field(default_factory=dict)
    distribution_key: list[str] | None = None
    journal: bool = False
    where: str | None = None
    reverse: str | None = None
    changed_columns_only: bool = False

    @field_validator("columns")
    @classmethod
    def _bounded_methods(cls, value: dict[str, MethodSpec]) -> dict[str, MethodSpec]:
        for name, method in value.items():
            if method_depth(method) > MAX_METHOD_DEPTH:
                raise ValueError(f"{name}: {METHODS_TOO_DEEP}")
        return value

    @field_validator("where")
    @classmethod
    def _bounded_where(cls, value: str | None) -> str | None:
        """A clause beyond the SQL limits is refused here; one that merely does not parse is MP003."""
        if value is not None:
            parsed = parse_expression(value)
            if parsed.beyond_limits:
                raise ValueError(f"the where clause {parsed.problem}")
        return value


ResolutionMethodName = Literal[
    "latest_timestamp", "earliest_timestamp", "minimum", "maximum", "additive", "average",
    "overwrite", "discard", "priority_group", "site_priority",
]
DESIGNATED_COLUMN_METHODS = ("latest_timestamp", "earliest_timestamp", "minimum", "maximum", "priority_group")
TIMESTAMP_METHODS = ("latest_timestamp", "earliest_timestamp")


class Resolution(_Entity):
    method: ResolutionMethodName
    column: str | None = None
    priorities: dict[str, int | float] | None = None


class ColumnGroup(_Entity):
    name: str = Field(min_length=1)
    columns: list[str] = Field(default_factory=list)
    resolution: list[Resolution] = Field(default_factory=list)


class UniqueResolution(_Entity):
    index: str
    resolution: Literal["append_site_name", "append_sequence", "discard", "error"]


class TableConflicts(_Entity):
    table: str
    column_groups: list[ColumnGroup] = Field(default_factory=list)
    unique: list[UniqueResolution] = Field(default_factory=list)
    on_insert_exists: Literal["error", "discard", "overwrite", "as_update"] = "error"
    on_update_missing: Literal["error", "discard", "insert"] = "error"
    on_delete_missing: Literal["error", "discard"] = "error"
    compare_old: dict[str, bool] = Field(default_factory=dict)
    scope: Literal["row", "transaction"] = "row"


class Model(_Entity):
    format: str
    name: str = ""
    servers: list[Server] = Field(default_factory=list)
    protected: bool = False
    float_transfer: Literal["ieee", "canonical"] | None = None
    tables: list[Table] = Field(default_factory=list)
    mappings: list[Mapping] = Field(default_factory=list)
    conflicts: list[TableConflicts] = Field(default_factory=list)
    layout: dict[str, Annotated[list[int | float], Field(min_length=2, max_length=2)]] = Field(
        default_factory=dict, description="designer positions of tables by key (srv.T); no rule reads it")

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        family, _, version = value.partition("/")
        shown = value if len(value) <= 40 else f"{value[:37]}..."
        major = version.split(".")[0]
        if family != "mapwright" or not major.isdigit() or len(major) > 9:
            raise ValueError(f"not a Mapwright model format: {shown!r} (expected {FORMAT!r})")
        if int(major) != FORMAT_MAJOR:
            raise ValueError(f"format {shown!r} is a version this Mapwright cannot read (it reads {FORMAT})")
        return value

    # Lookups. Rules call these often; they are cheap scans on models of
    # hundreds of tables, and the index below makes them constant time.

    def server(self, server_id: str) -> Server | None:
        return self.index().servers.get(server_id)

    def table(self, key: str) -> Table | None:
        return self.index().tables.get(key)

    def mapping(self, mapping_id: str) -> Mapping | None:
        return self.index().mappings.get(mapping_id)

    def conflicts_for(self, table_key: str) -> TableConflicts | None:
        return self.index().conflicts.get(table_key)

    def index(self) -> ModelIndex:
        """Lookups by id. Edits replace entities through `engine.edits`, which drops the index."""
        idx = self.__dict__.get("_index")
        if idx is None or not idx.matches(self):
            idx = ModelIndex(self)
            self.__dict__["_index"] = idx
        return idx

    def drop_index(self) -> None:
        self.__dict__.pop("_index", None)


class ModelIndex:
    """Dictionaries over a model's entity lists."""

    def __init__(self, model: Model) -> None:
        self._lists: tuple[list[Any], ...] = (model.servers, model.tables, model.mappings, model.conflicts)
        self._lengths = tuple(len(x) for x in self._lists)
        self.servers = {s.id: s for s in model.servers}
        self.tables = {t.key: t for t in model.tables}
        self.mappings = {m.id: m for m in model.mappings}
        self.conflicts = {c.table: c for c in model.conflicts}

    def matches(self, model: Model) -> bool:
        """A cheap guard against lists swapped or resized behind the edits' back."""
        lists: tuple[list[Any], ...] = (model.servers, model.tables, model.mappings, model.conflicts)
        return all(a is b and len(a) == n for a, b, n in zip(lists, self._lists, self._lengths, strict=True))


_TYPE_CACHE: dict[str, SqlType] = {}


def _parsed(text: str) -> SqlType:
    found = _TYPE_CACHE.get(text)
    if found is None:
        found = _TYPE_CACHE[text] = parse_type(text)
    return found
