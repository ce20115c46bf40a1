"""Findings: what a rule says about a model, as small typed values.

Codes, severities and titles live in one table (`CODES`), so the command
line, the Problems panel and the tests read the same source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Location:
    """Where a finding points; fields that do not apply stay None."""

    mapping: str | None = None
    table: str | None = None
    column: str | None = None
    group: str | None = None
    index: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True, order=True)
class Finding:
    code: str
    message: str
    location: Location = field(default_factory=Location)

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity.value, "message": self.message,
                "location": self.location.as_dict()}

    def sort_key(self) -> tuple[int, str, str, str]:
        return (0 if self.severity is Severity.ERROR else 1, self.code,
                self.location.column or "", self.message)


@dataclass(frozen=True)
class Code:
    severity: Severity
    title: str


E, W = Severity.ERROR, Severity.WARNING
CODES: dict[str, Code] = {
    "DK001": Code(E, "mapping has no distribution key"),
    "DK002": Code(E, "distribution-key column is not mapped"),
    "DK003": Code(E, "distribution key longer than 256 bytes"),
    "DK004": Code(E, "distribution-key column is a large object"),
    "DK005": Code(E, "distribution-key column is a medium character column"),
    "DK006": Code(E, "distribution-key column is BIT"),
    "DK007": Code(E, "distribution-key column is binary"),
    "DK008": Code(W, "distribution-key column is approximate numeric"),
    "DK009": Code(W, "source columns feeding the key are not unique"),
    "DK010": Code(W, "distribution key is not unique in the target"),
    "DK011": Code(E, "distribution key names an unknown column"),
    "BI001": Code(E, "reverse mapping is missing or does not go back"),
    "BI002": Code(E, "distribution key is not reversible"),
    "NN001": Code(E, "no NOT NULL key column in protected replication"),
    "NL001": Code(E, "NOT NULL target column is not mapped"),
    "NL002": Code(W, "NOT NULL column copied from a nullable column"),
    "MP001": Code(E, "method reads an unknown source column"),
    "MP002": Code(E, "mapping names an unknown server or table"),
    "MP003": Code(E, "where clause is not valid"),
    "MP004": Code(E, "expression is not valid Spark SQL"),
    "MP005": Code(E, "column map names an unknown target column"),
    "MP006": Code(W, "regular expression may backtrack exponentially"),
    "MP007": Code(E, "mapping writes a generated column"),
    "CR001": Code(E, "column is in more than one column group"),
    "CR002": Code(E, "additive or average on a group that is not one numeric column"),
    "CR003": Code(E, "append method on a unique index with a non-character column"),
    "CR004": Code(E, "designated column is missing or unsuitable"),
    "CR005": Code(W, "no backup method for ties"),
    "CR006": Code(W, "method does not converge with several masters"),
    "CR007": Code(E, "site priority without a priority for every writing server"),
    "CR008": Code(E, "column subsetting with a method that needs the whole group"),
    "CR009": Code(E, "table hierarchy resolves conflicts unevenly"),
    "CR010": Code(E, "conflict settings name an unknown table, column or index"),
    "TY001": Code(E, "user type replicated without stream support"),
    "TY002": Code(W, "floating point crosses native formats"),
    "TY003": Code(W, "SERIAL key column with several masters"),
    "TY004": Code(W, "large object may not be updated with changed columns only"),
    "TY005": Code(W, "column is fed a value of an incompatible or narrower type"),
    "TY006": Code(W, "a column's type is not a type of its server's DBMS"),
    "SC001": Code(E, "table differs from its latest replication definition"),
    "SC002": Code(E, "replication definitions are inconsistent"),
    "TB001": Code(E, "key or index names an unknown column"),
    "TB002": Code(E, "table parent is unknown or circular"),
    "TB003": Code(E, "column default is not one constant SQL expression"),
    "TB004": Code(E, "column names differ only in case"),
    "TB005": Code(E, "key or index names a column twice"),
    "TB006": Code(E, "foreign key names an unknown table or column, or does not match"),
    "TB007": Code(E, "partitioning, generated, identity, enum, index or check is malformed"),
    "FK001": Code(W, "child rows may arrive without their parent table"),
    "PT001": Code(W, "partitioned source does not publish via its partition root"),
}


def count(findings: list[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    return errors, len(findings) - errors
