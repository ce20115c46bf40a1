"""Which checks read each scope, and in what order: a mapping, a table, a table's conflict settings
(`cr.check_conflicts`) or the whole model. `engine.rules.validate` checks a scope again after an edit that
may change its findings.

The checks themselves live in the module of their code family (`dk`, `mp`, `tb`, ...), each marked with the
codes it emits (`@emits`); `engine.rules.registry` finds them by code.
"""

from __future__ import annotations

from engine.model.schema import Mapping, Model, Table
from engine.rules import bi, dk, fk, mp, nl, nn, pt, sc, tb, ty
from engine.rules.context import Context
from engine.rules.cr import uneven_hierarchies
from engine.rules.findings import Finding
from engine.rules.hierarchy import hierarchies
from engine.rules.nativetypes import native_types
from engine.rules.typecompat import type_compatibility

MAPPING_CHECKS = (mp.method_inputs, mp.where_clause, mp.backtracking_patterns, nl.null_rules, bi.reverse_rules,
                  ty.type_rules, mp.generated_targets, fk.parents_replicated, pt.partitioned_source)
"""The checks of a mapping whose ends are both known, besides those that read its distribution key."""


def check_mapping(ctx: Context, mapping: Mapping) -> list[Finding]:
    """A mapping's findings: MP002 alone when its source or target is unknown (it silences every other rule)."""
    source, target = ctx.model.table(mapping.source), ctx.model.table(mapping.target)
    if source is None or target is None:
        return list(mp.unknown_endpoints(ctx, mapping))
    key = dk.mapped_key(ctx, mapping, target)
    findings = [*dk.distribution_key_rules(ctx, mapping, source, target, key),
                *nn.protected_not_null(ctx, mapping, source, target, key),
                *ty.serial_key_collisions(ctx, mapping, target, key)]
    for check in MAPPING_CHECKS:
        findings.extend(check(ctx, mapping, source, target))
    findings.extend(type_compatibility(mapping, source, target))
    return findings


def check_table(model: Model, table: Table) -> list[Finding]:
    """A table's own findings (the TB and SC families, TY006)."""
    server = model.server(table.server)
    dbms = server.dbms if server else "other"
    return [*tb.key_columns(table), *tb.parent_exists(model, table), *sc.replication_definitions(table),
            *tb.column_defaults(model, table), *tb.names_apart(table), *tb.keys_name_once(table),
            *tb.foreign_keys(model, table, dbms), *tb.indexes_and_checks(table), *tb.partitioning(table, dbms),
            *tb.column_features(table, dbms), *native_types(model, table)]


def check_model(model: Model) -> list[Finding]:
    """The findings of the model's table hierarchies: circular parents (TB002), uneven conflict resolution
    (CR009); one walk over the hierarchies serves both."""
    walk = hierarchies(model)
    return [*tb.circular_parents(model, walk), *uneven_hierarchies(model, walk)]
