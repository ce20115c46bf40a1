"""engine.spark.methods gives the pure-Python reference's values wherever it says it does.

`compile_method`, `to_text`, `cast_value` and `conform` compile to Spark SQL over typed columns with a
condition (`ok`, `exact` for `conform`) that holds where the value is exactly the reference's
(`engine.run.semantics.methods.evaluate_method`, `engine.core.values`). Where it is TRUE the values must be equal,
and `conform`'s `fits` must be FALSE exactly where the reference raises `ConversionError` (NULL, which
`neteffect` sends to the reference and `converge` counts as fitting, is accepted where it does not raise).
Rows where the condition is not TRUE go to the reference, so nothing is compared there. `where` has no
such flag: it must equal `predicate_holds` on every row the reference does not fail on.

Each example is one small DataFrame (a row struct `img` of a table of mixed column types, and the system
values) with every compiled expression as a column of ONE select: one Spark job per example. Rows come
from hypothesis (NULLs and edge values included) and from a fixed table of edge rows.

The mismatches this test found are kept, each by one minimal input, as regression tests
(`test_a_mismatch_once_found_stays_fixed`): a guard Java's `$` let a final line terminator through, an
offset beyond Spark's 18 hours, a double cast to BIGINT that Spark saturates, a DECIMAL negative zero,
and three of the reference evaluator's (a decimal cast it could not quantize, a DOUBLE meeting a decimal
literal, NaN in a comparison).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pyspark.sql import functions as F

from engine.core import values
from engine.core.types import SqlType, parse_type
from engine.core.values import REAL_MAX, ConversionError
from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.run.semantics.methods import SystemValues, evaluate_method
from engine.spark import methods as M
from engine.spark import sqltext as sql
from engine.spark.types import arrow_type, rep, to_arrow
from engine.sql.errors import SqlRuntimeError
from engine.sql.evaluate import predicate_holds

pytestmark = pytest.mark.slow

# --- the table ------------------------------------------------------------------------------------------

COLUMNS = {"TXT": "VARCHAR(24)", "I": "INTEGER", "B": "BIGINT", "S": "SMALLINT", "D": "DECIMAL(8,2)",
           "DW": "DECIMAL(20,10)", "F": "DOUBLE", "R": "REAL", "TS": "TIMESTAMP", "BO": "BOOLEAN",
           "BIN": "VARBINARY(8)"}
TYPES: dict[str, SqlType] = {name: parse_type(t) for name, t in COLUMNS.items()}
IMG = pa.struct([pa.field(name, arrow_type(rep(t))) for name, t in TYPES.items()])
TARGETS = ["INTEGER", "SMALLINT", "BIGINT", "DECIMAL(6,2)", "DOUBLE", "REAL", "VARCHAR(5)", "TIMESTAMP", "BOOLEAN",
           "VARBINARY(4)"]
OP = "U"
Row = dict[str, Any]


@dataclass(frozen=True)
class Example:
    """Rows of the table (the reference's values) and each row's system values."""

    rows: list[Row]
    system: list[SystemValues]


def _ts(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def _dec(text: str | None, scale: int) -> Decimal | None:
    """A DECIMAL(p, scale) value as a row holds it (quantized; no negative zero, which Spark's decimal
    cannot hold: a row never carries one)."""
    if text is None:
        return None
    number = Decimal(text).quantize(Decimal(1).scaleb(-scale))
    return number.copy_abs() if number.is_zero() else number


def _row(**given: Any) -> Row:
    return {name: given.get(name) for name in COLUMNS}


def _frame(spark: Any, example: Example) -> Any:
    """The example as one DataFrame: RID, img (the row struct), site, txn, commit_ts."""
    reps = {name: rep(t) for name, t in TYPES.items()}
    imgs = [{name: to_arrow(row[name], reps[name]) for name in COLUMNS} for row in example.rows]
    return spark.createDataFrame(pa.table({
        "RID": pa.array(range(len(example.rows)), pa.int64()),
        "img": pa.array(imgs, IMG),
        "site": pa.array([s.site for s in example.system], pa.string()),
        "txn": pa.array([s.txn for s in example.system], pa.string()),
        "commit_ts": pa.array([s.commit_ts for s in example.system], pa.timestamp("us", tz="UTC")),
    }))


def _binding(df: Any | None = None) -> M.Binding:
    """As `neteffect._binding` builds one: the columns of the struct `img`, the system values as SQL, and
    (given the frame) Spark's kind of an `expression`."""
    columns = {name: (f"img.{sql.ident(name)}", t) for name, t in TYPES.items()}
    kind = (lambda bound: M.spark_kind_of(df.select(F.expr(bound)).schema.fields[0].dataType)) \
        if df is not None else None
    return M.Binding(columns, {"site": "site", "commit_ts": "commit_ts", "txn": "txn", "op": sql.string(OP)},
                     "commit_ts", kind)


def _column(name: str) -> M.Typed:
    return M.typed_column(f"img.{sql.ident(name)}", TYPES[name])


# --- comparing ------------------------------------------------------------------------------------------

RAISES = object()


@dataclass(frozen=True)
class Check:
    """One compiled expression: its SQL, where it is exact, where it fits (conform only), and the
    reference's value on a row (`RAISES` where conform raises)."""

    label: str
    value: str
    ok: str
    reference: Callable[[Row, SystemValues], Any]
    fits: str | None = None


@dataclass
class Outcome:
    mismatches: list[str]
    exact_rows: dict[str, int]
    """Per check, the rows it was exact on (and so compared)."""


def _same(got: Any, want: Any) -> bool:
    """A Spark value (over Arrow) is exactly the reference's: same kind and value; a float bit for bit
    (any NaN equals NaN); a decimal with the same scale (not the sign of a zero, which a decimal column
    does not hold; where text shows it, the text is compared)."""
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, float):
        return isinstance(got, float) and ((math.isnan(got) and math.isnan(want))
                                           or struct.pack(">d", got) == struct.pack(">d", want))
    if isinstance(want, Decimal):
        return isinstance(got, Decimal) and got == want and got.as_tuple().exponent == want.as_tuple().exponent
    if isinstance(want, datetime):
        return isinstance(got, datetime) and got.tzinfo is not None and got == want
    if isinstance(want, (bytes, bytearray)):
        return isinstance(got, (bytes, bytearray)) and bytes(got) == bytes(want)
    return type(got) is type(want) and got == want


