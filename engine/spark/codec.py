"""Lossless text for the typed values that travel between Spark stages.

Events and results carry `datetime`, `Decimal` and `bytes`; JSON carries
them as tagged objects (`{"$t": iso}`, `{"$d": "1.50"}`, `{"$b": hex}`), so
a stage's output decodes to exactly what the reference would hold.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any


def _tag(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$t": value.isoformat()}
    if isinstance(value, Decimal):
        return {"$d": str(value)}
    if isinstance(value, bytes | bytearray):
        return {"$b": bytes(value).hex()}
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _untag(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if "$t" in obj:
            return datetime.fromisoformat(obj["$t"])
        if "$d" in obj:
            return Decimal(obj["$d"])
        if "$b" in obj:
            return bytes.fromhex(obj["$b"])
    return obj


def encode(value: Any) -> str:
    return json.dumps(value, default=_tag, separators=(",", ":"), allow_nan=True)


def decode(text: str) -> Any:
    return json.loads(text, object_hook=_untag)
