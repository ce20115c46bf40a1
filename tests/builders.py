"""Small builders for model dicts, so a test states only what it is about."""

from __future__ import annotations

from typing import Any

from engine.model import Model
from engine.rules import Finding, validate


def col(name: str, type_: str = "INTEGER", nullable: bool = True, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "nullable": nullable, **extra}


def table(server: str, name: str, columns: list[dict[str, Any]], pk: list[str] | None = None,
          unique: dict[str, list[str]] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"server": server, "name": name, "columns": columns}
    if pk:
        out["primary_key"] = pk
    if unique:
        out["unique_indexes"] = [{"name": n, "columns": c} for n, c in unique.items()]
    out.update(extra)
    return out


def mapping(id_: str, source: str, target: str, columns: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": id_, "source": source, "target": target, "columns": columns, **extra}


def server(id_: str, dbms: str = "postgresql", **extra: Any) -> dict[str, Any]:
    return {"id": id_, "dbms": dbms, **extra}


def model(servers: list[dict[str, Any]], tables: list[dict[str, Any]], mappings: list[dict[str, Any]] = (),  # type: ignore[assignment]
          conflicts: list[dict[str, Any]] = (), **extra: Any) -> Model:  # type: ignore[assignment]
    return Model.model_validate({"format": "mapwright/1", "name": "t", "servers": servers, "tables": tables,
                                 "mappings": list(mappings), "conflicts": list(conflicts), **extra})


def pair(src_dbms: str = "postgresql", tgt_dbms: str = "postgresql", **extra: Any) -> Model:
    """Two servers `s` and `t`, each with table T(ID INTEGER NOT NULL PK, NAME VARCHAR(40)), copied s.T -> t.T."""
    cols = [col("ID", nullable=False), col("NAME", "VARCHAR(40)")]
    return model([server("s", src_dbms), server("t", tgt_dbms)],
                 [table("s", "T", cols, pk=["ID"]), table("t", "T", cols, pk=["ID"])],
                 [mapping("m", "s.T", "t.T", {"ID": "ID", "NAME": "NAME"})], **extra)


def codes(m: Model) -> list[str]:
    return sorted(f.code for f in validate(m))


def findings_with(m: Model, code: str) -> list[Finding]:
    return [f for f in validate(m) if f.code == code]


def one_table(dbms: str, columns: dict[str, tuple[str, Any]], name: str = "defaults") -> Model:
    """Server `s` of `dbms` with table T: ID, and each named column with its (type, default)."""
    cols = [col("ID", nullable=False)] + [{"name": n, "type": t, "default": d} for n, (t, d) in columns.items()]
    return Model.model_validate({"format": "mapwright/1", "name": name, "servers": [server("s", dbms)],
                                 "tables": [table("s", "T", cols, pk=["ID"])]})


def fk(columns: list[str], references: str, referenced_columns: list[str] | None = None, name: str | None = None,
       **extra: Any) -> dict[str, Any]:
    """A foreign key of `columns` onto `references` (a table name on the same server), by default its ID."""
    out: dict[str, Any] = {"columns": columns, "references": references,
                           "referenced_columns": referenced_columns or ["ID"], **extra}
    if name:
        out["name"] = name
    return out


def partitioned(columns: list[str], partitions: dict[str, str] | None = None, method: str = "range",
                via_root: bool = True) -> dict[str, Any]:
    """A `partitioning` value: `partitions` maps each partition's name to its bound."""
    parts = partitions if partitions is not None else {"p1": "FOR VALUES FROM (1) TO (1000)"}
    return {"method": method, "columns": columns, "partitions": [{"name": n, "bound": b} for n, b in parts.items()],
            "publish_via_partition_root": via_root}


def schema_feature_change(rng: Any, model: Model, t: Any) -> dict[str, Any]:
    """A random change to one of table `t`'s database features (issue 36), for `evolve(t, **change)` in the
    random-edit property tests: foreign keys (to a sibling, itself or no table), indexes, checks,
    partitioning, or a column's generated / identity / enum; unknown names ("NOPE") included on purpose."""
    names = [*t.column_names(), "NOPE"]
    siblings = [x.name for x in model.tables if x.server == t.server] + ["GONE"]
    pick = rng.randrange(5)
    if pick == 0:
        return {"foreign_keys": [] if rng.random() < 0.3 else
                [fk([rng.choice(names)], rng.choice(siblings), [rng.choice(["ID", "NAME", "NOPE"])])]}
    if pick == 1:
        return {"partitioning": rng.choice([None, partitioned([rng.choice(names)], via_root=rng.random() < 0.5)])}
    if pick == 2:
        return {"indexes": rng.choice([[], [{"name": "IX_R", "columns": [rng.choice(names)]}]]),
                "checks": rng.choice([[], [{"sql": "ID > 0"}], [{"name": "CK", "sql": " "}]])}
    cols = [c.model_dump(mode="json", by_alias=True) for c in t.columns]
    if cols:
        i = rng.randrange(len(cols))
        cols[i]["generated"] = rng.choice([None, {"expression": "1 + 1"}])
        cols[i]["identity"] = rng.choice([None, {}])
        cols[i]["enum"] = rng.choice([None, {"values": ["a", "b"]}, {"name": "e", "values": ["a", "a"]}])
    return {"columns": cols}