def _py(scalar: pa.Scalar) -> Any:
    """A value Spark gave over Arrow as Python's; a timestamp Python cannot hold (Spark reads '0' as the
    year 0 where no guard holds) as text, compared with nothing."""
    try:
        return scalar.as_py()
    except (OverflowError, ValueError):
        return f"<a timestamp outside Python's years: {scalar.value} us>"


def _pylist(table: pa.Table) -> list[dict[str, Any]]:
    columns = {name: [_py(x) for x in table.column(name)] for name in table.column_names}
    rows = [{name: columns[name][i] for name in columns} for i in range(table.num_rows)]
    return sorted(rows, key=lambda r: r["RID"])


def _reference(check: Check, row: Row, system: SystemValues) -> Any:
    try:
        return check.reference(row, system)
    except ConversionError:
        return RAISES


def _run(df: Any, example: Example, checks: Sequence[Check], skip_raising: bool = False) -> Outcome:
    """Every check on every row in ONE Spark job, and where a check is exact, the comparison with the
    reference (`skip_raising`: a row the reference raises on is skipped)."""
    live = [c for c in checks if c.ok != "FALSE"]
    columns = []
    for i, check in enumerate(live):
        columns += [sql.col(check.value, f"v{i}"), sql.col(f"coalesce({check.ok}, FALSE)", f"k{i}")]
        if check.fits is not None:
            columns.append(sql.col(check.fits, f"f{i}"))
    got = _pylist(df.select("RID", *columns).toArrow())
    assert [out["RID"] for out in got] == list(range(len(example.rows)))
    mismatches: list[str] = []
    exact_rows = {c.label: 0 for c in live}
    for out in got:
        row, system = example.rows[out["RID"]], example.system[out["RID"]]
        shown = f"{ {k: v for k, v in row.items() if v is not None} } ({system})"
        for i, check in enumerate(live):
            if not out[f"k{i}"]:
                continue
            exact_rows[check.label] += 1
            want, spark_value = _reference(check, row, system), out[f"v{i}"]
            if check.fits is not None:
                fits = out[f"f{i}"]
                if (fits is False) != (want is RAISES):
                    mismatches.append(f"{check.label}: fits {fits}, reference "
                                      f"{'raises' if want is RAISES else repr(want)} on {shown}")
                    continue
                if want is RAISES:
                    continue
            if want is RAISES:
                if not skip_raising:
                    mismatches.append(f"{check.label}: the reference raises on {shown}")
            elif not _same(spark_value, want):
                mismatches.append(f"{check.label}: Spark {spark_value!r}, reference {want!r} on {shown}")
    return Outcome(mismatches, exact_rows)


