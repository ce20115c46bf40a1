"""The rule registry (`engine.rules.registry`): every code the validator can emit is declared once, found by
its code, explained, and its example fires it while its near miss does not (so the documentation is honest).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import engine.rules
from engine.model import Model
from engine.rules import CODES, validate
from engine.rules.explain import page
from engine.rules.registry import FAMILIES, REGISTRY, checks_of, lookup

RULES_DIR = Path(engine.rules.__file__).parent
CODE_LITERAL = re.compile(r"[\"']([A-Z]{2}\d{3})[\"']")


def rule_sources() -> dict[Path, str]:
    """The rule modules' source, the catalog of declarations left out."""
    return {p: p.read_text(encoding="utf-8") for p in sorted(RULES_DIR.rglob("*.py")) if "catalog" not in p.parts}


def emitted_in_source() -> set[str]:
    return {code for text in rule_sources().values() for code in CODE_LITERAL.findall(text)}


def test_every_code_in_the_rules_source_is_registered_and_every_registered_code_is_emitted() -> None:
    emitted = emitted_in_source()
    assert emitted - set(REGISTRY) == set(), "codes emitted but not declared in engine/rules/catalog"
    assert set(REGISTRY) - emitted == set(), "codes declared but emitted by no rule"
    assert CODES is REGISTRY


def _function(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_each_check_names_exactly_the_codes_it_emits() -> None:
    """`@emits` on a function lists the codes its body names, and every code is named in such a function:
    `grep DK009` lands on the function that emits it."""
    declared: dict[str, set[str]] = {}
    for code in REGISTRY:
        names = checks_of(code)
        assert names, f"{code}: no function is marked @emits({code!r})"
        for name in names:
            declared.setdefault(name, set()).add(code)
    for name, codes in declared.items():
        source = inspect.getsource(_function(name))  # type: ignore[arg-type]
        assert set(CODE_LITERAL.findall(source)) == codes, name
    assert set().union(*declared.values()) == emitted_in_source()


def test_the_families_name_their_catalog_modules_and_hold_every_code_once() -> None:
    for letters, _, module in FAMILIES:
        assert module.__name__ == f"engine.rules.catalog.{letters.lower()}"
        assert all(rule.code.startswith(letters) for rule in module.RULES)
    assert sum(len(module.RULES) for _, _, module in FAMILIES) == len(REGISTRY)
    assert lookup(" dk009 ") is REGISTRY["DK009"]
    assert lookup("DK999") is None


@pytest.mark.parametrize("code", list(REGISTRY))
def test_example_fires_the_code_and_near_miss_does_not(code: str) -> None:
    rule = REGISTRY[code]
    assert rule.example is not None and rule.near_miss is not None, f"{code} has no example or near miss"
    fired = [f for f in validate(Model.model_validate(rule.example)) if f.code == code]
    assert fired, f"{code}'s example does not fire it"
    assert all(f.severity is rule.severity for f in fired)
    missed = [f.message for f in validate(Model.model_validate(rule.near_miss)) if f.code == code]
    assert missed == [], f"{code}'s near miss fires it"


@pytest.mark.parametrize("code", list(REGISTRY))
def test_each_code_explains_itself(code: str) -> None:
    rule = REGISTRY[code]
    text = page(rule)
    assert text.startswith(f"# {code}: {rule.title}\n")
    for part in (f"Severity: **{rule.severity.value}**", rule.meaning, rule.fix, "## Example", "## Near miss",
                 f"{rule.severity.value} {code} ("):  # what validate reports on the example
        assert part in text, (code, part)
    for name in checks_of(code):
        assert f"`{name}`" in text
