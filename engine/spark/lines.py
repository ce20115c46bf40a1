"""The lines of change files, read by Spark's text reader with the line numbers the reference gives them.

Spark's text source splits large files across tasks and gives no line numbers. Each row's position is
`monotonically_increasing_id()` (its partition and its place there) with the byte offset of its file
split (`_metadata.file_block_start`): one small aggregation counts the lines of every split, the driver
adds them up per file (a few numbers per split, never the data), and each line gets `offset + place + 1`.

Lines end at `\\n` only (a `\\r` before it is dropped, a byte-order mark at the start of a file is skipped
by the reader, as `records.split_lines` does); lines holding only blanks are not records. The text keeps
its bytes as they are: a line that is not UTF-8 reaches decoding as it is, and is a reject there.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from engine.run.input.debezium.files import is_value_file
from engine.run.input.files import checked_input
from engine.run.input.jsonvalues import json_values
from engine.run.input.records import BLANK, MAX_RECORD_BYTES, SHOWN_RAW

LINES = "file_ord int, line long, text string, size int, blank boolean"
"""What `read_lines` gives: the file's place in the reference's order, the line number from 1, the text (its
first `SHOWN_RAW` bytes only, for a line over `MAX_RECORD_BYTES`), its size in bytes, whether it is blank."""


def glob_escaped(path: str) -> str:
    """`path` with Hadoop's glob characters escaped, so that a folder named `data [2]` is read as named."""
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path)


def read_lines(spark: SparkSession, files: Sequence[str]) -> DataFrame:
    """Every line of `files` (absolute paths, in the order the reference reads them) but the empty ones,
    with `blank` set on those of blanks only (no change record; a CSV row of spaces is a row). Each file is
    checked as the reference reads it before Spark is given it (`records.checked_input`: a regular file
    within the bound; a FIFO would block Spark's task, a device never end): `InputError` naming it."""
    if not files:
        return spark.createDataFrame([], LINES)
    for path in files:
        checked_input(Path(path))
    files = [visible(p) for p in files]
    values = [p for p in files if is_value_file(p)]
    if values:  # `.json` Debezium files: JSON values, not lines
        by_lines = [p for p in files if not is_value_file(p)]
        frame = _values(spark, files, values)
        return frame if not by_lines else _lines(spark, files, by_lines).unionByName(frame)
    return _lines(spark, files, files)


def _lines(spark: SparkSession, files: Sequence[str], read: Sequence[str]) -> DataFrame:
    """The lines of the files `read` (of `files`, whose places they take)."""
    raw = (spark.read.option("lineSep", "\n").text([glob_escaped(p) for p in read])
           .select(F.col("value"), F.col("_metadata.file_path").alias("uri"),
                   F.col("_metadata.file_block_start").alias("block"),
                   F.monotonically_increasing_id().alias("place")))
    splits = raw.groupBy("uri", "block").agg(F.min("place").alias("first"), F.count("*").alias("n")).collect()
    ordinals = _ordinals(files, {s["uri"] for s in splits})
    rows: list[tuple[str, int, int, int, int]] = []
    for uri in sorted({s["uri"] for s in splits}, key=lambda u: ordinals[u]):
        offset = 0
        for split in sorted((s for s in splits if s["uri"] == uri), key=lambda s: s["block"]):
            rows.append((uri, split["block"], ordinals[uri], split["first"], offset))
            offset += split["n"]
    starts = spark.createDataFrame(rows, "uri string, block long, file_ord int, first long, before long")
    whole = F.when(F.col("value").endswith("\r"), F.expr("substring(value, 1, length(value) - 1)")) \
        .otherwise(F.col("value"))
    size = F.octet_length(whole)
    text = F.when(size > MAX_RECORD_BYTES,  # a record over the limit is a reject: its head and size say enough
                  F.substring(whole.cast("binary"), 1, SHOWN_RAW).cast("string")).otherwise(whole)
    empty = (F.col("value") == F.lit("")) | (F.col("value") == F.lit("\r"))
    # a line of blanks only starts with one: only such a line is trimmed (trimming copies the line)
    blank = F.when(F.substring("value", 1, 1).isin(*BLANK), F.btrim(F.col("value"), F.lit(BLANK)) == F.lit("")) \
        .otherwise(F.lit(False))
    return (raw.where(~empty).join(F.broadcast(starts), ["uri", "block"])
            .select(F.col("file_ord"), (F.col("place") - F.col("first") + F.col("before") + 1).alias("line"),
                    text.alias("text"), size.alias("size"), blank.alias("blank")))