def _assert_agree(outcome: Outcome) -> None:
    assert not outcome.mismatches, f"{len(outcome.mismatches)} mismatches:\n" + "\n".join(outcome.mismatches[:25])


def _never_exact(outcome: Outcome, checks: Sequence[Check]) -> list[str]:
    """The checks exact on no row (a condition that is never TRUE would test nothing)."""
    return [c.label for c in checks if c.ok != "FALSE" and outcome.exact_rows.get(c.label, 0) == 0]


# --- the checks -----------------------------------------------------------------------------------------


def to_text_checks() -> list[Check]:
    checks = [Check(f"to_text({name})", t.sql, t.ok, lambda row, _s, name=name: values.to_text(row[name]))
              for name in COLUMNS for t in [M.to_text(_column(name))]]
    commit = M.to_text(M.Typed("commit_ts", "timestamp"))
    checks.append(Check("to_text(commit_ts)", commit.sql, commit.ok, lambda _r, s: values.to_text(s.commit_ts)))
    return checks


def cast_checks() -> list[Check]:
    checks = []
    for name in COLUMNS:
        for target in TARGETS:
            t = M.cast_value(_column(name), parse_type(target))
            checks.append(Check(f"cast_value({name}, {target})", t.sql, t.ok,
                                lambda row, _s, name=name, target=target:
                                values.cast_value(row[name], parse_type(target))))
    for target in TARGETS:
        t = M.cast_value(M.NULL, parse_type(target))
        checks.append(Check(f"cast_value(NULL, {target})", t.sql, t.ok, lambda _r, _s: None))
    return checks


def conform_checks() -> list[Check]:
    checks = []
    for name in COLUMNS:
        for target in TARGETS:
            c = M.conform(_column(name), parse_type(target))
            checks.append(Check(f"conform({name}, {target})", c.sql, c.exact,
                                lambda row, _s, name=name, target=target:
                                values.conform(row[name], parse_type(target)), fits=c.fits))
    for target in TARGETS:
        c = M.conform(M.NULL, parse_type(target))
        checks.append(Check(f"conform(NULL, {target})", c.sql, c.exact, lambda _r, _s: None, fits=c.fits))
    return checks


def _label(method: Method) -> str:
    return json.dumps(method.model_dump(mode="json"), ensure_ascii=False)


def method_checks(methods: Sequence[Method], binding: M.Binding) -> list[Check]:
    checks = []
    for method in methods:
        t = M.compile_method(method, binding)
        checks.append(Check(f"compile_method({_label(method)})", t.sql, t.ok,
                            lambda row, s, method=method: evaluate_method(method, row, s)))
    return checks


def where_checks(clauses: Sequence[str], binding: M.Binding) -> list[Check]:
    def holds(clause: str) -> Callable[[Row, SystemValues], Any]:
        def run(row: Row, system: SystemValues) -> Any:
            try:
                return predicate_holds(clause, row, system.commit_ts)
            except SqlRuntimeError:
                return RAISES
        return run

    return [Check(f"where({clause!r})", M.where(clause, binding), "TRUE", holds(clause)) for clause in clauses]


def _run_where(df: Any, example: Example, clauses: Sequence[str]) -> Outcome:
    """`where` has no ok flag: every row is compared, but those the reference fails on (SqlRuntimeError)."""
    return _run(df, example, where_checks(clauses, _binding(df)), skip_raising=True)


# --- methods and where clauses --------------------------------------------------------------------------


def _c(name: str) -> Column:
    return Column(input=name)


