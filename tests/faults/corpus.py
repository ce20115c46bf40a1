"""A data folder of hostile change records, each of which must be a reject (with its reason) while the
run goes on, and the good records around them, which must be applied.

The folder's name holds a space, a `%20`, a `#` and glob characters (`[a] {b,c}`), as user folders may;
one file has CRLF line ends and a byte-order mark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runkit import pair

from engine.model import Model

COLUMNS = {"SI": "SMALLINT", "I": "INTEGER", "D": "DECIMAL(5,2)", "V": "VARCHAR(10)", "C": "CHAR(2)",
           "TS": "TIMESTAMP", "J": "UDT:doc", "DOC": "CLOB", "B": "VARBINARY(2)"}
BIG_DOC = 50 * 1024 * 1024  # one valid record of 50 MB: over the 16 MiB limit
LARGE_DOC = 1024 * 1024  # one valid record of 1 MB: processed


def model() -> Model:
    return pair(COLUMNS)


def record(txn: str, after: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"site": "s", "txn": txn, "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", "op": "I",
            "after": after, **fields}


def nest(levels: int) -> Any:
    """A JSON value `levels` lists deep."""
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Corpus:
    """The data folder, the reject reason expected at each (file, line), and the IDs that must arrive."""

    data: Path
    rejects: dict[tuple[str, int], str]
    accepted_ids: list[int]
    lines: int


def write_corpus(root: Path) -> Corpus:
    data = root / "data with space %20 #1 [a] {b,c}"
    changes = data / "changes"
    changes.mkdir(parents=True)
    nested = b'{"site": "s", "txn": "deep", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", ' \
             b'"op": "I", "after": {"ID": 90, "J": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    hostile: list[tuple[bytes, str | None]] = [
        (line(record("g1", {"ID": 1, "I": 2**31 - 1, "V": "ten chars!", "TS": "0001-01-01T00:00:00Z",
                            "B": "0xFFFF"})), None),
        (line(record("int", {"ID": 10, "I": 2**31})), "column 'I': 2147483648 is out of range for INTEGER"),
        (nested, "JSON nested deeper than 64 levels"),
        (line(record("ts", {"ID": 11}, commit_ts="0001-01-01T00:00:00+14:00")),
         "bad timestamp '0001-01-01T00:00:00+14:00'"),
        (line(record("seq", {"ID": 12}, seq=2**63)), "seq 9223372036854775808 is out of range"),
        (line(record("big", {"ID": 13, "DOC": "x" * BIG_DOC})), "is larger than the limit of 16777216 bytes"),
        (line(record("utf", {"ID": 14, "V": "XX"})).replace(b"XX", b"\xff\xfe"), "invalid UTF-8 at byte"),
        (line(record("long", {"ID": 15, "V": "y" * 50})), "column 'V': 50 characters do not fit VARCHAR(10)"),
        (line(record("g2", {"ID": 2, "DOC": "z" * LARGE_DOC, "V": "\ufffd ok"})), None),  # a real U+FFFD
        (line(record("small", {"ID": 16, "SI": 40_000})), "column 'SI': 40000 is out of range for SMALLINT"),
        (line(record("dec", {"ID": 17, "D": "1234.5"})), "column 'D': 1234.5 does not fit DECIMAL(5,2)"),
        (line(record("char", {"ID": 18, "C": "abc"})), "column 'C': 3 characters do not fit CHAR(2)"),
        (line(record("bytes", {"ID": 24, "B": "010203"})), "column 'B': 3 bytes do not fit VARBINARY(2)"),
        (line(record("when", {"ID": 19, "TS": "9999-12-31T23:30:00-01:00"})), "outside the years 1-9999 in UTC"),
        (line(record("far", {"ID": 20}, commit_ts="9500-01-01T00:00:00Z")), "outside the years 1900-8999"),
        (line(record("json", {"ID": 21, "J": nest(65)})), "JSON nested deeper than 64 levels"),
        (b'{"site": "s", "txn": "digits", "seq": 1, "commit_ts": "2026-01-05T10:00:00Z", "table": "T", '
         b'"op": "I", "after": {"ID": ' + b"9" * 5000 + b"}}", "not JSON: Exceeds the limit"),
        (line(record("inf", {"ID": 22, "D": "Infinity"})), "column 'D': not a number: 'Infinity'"),
        (line(record("sur", {"ID": 23, "V": "XX"})).replace(b"XX", b"\\ud800"), "holds a lone surrogate ('\\ud800')"),
        (b'"a JSON string"', "not a JSON object"),
        (line(record("pair", {"ID": 5, "V": "XX"})).replace(b"XX", b"\\ud83d\\ude00"), None),  # a valid pair
        (line(record("g3", {"ID": 3, "J": {"a": [1, {"b": None}]}, "D": "-999.99"})), None),
    ]
    (changes / "a.jsonl").write_bytes(b"\n".join(text for text, _ in hostile) + b"\n")
    crlf = b"\r\n".join([b"", line(record("g4", {"ID": 4})), b"{not json", b""])
    (changes / "b.jsonl").write_bytes(b"\xef\xbb\xbf" + crlf)
    a, b = str(changes / "a.jsonl"), str(changes / "b.jsonl")
    rejects = {(a, n): reason for n, (_, reason) in enumerate(hostile, start=1) if reason is not None}
    rejects[(b, 3)] = "not JSON"
    return Corpus(data, rejects, [1, 2, 3, 4, 5], len(hostile) + 2)
