"""The model carries what replication needs from a real schema (issue 36): schemas, foreign keys, indexes,
checks, comments, partitioning, generated and identity columns, enums, and the PostgreSQL types a round trip
must keep (TIMESTAMPTZ, UUID, ARRAY)."""

from __future__ import annotations

import json

import pytest

from engine.core.types import TypeError_, TypeFamily, parse_type
from engine.model.io import ModelLoadError, parse_model

RICH = {
    "format": "mapwright/1",
    "servers": [{"id": "pg", "dbms": "postgresql", "replica_identity": "default"}],
    "tables": [
        {"server": "pg", "name": "customer", "schema": "shop", "comment": "who buys",
         "columns": [
             {"name": "id", "type": "INTEGER", "nullable": False, "identity": {"always": True, "start": 100}},
             {"name": "mood", "type": "TEXT", "enum": {"name": "mood", "values": ["sad", "ok", "happy"]}},
             {"name": "tags", "type": "ARRAY(TEXT)"},
             {"name": "seen", "type": "TIMESTAMP WITH TIME ZONE", "comment": "last visit"},
             {"name": "token", "type": "uuid"}],
         "primary_key": ["id"]},
        {"server": "pg", "name": "payment", "schema": "shop",
         "columns": [
             {"name": "id", "type": "INTEGER", "nullable": False},
             {"name": "customer_id", "type": "INTEGER"},
             {"name": "amount", "type": "NUMERIC(10,2)"},
             {"name": "with_tax", "type": "NUMERIC(12,2)", "generated": {"expression": "amount * 1.2",
                                                                         "stored": False}}],
         "primary_key": ["id"],
         "indexes": [{"name": "ix_payment_customer", "columns": ["customer_id"]}],
         "foreign_keys": [{"name": "fk_customer", "columns": ["customer_id"], "references": "customer",
                           "referenced_columns": ["id"], "on_delete": "cascade"}],
         "checks": [{"name": "ck_amount", "sql": "amount >= 0"}],
         "partitioning": {"method": "range", "columns": ["id"],
                          "partitions": [{"name": "payment_low", "bound": "FOR VALUES FROM (1) TO (1000)"}]}},
    ],
}


def test_every_feature_loads_and_saves_unchanged() -> None:
    model = parse_model(json.dumps(RICH))
    customer, payment = model.tables
    assert customer.db_schema == "shop" and customer.comment == "who buys"
    assert customer.columns[0].identity is not None and customer.columns[0].identity.start == 100
    assert customer.columns[1].enum is not None and customer.columns[1].enum.values == ["sad", "ok", "happy"]
    assert payment.foreign_keys[0].on_delete == "cascade" and payment.foreign_keys[0].on_update == "no_action"
    assert payment.columns[3].generated is not None and payment.columns[3].generated.stored is False
    assert payment.partitioning is not None and payment.partitioning.publish_via_partition_root
    assert model.servers[0].replica_identity == "default"
    saved = model.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    assert saved["tables"] == RICH["tables"] and saved["servers"] == RICH["servers"]


def test_a_model_without_the_features_saves_as_before() -> None:
    plain = {"format": "mapwright/1", "servers": [{"id": "a", "dbms": "oracle"}],
             "tables": [{"server": "a", "name": "T", "columns": [{"name": "X", "type": "INTEGER"}]}]}
    assert parse_model(json.dumps(plain)).model_dump(mode="json", exclude_defaults=True, by_alias=True) == plain


@pytest.mark.parametrize(("field", "value"), [
    ("partitioning", {"method": "interval", "columns": ["id"]}),
    ("foreign_keys", [{"columns": [], "references": "customer", "referenced_columns": ["id"]}]),
    ("checks", [{"sql": ""}]),
])
def test_a_malformed_feature_is_a_load_error_naming_it(field: str, value: object) -> None:
    data = json.loads(json.dumps(RICH))
    data["tables"][1][field] = value
    with pytest.raises(ModelLoadError, match=field):
        parse_model(json.dumps(data), "rich.json")


def test_postgresql_types_keep_their_identity() -> None:
    assert str(parse_type("timestamp with time zone")) == "TIMESTAMPTZ"
    assert parse_type("TIMESTAMPTZ").family is TypeFamily.DATETIME
    assert str(parse_type("uuid")) == "UUID" and parse_type("UUID").family is TypeFamily.CHARACTER
    array = parse_type("ARRAY(real)")
    assert array.family is TypeFamily.COMPLEX and str(array) == "ARRAY(REAL)"
    with pytest.raises(TypeError_, match="one element type"):
        parse_type("ARRAY(TEXT, INTEGER)")