FIXED_METHODS: list[Method] = [
    _c("TXT"), _c("I"), _c("TS"), _c("NOT_A_COLUMN"),
    Constant(value="x'y\\z\n%"), Constant(value=7), Constant(value=None), Constant(value=True), Constant(value=1.5),
    Constant(value=2**70),
    System(name="site"), System(name="commit_ts"), System(name="txn"), System(name="op"),
    Concat(inputs=[_c("TXT"), _c("I"), _c("B"), _c("S"), _c("D"), _c("DW"), _c("TS"), _c("BO"), _c("BIN")], sep="|"),
    Concat(inputs=[_c("TXT"), Constant(value="-"), System(name="site"), System(name="txn"), System(name="op")]),
    Concat(inputs=[_c("F"), _c("TXT")]),  # a double's text is the reference's: never exact
    Concat(inputs=[Cast(input=_c("TXT"), type="DECIMAL(6,2)"), Constant(value="/"),
                   Cast(input=_c("D"), type="INTEGER")], sep=" "),
    Concat(inputs=[Upper(input=_c("TXT")), Lower(input=_c("TXT")), System(name="commit_ts")], sep=","),
    Concat(inputs=[Substring(input=_c("TS"), start=1, length=10), Split(input=_c("TXT"), sep=".", index=1)]),
    *[Concat(inputs=[Cast(input=_c("TXT"), type=t), Constant(value=";")]) for t in TARGETS],
    Upper(input=Concat(inputs=[_c("TXT"), Constant(value="ß"), _c("BIN")], sep="x")),
    Lower(input=Trim(input=_c("TXT"))), Lower(input=Upper(input=_c("TXT"))),
    Trim(input=Concat(inputs=[Constant(value="  "), _c("TXT"), Constant(value=" \t ")])),
    Split(input=Concat(inputs=[_c("TXT"), _c("D")], sep=","), sep=",", index=1),
    Split(input=_c("TXT"), sep=".", index=0), Split(input=_c("TXT"), sep=" ", index=2),
    Split(input=_c("TXT"), sep="|", index=1), Split(input=_c("TXT"), sep="\\", index=1),
    Split(input=Cast(input=_c("D"), type="VARCHAR(10)"), sep=".", index=1),
    Split(input=_c("TS"), sep=":", index=2), Split(input=_c("BIN"), sep="0", index=1),
    Substring(input=_c("TXT"), start=2, length=3), Substring(input=_c("TXT"), start=30),
    Substring(input=Upper(input=_c("TXT")), start=1, length=1),
    Substring(input=Cast(input=_c("DW"), type="TEXT"), start=3, length=6),
    Substring(input=Concat(inputs=[_c("BO"), _c("S")]), start=2),
    Cast(input=_c("TXT"), type="INTEGER"), Cast(input=Trim(input=_c("TXT")), type="BIGINT"),
    Cast(input=Trim(input=_c("TXT")), type="DECIMAL(6,2)"),
    Cast(input=Substring(input=_c("TXT"), start=1, length=4), type="SMALLINT"),
    Cast(input=Concat(inputs=[_c("I"), Constant(value=".5")]), type="DOUBLE"),
    Cast(input=Concat(inputs=[_c("S"), Constant(value="1")]), type="INTEGER"),
    Cast(input=Cast(input=_c("D"), type="INTEGER"), type="VARCHAR(5)"),
    Cast(input=Cast(input=_c("F"), type="INTEGER"), type="DECIMAL(6,2)"),
    Cast(input=Lower(input=_c("TXT")), type="BOOLEAN"), Cast(input=_c("TXT"), type="VARBINARY(4)"),
    Cast(input=Trim(input=_c("TXT")), type="TIMESTAMP"), Cast(input=System(name="commit_ts"), type="VARCHAR(30)"),
    Cast(input=System(name="site"), type="INTEGER"), Cast(input=Constant(value="12.5"), type="DECIMAL(6,2)"),
    Cast(input=Constant(value=None), type="INTEGER"),
    Upper(input=Expression(sql="concat(TXT, '!')")), Concat(inputs=[Expression(sql="D + 1"), _c("I")], sep="~"),
    Cast(input=Expression(sql="try_cast(TXT AS INT)"), type="SMALLINT"), Expression(sql="length(TXT)"),
]

