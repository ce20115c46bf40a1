"""Column defaults in their column's type: what an insert fills is the value the DBMS stores, on the native
Spark fold as on the reference's, and a default whose value does not fit its column is refused (TB003).

Each default here once crashed one engine or both: Oracle's `SYSTIMESTAMP` and MySQL's `NOW()` (functions
the run's evaluator has no name for), a timestamp default written as text, `CURRENT_DATE` in a TIMESTAMP
column (a date, not a timestamp), `CURRENT_TIMESTAMP` in a VARCHAR column (a timestamp, not text), `1e-3`
(a literal the evaluator does not read), `0.5` in an INTEGER column and `123.456` in a DECIMAL(4,2) column.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sparkkit import both, reference_run

from engine.core.types import parse_type
from engine.model import Model
from engine.model.schema import ColumnDef
from engine.run.semantics.context import RunModelError
from engine.spark.resolve_check import default_value_sql
from engine.sqldefaults import default_problem, run_default

_ID = {"name": "ID", "type": "INTEGER", "nullable": False}
_TARGETS = {  # a target server's DBMS and its table's defaulted columns: (name, type, default)
    "o": ("oracle", [("AT", "TIMESTAMP", "SYSTIMESTAMP")]),
    "my": ("mysql", [("AT", "TIMESTAMP", "NOW()")]),
    "pg": ("postgresql", [("DAY", "DATE", "CURRENT_DATE"), ("SAID", "VARCHAR(40)", "CURRENT_TIMESTAMP"),
                          ("F", "DOUBLE", "1e-3"), ("AT", "TIMESTAMP", "'2026-01-01 00:00:00'"),
                          ("HALF", "DECIMAL(4,2)", "0.5")]),
    "d": ("db2", [("DAY", "TIMESTAMP", "CURRENT DATE")]),
    "i": ("informix", [("DAY", "DATE", "TODAY")]),
}
_WANT: dict[str, dict[str, Any]] = {  # what each target row holds for the insert committed at 2026-01-05T10:00:01Z
    "o": {"AT": datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC)},
    "my": {"AT": datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC)},
    "pg": {"DAY": datetime(2026, 1, 5, tzinfo=UTC), "SAID": "2026-01-05 10:00:01", "F": 0.001,
           "AT": datetime(2026, 1, 1, tzinfo=UTC), "HALF": "0.50"},
    "d": {"DAY": datetime(2026, 1, 5, tzinfo=UTC)},
    "i": {"DAY": datetime(2026, 1, 5, tzinfo=UTC)},
}


def _model(targets: dict[str, tuple[str, list[tuple[str, str, str]]]]) -> Model:
    tables: list[dict[str, Any]] = [{"server": "s", "name": "T", "columns": [_ID], "primary_key": ["ID"]}]
    mappings = []
    for server, (_, columns) in targets.items():
        extra = [{"name": n, "type": t, "default": d} for n, t, d in columns]
        tables.append({"server": server, "name": "T", "columns": [_ID, *extra], "primary_key": ["ID"]})
        mappings.append({"id": f"m_{server}", "source": "s.T", "target": f"{server}.T", "columns": {"ID": "ID"}})
    servers = [{"id": "s", "dbms": "postgresql"}] + [{"id": k, "dbms": v[0]} for k, v in targets.items()]
    return Model.model_validate({"format": "mapwright/1", "servers": servers, "tables": tables,
                                 "mappings": mappings})


def _data(root: Path) -> Path:
    (root / "data" / "changes").mkdir(parents=True)
    (root / "data" / "changes" / "s.jsonl").write_text(json.dumps(
        {"site": "s", "txn": "x1", "seq": 1, "commit_ts": "2026-01-05T10:00:01Z", "table": "T", "op": "I",
         "after": {"ID": 1}}) + "\n")
    return root / "data"


def _plain(value: Any) -> Any:
    return str(value) if type(value).__name__ == "Decimal" else value


def test_defaults_fill_in_their_columns_type_on_both_engines(spark: Any, tmp_path: Path) -> None:
    got, want = both(spark, _model(_TARGETS), _data(tmp_path), tmp_path)
    assert got == want
    assert got["manifest"]["counts"]["applied"] == len(_TARGETS)
    for server, values in _WANT.items():
        [row] = pq.read_table(tmp_path / "spark" / "tables" / server / "T.parquet").to_pylist()
        assert {c: _plain(row[c]) for c in values} == values, server


@pytest.mark.parametrize(("dbms", "type_", "default", "value"), [
    ("postgresql", "INTEGER", "0.5", None),  # PostgreSQL rounds to 1, SQL Server and DB2 truncate to 0
    ("postgresql", "DECIMAL(4,2)", "123.456", None),  # PostgreSQL: numeric field overflow on insert
    ("postgresql", "VARCHAR(10)", "CURRENT_TIMESTAMP", None),  # value too long
    ("postgresql", "TIMESTAMP", "'soon'", None),
    ("postgresql", "DECIMAL(4,2)", "12.345", "12.35"),  # rounded to the scale, half away from zero
    ("postgresql", "INTEGER", "2.0", "2"),
    ("postgresql", "DOUBLE", "1e-3", "0.001"),
    ("oracle", "TIMESTAMP", "SYSTIMESTAMP", "now"),
    ("mysql", "TIMESTAMP", "NOW()", "now"),
])
def test_a_default_that_does_not_fit_its_column_is_refused(dbms: str, type_: str, default: str,
                                                           value: str | None) -> None:
    """TB003 refuses a default whose value a record's value of the column could not be (docs/contract.md
    §7), so no valid model's run fills a value its column cannot hold; what it accepts both folds fill."""
    problem = default_problem(ColumnDef.model_validate({"name": "C", "type": type_, "default": default}), dbms)
    assert (problem is None) == (value is not None), problem
    written = default_value_sql(run_default(default, dbms), parse_type(type_))
    if value is None:
        assert written is None  # Spark leaves it to the reference, which says why (below)
    elif value == "now":
        assert written == "CAST(at AS timestamp)"
    else:
        assert written is not None and value in written


def test_a_run_of_a_default_that_does_not_fit_says_so(tmp_path: Path) -> None:
    model = _model({"pg": ("postgresql", [("N", "INTEGER", "0.5")])})
    with pytest.raises(RunModelError, match="default of N does not fit"):
        reference_run(model, _data(tmp_path), tmp_path / "reference")
