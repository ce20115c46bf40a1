"""Every code in `CODES` has a firing case and a near miss in the rule tests.

The cases live in the topic modules (`CASES` in each); this module runs every
one of them (it fires; its near miss stays silent) and checks that together
they cover every code, so a new code without tests fails here.
"""

from __future__ import annotations

import importlib

import pytest
from rulekit import Case, case_params

from engine.rules import CODES, Severity

TOPIC_MODULES = [
    "test_dkey_rules",
    "test_bidirectional_rules",
    "test_null_and_mapping_rules",
    "test_conflict_rules",
    "test_type_rules",
    "test_table_rules",
    "test_type_compat_rules",
    "test_rules_schema_features",
    "test_native_types",
]


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for name in TOPIC_MODULES:
        cases.extend(importlib.import_module(name).CASES)
    return cases


@pytest.mark.parametrize("case", case_params(all_cases()))
def test_case_fires(case: Case) -> None:
    case.check_fires()


@pytest.mark.parametrize("case", case_params(all_cases()))
def test_case_near_miss_is_silent(case: Case) -> None:
    case.check_misses()


@pytest.mark.parametrize("code", sorted(CODES))
def test_code_has_a_firing_case_and_a_near_miss(code: str) -> None:
    assert any(c.code == code for c in all_cases()), \
        f"{code} ({CODES[code].title}) has no firing test: add a Case to a topic module"


def test_cases_name_only_known_codes() -> None:
    unknown = sorted({c.code for c in all_cases()} - set(CODES))
    assert not unknown, unknown


def test_catalog_covers_contract_and_extension_codes() -> None:
    """The contract's codes plus the engine's extensions, each with the contract's severity."""
    contract_warnings = {"DK008", "DK009", "DK010", "NL002", "CR005", "CR006", "TY002", "TY003", "TY004"}
    contract = (
        {f"DK{i:03}" for i in range(1, 12)}
        | {
            "BI001",
            "BI002",
            "NN001",
            "NL001",
            "NL002",
            "MP001",
            "MP002",
            "MP003",
            "SC001",
            "SC002",
            "TY001",
            "TY002",
            "TY003",
            "TY004",
        }
        | {f"CR{i:03}" for i in range(1, 11)}
    )
    assert contract <= set(CODES)
    assert {"MP004", "MP005", "TB001", "TB002", "TB003", "TY005"} <= set(CODES)
    assert CODES["TY005"].severity is Severity.WARNING
    for code in contract:
        want = Severity.WARNING if code in contract_warnings else Severity.ERROR
        assert CODES[code].severity is want, code
    assert {c.code for c in all_cases()} == set(CODES)