WHERE_CLAUSES = [
    "I > 10", "I BETWEEN -5 AND 100", "I % 7 = 3", "I <=> NULL", "I IS NOT NULL AND D IS NULL",
    "D >= 12.5", "D IN (0.00, 12.70, -0.50)", "D * 2 > I", "abs(D) < 100", "round(D, 1) = 12.7",
    "cast(I AS DECIMAL(12,2)) + D > 100", "NOT (D >= 0)", "if(D > 0, I, 0) > 5", "D DIV 3 = 4",
    "TXT LIKE 'a%'", "TXT ILIKE '%B_'", "TXT RLIKE '^[0-9]+$'", "upper(trim(TXT)) = 'ABC'",
    "length(TXT) > 3 OR I IS NULL", "try_cast(TXT AS INT) >= 0", "coalesce(TXT, 'none') <> 'none' AND NOT (I < 0)",
    "substring(TXT, 2, 3) = 'bc'", "TXT IN ('abc', 'T', '')", "TXT > 'b'", "TXT IS DISTINCT FROM 'abc'",
    "CASE WHEN I > 0 THEN TXT ELSE 'neg' END = 'neg'", "concat(TXT, '-', lower(TXT)) LIKE '%-%'",
    "try_cast(TXT AS DECIMAL(6,2)) > D", "regexp_replace(TXT, '[0-9]', '#') = '##'",
    "BO AND TS < current_timestamp()",
]

# --- strategies -----------------------------------------------------------------------------------------

INTERESTING_TEXT = [
    " 12 ", "12.7", "-0.5", "1e3", "abc", "", "99999999999999999999", "true", "T", "0x0aff", "12", "0", "1", "f",
    "FALSE", "+7", ".5", "5.", "-0", "12.345", "-0.005", "9999.995", "2147483648", "-32769", "1e999", "1E-5",
    "9223372036854775807", "9223372036854775807.9", "-9223372036854775808.9", "9223372036854775808",
    "2020-01-05 10:00:00", "2020-01-05T10:00:00Z", "2020-01-05T10:00:00.123+05:30", "1000-01-01", "2020-02-30",
    "2020-01-05T23:59:59.999999-14:00", "2020-01-05T10:00:00+18:00", "0aff", "0XAB", "0x", "zz", "aBc Déf",
    " a,b,c ", "ß", "😀x", "a.b.c", "x|y|z", "a\\b", "yes", "NaN", "Infinity", "1.5e10", "00012.50", "12.0",
    "3.4028236e38", "123\n", "1e3\n", "2020-01-05\n", "İı", "ΑΣ",
]
TEXT_ALPHABET = "0123456789.-+eExXabfFtT :,|\\ßé😀"


texts = st.sampled_from(INTERESTING_TEXT) | st.text(TEXT_ALPHABET, max_size=24)
doubles = (st.sampled_from([0.0, -0.0, 0.1, 0.5, -2.5, 1.5, 1e16, 2.0**31, -(2.0**63), 2.0**63 - 1024, 1e300,
                            3.5e38, 5e-324, math.nan, math.inf, -math.inf, 2.0**63]) | st.floats())
reals = doubles.filter(lambda f: not math.isfinite(f) or abs(f) <= REAL_MAX)
timestamps = st.sampled_from([_ts(999, 3, 4, 5, 6, 7, 120000), _ts(1, 1, 1), _ts(1969, 12, 31, 23, 59, 59, 999999),
                              _ts(1970, 1, 1), _ts(2020, 1, 5, 10, 0, 0, 1), _ts(9999, 12, 31, 23, 59, 59, 999999),
                              _ts(12, 2, 29, 0, 0, 0, 500)]) | st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999), timezones=st.just(UTC))


def _ints(bits: int) -> st.SearchStrategy[int]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    edges = [v for v in (0, 1, -1, 2, 12, 255, 9999, 10000, -10000, 32767, -32768, 32768, -32769, 2**31 - 1, -(2**31),
                         2**31, 2**53 + 1, low, high) if low <= v <= high]
    return st.sampled_from(edges) | st.integers(low, high)


def _decimals(precision: int, scale: int, edges: Sequence[str]) -> st.SearchStrategy[Decimal]:
    limit = Decimal(10) ** (precision - scale) - Decimal(1).scaleb(-scale)
    drawn = st.decimals(min_value=-limit, max_value=limit, places=scale, allow_nan=False, allow_infinity=False)
    return (st.sampled_from([Decimal(e) for e in edges]) | drawn).map(lambda d: _dec(str(d), scale))