def _values(spark: SparkSession, files: Sequence[str], read: Sequence[str]) -> DataFrame:
    """The JSON values of the `.json` files `read` (of `files`), each as a line whose number is the line it
    starts on (`debezium.file_events`, the reference's own splitting, run where Spark reads each file whole).
    A value over `MAX_RECORD_BYTES` keeps its first `SHOWN_RAW` bytes, as a line does."""
    whole = spark.read.format("binaryFile").load([glob_escaped(p) for p in read]).select("path", "content")
    values = whole.mapInArrow(_split_values(list(files)), _VALUES)
    # the text keeps its bytes as they are (a cast from binary checks nothing), as a line's does
    return values.select("file_ord", "line", F.col("data").cast("string").alias("text"), "size", "blank")


_VALUES = "file_ord int, line long, data binary, size int, blank boolean"
_VALUES_SCHEMA = pa.schema([("file_ord", pa.int32()), ("line", pa.int64()), ("data", pa.binary()),
                            ("size", pa.int32()), ("blank", pa.bool_())])


def _split_values(files: list[str]) -> Any:
    """A `mapInArrow` function: each whole `.json` file (`path`, `content`) -> its values (`LINES`)."""
    def split(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for row in batch.to_pylist():
                ordinal = _ordinals(files, {row["path"]})[row["path"]]
                out = [{"file_ord": ordinal, "line": line, "size": len(data), "blank": False,
                        "data": data if len(data) <= MAX_RECORD_BYTES else data[:SHOWN_RAW]}
                       for line, data in json_values(row["content"])]
                for start in range(0, len(out), 4096):
                    yield pa.RecordBatch.from_pylist(out[start:start + 4096], schema=_VALUES_SCHEMA)
    return split


HIDDEN = ("_", ".")
"""How the names of the files Spark's file sources pass over begin (Hadoop's hidden files: `_SUCCESS`,
`.crc`), even when a path names the file itself."""
UNNAMEABLE = ":"
"""What Hadoop cannot hold in a file's name: the name of its checksum file (`.name.crc`), a relative path,
would read as a URI with a scheme (`2026-01-05T10:00.jsonl`)."""
_LINKS: dict[str, str] = {}  # a file's path -> the link Spark reads it by


def visible(path: str) -> str:
    """`path`, or where its name is one Spark would pass over (`_a.jsonl`, `.b.jsonl`, a snapshot of table
    `_AUDIT`) or cannot read (`UNNAMEABLE`), a symbolic link to it under a name Spark reads, in a folder of
    this process's own (removed when it exits). The reference reads such files like any other: Spark must
    too."""
    name = Path(path).name
    if not name.startswith(HIDDEN) and UNNAMEABLE not in name:
        return path
    link = _LINKS.get(path)
    if link is None:
        link = _LINKS[path] = os.path.join(_links_folder(), f"{len(_LINKS)}{Path(path).suffix}")
        os.symlink(path, link)
    return link


@cache
def _links_folder() -> str:
    folder = tempfile.mkdtemp(prefix="mapwright-links-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _ordinals(files: Sequence[str], uris: set[str]) -> dict[str, int]:
    """Each location Spark read (a `file:` URI, percent-escaped its own way) -> the place of its file."""
    places = {str(Path(path).resolve()): i for i, path in enumerate(files)}
    places |= {os.path.abspath(path): i for i, path in enumerate(files)}  # a link (`visible`) as named
    out = {}
    for uri in uris:
        path = unquote(urlsplit(uri).path) if uri.startswith("file:") else uri
        if path not in places:
            raise RuntimeError(f"Spark read {uri}, which is none of the files it was given")  # never expected
        out[uri] = places[path]
    return out
