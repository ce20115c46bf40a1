"""Small builders of the example models in the catalog, so each declaration states only what it is about.

They return plain dicts in the model file's format: the documentation prints them as JSON, and a test loads
and validates each. The usual shape is two PostgreSQL servers `s` and `t`, a table `T` on each, and one
mapping `m` from `s.T` to `t.T`.
"""

from __future__ import annotations

from typing import Any

from engine.rules.rule import ModelDict

Dict = dict[str, Any]


def col(name: str, type_: str = "INTEGER", nullable: bool = True, **extra: Any) -> Dict:
    """A column; `nullable` is written only when False (true is the format's default)."""
    out: Dict = {"name": name, "type": type_}
    if not nullable:
        out["nullable"] = False
    out.update(extra)
    return out


ID = col("ID", nullable=False)
NAME = col("NAME", "VARCHAR(40)")


def table(server: str, name: str, columns: list[Dict], pk: list[str] | None = None, **extra: Any) -> Dict:
    out: Dict = {"server": server, "name": name, "columns": columns}
    if pk:
        out["primary_key"] = pk
    out.update(extra)
    return out


def mapping(id_: str, source: str, target: str, columns: dict[str, Any], **extra: Any) -> Dict:
    """A mapping; `extra` may also replace its `source` or `target`."""
    return {"id": id_, "source": source, "target": target, "columns": columns} | extra


def model(servers: list[Dict], tables: list[Dict], mappings: list[Dict] | None = None,
          conflicts: list[Dict] | None = None, **extra: Any) -> ModelDict:
    out: ModelDict = {"format": "mapwright/1", "name": "example", "servers": servers, **extra, "tables": tables}
    if mappings:
        out["mappings"] = mappings
    if conflicts:
        out["conflicts"] = conflicts
    return out


def server(id_: str, dbms: str = "postgresql", **extra: Any) -> Dict:
    return {"id": id_, "dbms": dbms, **extra}


def copies(columns: list[Dict]) -> dict[str, Any]:
    """Each column copied from the source column of the same name."""
    return {c["name"]: c["name"] for c in columns}


def one_way(src_cols: list[Dict] | None = None, tgt_cols: list[Dict] | None = None,
            columns: dict[str, Any] | None = None, *, src_pk: list[str] | None = None,
            tgt_pk: list[str] | None = None, src_dbms: str = "postgresql", tgt_dbms: str = "postgresql",
            src_server: Dict | None = None, tgt_server: Dict | None = None, src_table: Dict | None = None,
            tgt_table: Dict | None = None, map_extra: Dict | None = None, more_tables: list[Dict] | None = None,
            more_mappings: list[Dict] | None = None, conflicts: list[Dict] | None = None,
            **model_extra: Any) -> ModelDict:
    """Servers `s` and `t`, tables s.T and t.T (by default ID INTEGER NOT NULL and NAME VARCHAR(40); a first
    column ID NOT NULL is the primary key), and mapping `m` from s.T to t.T copying every target column the
    source also has."""
    src_cols = [ID, NAME] if src_cols is None else src_cols
    tgt_cols = src_cols if tgt_cols is None else tgt_cols
    first = src_cols[0] if src_cols else {}
    default_pk = ["ID"] if first.get("name") == "ID" and first.get("nullable") is False else None
    if columns is None:
        names = {c["name"] for c in src_cols}
        columns = {c["name"]: c["name"] for c in tgt_cols if c["name"] in names}
    return model(
        [server("s", src_dbms, **(src_server or {})), server("t", tgt_dbms, **(tgt_server or {}))],
        [table("s", "T", src_cols, src_pk if src_pk is not None else default_pk, **(src_table or {})),
         table("t", "T", tgt_cols, tgt_pk if tgt_pk is not None else default_pk, **(tgt_table or {})),
         *(more_tables or [])],
        [mapping("m", "s.T", "t.T", columns) | (map_extra or {}), *(more_mappings or [])],
        conflicts, **model_extra)


def two_way(cols: list[Dict], conflict_groups: list[Dict], *, with_reverse: bool = True, **extra: Any) -> ModelDict:
    """s.T and t.T (primary key ID) with mapping `m` one way and `back` the other, and conflict settings of
    `conflict_groups` on t.T: t.T has two masters (s writes to it; t writes it and sends its changes)."""
    reverse = {"reverse": "back"} if with_reverse else {}
    back = mapping("back", "t.T", "s.T", copies(cols), **({"reverse": "m"} if with_reverse else {}))
    return one_way(cols, src_pk=["ID"], tgt_pk=["ID"], map_extra=reverse, more_mappings=[back],
                   conflicts=[{"table": "t.T", "column_groups": conflict_groups}], **extra)


def one_table(columns: list[Dict], dbms: str = "postgresql", pk: list[str] | None = None, **extra: Any) -> ModelDict:
    """A model of one server `s` and one table `s.T`."""
    return model([server("s", dbms)], [table("s", "T", columns, pk if pk is not None else ["ID"], **extra)])