row_values = st.fixed_dictionaries({
    "TXT": st.none() | texts,
    "I": st.none() | _ints(32),
    "B": st.none() | _ints(64),
    "S": st.none() | _ints(16),
    "D": st.none() | _decimals(8, 2, ["0", "-0.50", "12.70", "100.00", "9999.99", "10000.00", "-9999.99", "0.01",
                                      "999999.99", "-999999.99", "32767.50", "-1.05"]),
    "DW": st.none() | _decimals(20, 10, ["0.0000000001", "-0.0000001000", "1234567890.1234567890", "0",
                                         "-9999999999.9999999999", "1.5", "12.7"]),
    "F": st.none() | doubles,
    "R": st.none() | reals,
    "TS": st.none() | timestamps,
    "BO": st.none() | st.booleans(),
    "BIN": st.none() | st.binary(max_size=8),
})
system_values = st.builds(SystemValues, site=st.sampled_from(["A", "hq", "Ünï", "42"]), commit_ts=timestamps,
                          txn=st.text("t0123456789-", min_size=1, max_size=6),
                          op=st.just(OP))
examples = st.lists(st.tuples(row_values, system_values), min_size=1, max_size=6).map(
    lambda pairs: Example([r for r, _ in pairs], [s for _, s in pairs]))
where_examples = examples

SEPARATORS = [",", ".", "|", " ", "-", "a", "\\", "$", "*", "ab", "e", "0", "\t"]
leaves = st.one_of(
    st.sampled_from(list(COLUMNS)).map(_c),
    st.one_of(st.none(), st.text(TEXT_ALPHABET + "'%", max_size=6),
              st.integers(-(2**63), 2**63 - 1), st.booleans()).map(lambda v: Constant(value=v)),
    st.sampled_from(["site", "commit_ts", "txn", "op"]).map(lambda n: System(name=n)),
)


def _over(inner: st.SearchStrategy[Method]) -> st.SearchStrategy[Method]:
    """A method over methods drawn from `inner`."""
    return st.one_of(
        st.builds(lambda xs, sep: Concat(inputs=xs, sep=sep), st.lists(inner, min_size=1, max_size=3),
                  st.sampled_from(["", "-", "|", " "])),
        st.builds(lambda x, sep, i: Split(input=x, sep=sep, index=i), inner, st.sampled_from(SEPARATORS),
                  st.integers(0, 3)),
        st.builds(lambda x, start, length: Substring(input=x, start=start, length=length), inner,
                  st.integers(1, 8), st.none() | st.integers(1, 6)),
        st.builds(lambda x: Upper(input=x), inner), st.builds(lambda x: Lower(input=x), inner),
        st.builds(lambda x: Trim(input=x), inner),
        st.builds(lambda x, t: Cast(input=x, type=t), inner, st.sampled_from([*TARGETS, "TEXT", "DECIMAL(20,10)"])),
    )


methods_2_deep = _over(_over(leaves) | leaves)
"""A method over a method over columns, constants and system values."""

PROPERTY = settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large])
# no shrinking: a failure names each check and row that disagree, and shrinking Spark jobs takes minutes

# --- the edge rows --------------------------------------------------------------------------------------

