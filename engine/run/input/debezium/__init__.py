"""Debezium change events as run input: `envelope` (one event decoded), `values` (its values by logical
or column type) and `files` (the `changes/debezium/<server>/*.json[l]` files and what they hold)."""
