"""DK: the distribution key of a mapping (seed 000): DK001-DK011 (declared in `catalog.dk`).

`mapped_key` works out once per check what the key rules of several families read (DK, NN001, TY003): the
key's columns, whether each exists in the target and is mapped, and the source columns that feed them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.core.types import TypeFamily, default_decimal_precision
from engine.model.schema import Mapping, Table
from engine.rules.context import Context
from engine.rules.findings import Finding
from engine.rules.mp import at
from engine.rules.registry import emits

MEDIUM_CHAR_LIMIT = {"db2": 254, "mssql": 255}
DKEY_BYTE_LIMIT = 256


@dataclass(frozen=True)
class MappedKey:
    """A mapping's distribution key as the rules read it. `feeding` (the source columns whose values flow
    into the key) is known only when the key is `complete`: every column exists in the target and is mapped."""

    columns: tuple[str, ...]
    complete: bool
    feeding: frozenset[str] = frozenset()


def mapped_key(ctx: Context, mapping: Mapping, target: Table) -> MappedKey | None:
    """The mapping's key, or None when it has none (DK001)."""
    dkey = ctx.dkey(mapping)
    if dkey is None:
        return None
    complete = all(target.column(n) is not None and n in mapping.columns for n in dkey.columns)
    feeding = frozenset(ctx.feeding(mapping, dkey.columns)) if complete else frozenset()
    return MappedKey(dkey.columns, complete, feeding)


@emits("DK001", "DK002", "DK003", "DK004", "DK005", "DK006", "DK007", "DK008", "DK009", "DK010", "DK011")
def distribution_key_rules(ctx: Context, mapping: Mapping, source: Table, target: Table,
                           key: MappedKey | None) -> Iterator[Finding]:
    """DK001-DK011.

    DK003 adds up each key column once (the key is a set) by the byte lengths of the model format. A
    DECIMAL, NUMERIC or NUMBER declared without a precision has the target server's default one (the key
    lives there): db2 5, mssql 18, ase 18, informix 16, mysql 10, oracle 38, any other DBMS 38
    (`engine.core.types.DEFAULT_DECIMAL_PRECISION`). DK009 and DK010 read a complete key only."""
    if key is None:
        if not mapping.journal:
            why = ("the mapping's distribution_key is empty (name its columns, or leave it out for the default "
                   "rule," if mapping.distribution_key == [] else
                   f"{target.key} has no primary key or unique index and the mapping names none (set one,")
            yield Finding("DK001", f"no distribution key: {why} or mark it a journal mapping)", at(mapping, target))
        return
    target_dbms = ctx.dbms_of(target)
    total_bytes = 0
    assumed: list[str] = []  # decimals without a precision, counted at the DBMS's default
    for name in key.columns:
        col = target.column(name)
        if col is None:
            yield Finding("DK011", f"distribution key names {name!r}, which {target.key} does not have",
                          at(mapping, target, name))
            continue
        if name not in mapping.columns:
            yield Finding("DK002", f"distribution-key column {name} has no column map", at(mapping, target, name))
        t = col.sql_type
        total_bytes += t.key_bytes(target_dbms) or 0
        if t.family is TypeFamily.EXACT_NUMERIC and t.byte_length is None and t.key_bytes(target_dbms) is not None:
            assumed.append(f"{name} {t} as {t.name}({default_decimal_precision(target_dbms)}), "
                           f"the default on {target_dbms or 'its server'}")
        family_rule = {
            TypeFamily.LARGE_OBJECT: ("DK004", f"{name} is {t}, a large object, and cannot be in a distribution key"),
            TypeFamily.BIT: ("DK006", f"{name} is BIT and cannot be in a distribution key"),
            TypeFamily.BINARY: ("DK007", f"{name} is {t}, a binary type, and cannot be in a distribution key"),
            TypeFamily.APPROX_NUMERIC: ("DK008", f"{name} is {t}: approximate numbers make unreliable keys"),
        }.get(t.family)
        if family_rule:
            yield Finding(family_rule[0], family_rule[1], at(mapping, target, name))
        limit = MEDIUM_CHAR_LIMIT.get(target_dbms or "")
        if limit is not None and t.family is TypeFamily.CHARACTER and (t.length or 0) > limit:
            yield Finding("DK005", f"{name} is {t}: on {target_dbms} a key column may hold at most {limit} characters",
                          at(mapping, target, name))
    if ctx.dbms_of(source) != "oracle" and total_bytes > DKEY_BYTE_LIMIT:
        counted = f" (counting {'; '.join(assumed)})" if assumed else ""
        yield Finding("DK003", f"distribution key ({', '.join(key.columns)}) is {total_bytes} bytes{counted}; "
                      f"the limit is {DKEY_BYTE_LIMIT} when the source is not Oracle", at(mapping, target))
    if not key.complete:
        return
    if not source.is_unique(set(key.feeding)):
        fed = ", ".join(sorted(key.feeding)) or "no source column"
        yield Finding("DK009", f"the key is fed by {fed}, which is not a primary key or unique index of "
                      f"{source.key}: duplicates would reach the target", at(mapping, source))
    if not target.is_unique(set(key.columns)):
        yield Finding("DK010", f"distribution key ({', '.join(key.columns)}) is not the primary key or a unique "
                      f"index of {target.key}: an update or delete may hit several rows", at(mapping, target))
