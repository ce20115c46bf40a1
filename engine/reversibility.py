"""Does a key survive a mapping followed by its reverse? (seed 000, docs/contract.md §1)

The forward mapping's column maps are substituted into the reverse
mapping's, and the composed term is simplified by the inverse pairs of the
contract: `column`<->`column`; `concat(sep)`<->`split(sep, i)` for each input
i; a `cast` between a character type and an exact numeric or date type <->
the opposite `cast`. A source column survives when its term simplifies back
to that column. Everything else has no inverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from engine.core.narrowing import narrowing
from engine.core.types import SqlType, TypeFamily, parse_type
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
from engine.model.schema import Mapping, Table

_INVERTIBLE_CAST = (TypeFamily.EXACT_NUMERIC, TypeFamily.DATETIME)


@dataclass(frozen=True)
class Term:
    """A composed value: `col`, `concat`, `split`, `cast`, `text` (implicit cast to text) or `opaque`."""

    op: str
    args: tuple[Term, ...] = ()
    name: str = ""
    sep: str = ""
    index: int = 0
    type: SqlType | None = None


OPAQUE = Term("opaque")


def survives(forward: Mapping, back: Mapping, source: Table, column: str) -> bool:
    """True when `back(forward(row))[column] == row[column]` by the inverse pairs."""
    method = back.columns.get(column)
    if method is None:
        return False
    term = _simplify(_compose(method, forward), source)
    return term == Term("col", name=column)


def explain(forward: Mapping, back: Mapping, column: str) -> str:
    """A short reason why `column` does not come back, for messages and tooltips."""
    method = back.columns.get(column)
    if method is None:
        return f"{back.id} does not map {column}"
    sides = _forward_sides(forward, method)
    return f"{back.id} computes {column} as {describe(method)}, which does not undo {forward.id}" \
        + (f": {' and '.join(sides)}" if sides else "")


def _forward_sides(forward: Mapping, method: Method) -> list[str]:
    """What `forward` writes into each column `method` reads: half of the round trip, and often the half at
    fault (a forward `expression` under a plain copy back), so a message never blames only the other half."""
    read = dict.fromkeys(_inputs(method))
    return [f"{forward.id} computes {c} as {describe(forward.columns[c])}" if c in forward.columns
            else f"{forward.id} does not map {c}" for c in read]


def _inputs(method: Method) -> list[str]:
    """The column names a method tree reads, in order."""
    if isinstance(method, Column):
        return [method.input]
    return [name for child in method.inputs_of() for name in _inputs(child)]


def describe(method: Method) -> str:
    """A compact one-line rendering of a method tree, e.g. `split(CUST_KEY, '-', 1)`."""
    if isinstance(method, Column):
        return method.input
    args = ", ".join(describe(m) for m in method.inputs_of())
    match method:
        case Concat():
            extra = f", sep={method.sep!r}" if method.sep else ""
        case Split():
            extra = f", {method.sep!r}, {method.index}"
        case Cast():
            extra = f" AS {method.type}"
        case Substring():
            extra = f", {method.start}, {method.length}"
        case Constant():
            extra = repr(method.value)
        case System():
            extra = method.name
        case Expression():
            extra = method.sql
        case Upper() | Lower() | Trim():
            extra = ""
        case _:
            assert_never(method)
    return f"{method.method}({args}{extra})"


def _compose(method: Method, forward: Mapping) -> Term:
    """The reverse mapping's term with each of its inputs replaced by the forward mapping's term."""
    if isinstance(method, Column):
        inner = forward.columns.get(method.input)
        return _term(inner) if inner is not None else OPAQUE
    if isinstance(method, Concat):
        return Term("concat", tuple(_compose(m, forward) for m in method.inputs), sep=method.sep)
    if isinstance(method, Split):
        return Term("split", (_compose(method.input, forward),), sep=method.sep, index=method.index)
    if isinstance(method, Cast):
        return Term("cast", (_compose(method.input, forward),), type=parse_type(method.type))
    return OPAQUE


def _term(method: Method) -> Term:
    """The forward mapping's term over source columns."""
    if isinstance(method, Column):
        return Term("col", name=method.input)
    if isinstance(method, Concat):
        return Term("concat", tuple(_term(m) for m in method.inputs), sep=method.sep)
    if isinstance(method, Split):
        return Term("split", (_term(method.input),), sep=method.sep, index=method.index)
    if isinstance(method, Cast):
        return Term("cast", (_term(method.input),), type=parse_type(method.type))
    return OPAQUE


def _family(term: Term, source: Table) -> TypeFamily | None:
    if term.op == "col":
        col = source.column(term.name)
        return col.sql_type.family if col else None
    if term.op in ("concat", "split", "text"):
        return TypeFamily.CHARACTER
    if term.op == "cast" and term.type is not None:
        return term.type.family
    return None


def _as_text(term: Term, source: Table) -> Term:
    """`concat` renders non-character inputs as text: an implicit cast."""
    return term if _family(term, source) is TypeFamily.CHARACTER else Term("text", (term,))


def _simplify(term: Term, source: Table) -> Term:
    args = tuple(_simplify(a, source) for a in term.args)
    term = Term(term.op, args, term.name, term.sep, term.index, term.type)
    if term.op == "split":
        inner = args[0]
        if inner.op == "concat" and inner.sep and inner.sep == term.sep and term.index < len(inner.args):
            return _as_text(inner.args[term.index], source)
        return term
    if term.op == "text":
        inner = args[0]
        if inner.op == "cast" and _family(inner, source) in _INVERTIBLE_CAST \
                and _family(inner.args[0], source) is TypeFamily.CHARACTER:
            return inner.args[0]
        return term
    if term.op == "concat":
        parts = tuple(_simplify(_as_text(a, source), source) for a in args)
        whole = parts[0].args[0] if parts and parts[0].op == "split" else None
        if whole is not None and term.sep and all(
                p.op == "split" and p.sep == term.sep and p.index == i and p.args[0] == whole
                for i, p in enumerate(parts)):
            return whole
        return Term("concat", parts, sep=term.sep)
    if term.op == "cast" and term.type is not None:
        inner = args[0]
        want = term.type.family
        if inner.op in ("text", "cast") and _family(inner, source) is TypeFamily.CHARACTER:
            original = inner.args[0]
            have = _family(original, source)
            if have in _INVERTIBLE_CAST and have is want and _keeps(original, term, source):
                return original
        if inner.op == "cast" and want is TypeFamily.CHARACTER:
            original = inner.args[0]
            if _family(original, source) is TypeFamily.CHARACTER and _family(inner, source) in _INVERTIBLE_CAST \
                    and _keeps(original, term, source):
                return original
    return term


def _keeps(original: Term, back: Term, source: Table) -> bool:
    """Whether the cast `back` is the opposite of the cast there: to a type that holds every value of
    `original` (not TIMESTAMP -> text -> DATE, nor DECIMAL(10,2) -> text -> INTEGER, nor VARCHAR(10) ->
    INTEGER -> VARCHAR(5)). A text between too short for some values is TY005's, on the mapping there."""
    have = _type(original, source)
    if have is None:
        return True  # text of no declared type (a concat, a split): nothing known to cut
    return back.type is None or narrowing(have, back.type) is None


def _type(term: Term, source: Table) -> SqlType | None:
    if term.op == "col":
        col = source.column(term.name)
        return col.sql_type if col else None
    return term.type if term.op == "cast" else None