EDGE_ROWS: list[Row] = [
    _row(TXT=text, I=i, B=b, S=s, D=_dec(d, 2), DW=_dec(dw, 10), F=f, R=r, TS=ts, BO=bo, BIN=binary)
    for text, i, b, s, d, dw, f, r, ts, bo, binary in [
        (" 12 ", 12, 12, 12, "12.70", "0.0000000001", 0.1, 1.5, _ts(999, 3, 4, 5, 6, 7, 120000), True, b"\x0a\xff"),
        ("12.7", -1, -(2**63), -32768, "-0.50", "-1234567890.1234567890", -0.0, -2.5, _ts(1, 1, 1), False, b""),
        ("-0.5", 2**31 - 1, 2**63 - 1, 32767, "100.00", "0", 1e16, 3.4e38, _ts(1969, 12, 31, 23, 59, 59, 999999),
         None, b"\x00"),
        ("1e3", -(2**31), 2**53 + 1, 0, "9999.99", "1.5", -(2.0**63), math.nan, _ts(2020, 1, 5, 10, 0, 0, 1), True,
         b"\x01\x02\x03\x04\x05"),
        ("abc", 0, 32768, 1, "10000.00", "12.7", math.inf, -math.inf, _ts(9999, 12, 31, 23, 59, 59, 999999), False,
         b"\xab\xcd\xef\x01"),
        ("", 1, -32769, -1, "-999999.99", "-0.0000001000", 2.0**31, 5e-324, _ts(1970, 1, 1), True, b"\xff" * 8),
        ("99999999999999999999", 10000, 0, 9999, "0.01", "9999999999.9999999999", 1e300, 0.0, None, None, None),
        ("true", None, None, None, "0.00", None, None, None, _ts(12, 2, 29, 0, 0, 0, 500), None, None),
        ("T", 32768, 1, None, "-1.05", None, 0.5, None, None, None, None),
        ("0x0aff", None, None, None, None, None, math.nan, None, None, None, None),
        ("1", 2, 9999, 2, "1.00", "1.0000000000", 1.0, 2.0**63 - 1024, None, True, b"\x01"),
        # Spark rounds this wide decimal's cast to INT (1E8); an integer cast truncates it
        ("99999999.9999999999", None, None, None, None, "99999999.9999999999", None, None, None, None, None),
    ]
] + [_row(TXT=text, D=_dec("1.50", 2), I=7) for text in INTERESTING_TEXT] + [
    _row(),  # all NULL: a NULL fits every target (conform), casts to NULL, renders as NULL
]
SYSTEM = SystemValues("hq", _ts(2026, 1, 5, 11, 0, 0, 250000), "t17", OP)
OTHER_SYSTEM = SystemValues("42", _ts(999, 12, 31, 23, 59, 59, 10), "t-1", OP)
EDGES = Example(EDGE_ROWS, [SYSTEM if i % 2 else OTHER_SYSTEM for i in range(len(EDGE_ROWS))])
WHERE_EDGES = EDGES


# --- 1. to_text -----------------------------------------------------------------------------------------


def test_to_text_is_exact_for_every_type_but_doubles() -> None:
    for name, t in TYPES.items():
        assert (M.to_text(_column(name)).ok == "TRUE") == (rep(t).kind != "double"), name


CHECKS = {"to_text": to_text_checks, "cast_value": cast_checks, "conform": conform_checks}
"""Each typing step's checks: 1. `to_text`, 2. `cast_value`, 3. `conform`."""


@pytest.mark.parametrize("step", CHECKS)
def test_typing_steps_on_the_edges(spark: Any, step: str) -> None:
    checks = CHECKS[step]()
    outcome = _run(_frame(spark, EDGES), EDGES, checks)
    _assert_agree(outcome)
    assert not _never_exact(outcome, checks)


@pytest.mark.parametrize("step", CHECKS)
@PROPERTY
@given(example=examples)
def test_typing_steps_equal_the_reference(spark: Any, step: str, example: Example) -> None:
    _assert_agree(_run(_frame(spark, example), example, CHECKS[step]()))


# --- 4. compile_method ----------------------------------------------------------------------------------


def test_methods_on_the_edges(spark: Any) -> None:
    df = _frame(spark, EDGES)
    checks = method_checks(FIXED_METHODS, _binding(df))
    outcome = _run(df, EDGES, checks)
    _assert_agree(outcome)
    assert not _never_exact(outcome, checks)


@PROPERTY
@given(example=examples, drawn=st.lists(methods_2_deep, min_size=10, max_size=25))
def test_compile_method_equals_the_reference(spark: Any, example: Example, drawn: list[Method]) -> None:
    df = _frame(spark, example)
    _assert_agree(_run(df, example, method_checks([*FIXED_METHODS, *drawn], _binding(df))))


# --- 5. where -------------------------------------------------------------------------------------------


def test_no_where_clause_holds() -> None:
    assert M.where(None, _binding()) == "TRUE"


def test_where_on_the_edges(spark: Any) -> None:
    outcome = _run_where(_frame(spark, WHERE_EDGES), WHERE_EDGES, WHERE_CLAUSES)
    _assert_agree(outcome)
    assert sum(outcome.exact_rows.values()) == len(WHERE_CLAUSES) * len(WHERE_EDGES.rows)


@PROPERTY
@given(example=where_examples)
def test_where_equals_predicate_holds(spark: Any, example: Example) -> None:
    _assert_agree(_run_where(_frame(spark, example), example, WHERE_CLAUSES))


# --- the mismatches found (since fixed), kept as regression tests -----------------------------------------


def _one_conversion(kind: str, column: str, target: str) -> Callable[[Any], list[Check]]:
    make = {"cast_value": cast_checks, "conform": conform_checks}[kind]
    return lambda _df: [c for c in make() if c.label == f"{kind}({column}, {target})"]


def _one_method(method: Method) -> Callable[[Any], list[Check]]:
    return lambda df: method_checks([method], _binding(df))


def _one_where(clause: str) -> Callable[[Any], list[Check]]:
    return lambda df: where_checks([clause], _binding(df))


def _pin(name: str, reason: str, row: Row, checks: Callable[[Any], list[Check]]) -> Any:
    """A mismatch this test once found, kept as a regression test: `reason` says what it was."""
    return pytest.param(row, checks, id=name)


PINNED = [
    _pin("bool-text-final-newline",
         "engine/spark/methods.py _BOOL_TEXT: Java's `$` matches before a final line terminator, so 'true\\n' is "
         "exact, and lower('true\\n') is not 'true': Spark FALSE, the reference True",
         _row(TXT="true\n"), _one_conversion("conform", "TXT", "BOOLEAN")),
    _pin("hex-text-final-newline",
         "engine/spark/methods.py _HEX_TEXT: 'ab\\n' passes the guard (`$`), unhex('ab\\n') is NULL: the "
         "reference b'\\xab'",
         _row(TXT="ab\n"), _one_conversion("cast_value", "TXT", "VARBINARY(4)")),
    _pin("number-text-final-nel",
         "engine/spark/methods.py _INT_TEXT: '12\\x85' (NEL) passes the guard (`$`), Spark's cast does not trim "
         "it (NULL, fits FALSE): the reference strips it, 12",
         _row(TXT="12\x85"), _one_conversion("conform", "TXT", "INTEGER")),
    _pin("timestamp-offset-over-18h",
         "engine/spark/methods.py _ISO_TEXT admits offsets to 23:59; Spark's cast takes up to 18:00 (NULL, fits "
         "FALSE): the reference 2019-12-31 05:00 UTC",
         _row(TXT="2020-01-01T00:00:00+19:00"), _one_conversion("conform", "TXT", "TIMESTAMP")),
    _pin("double-2p63-to-bigint",
         "engine/spark/methods.py cast_value: try_cast(9.223372036854775808E18 AS BIGINT) is 9223372036854775807 "
         "in Spark (its range check compares as doubles): the reference None (out of range)",
         _row(F=2.0**63), _one_conversion("cast_value", "F", "BIGINT")),
    _pin("decimal-cast-negative-zero",
         "engine/spark/methods.py to_text of cast_value(text, DECIMAL): the reference keeps the sign of "
         "Decimal('-0') quantized ('-0.00'), Spark's decimal has none ('0.00')",
         _row(TXT="-0"), _one_method(Concat(inputs=[Cast(input=_c("TXT"), type="DECIMAL(6,2)")]))),
    _pin("where-decimal-cast-overflow-crashes-reference",
         "engine/sql/casts.py _decimal: try_cast('1e30' AS DECIMAL(6,2)) raises decimal.InvalidOperation "
         "(quantize beyond 28 digits) instead of NULL; Spark gives NULL (the clause is FALSE)",
         _row(TXT="1e30", D=_dec("0.00", 2)), _one_where("try_cast(TXT AS DECIMAL(6,2)) > D")),
    _pin("where-double-meets-decimal-literal",
         "engine/sql/evaluate.py: a DOUBLE meeting a decimal literal is compared exactly (Decimal(0.1) > 0.1); "
         "Spark casts the literal to DOUBLE: 'F = 0.1' holds in Spark, not in the reference",
         _row(F=0.1), _one_where("F = 0.1")),
    _pin("where-nan",
         "engine/sql/evaluate.py: NaN does not compare (NULL) in the reference; Spark orders NaN above every "
         "number and NaN = NaN: 'F > 1' holds in Spark, not in the reference",
         _row(F=math.nan), _one_where("F > 1")),
]


@pytest.mark.parametrize(("row", "checks"), PINNED)
def test_a_mismatch_once_found_stays_fixed(spark: Any, row: Row, checks: Callable[[Any], list[Check]]) -> None:
    example = Example([row], [SYSTEM])
    df = _frame(spark, example)
    _assert_agree(_run(df, example, checks(df)))
