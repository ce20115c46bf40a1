"""The text that explains a validation code: `mapwright explain CODE` prints it, and the documentation's page of
the code (docs/codes/CODE.md, written by docs/gen_codes.py) is the same text.

It is Markdown, readable as it is in a terminal. The example and the near miss are validated as they are
shown, so the page says what `mapwright validate` reports on the example.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from engine.rules.registry import FAMILIES, REGISTRY, checks_of, family_title
from engine.rules.rule import ModelDict, Rule, Severity

WIDTH = 100
SAYS_ERROR = " (`validate` exits 1; `run` refuses the model, and `export` needs `--force`)"
SAYS_WARNING = " (worth a look; the model still runs)"


def compact_json(value: Any, indent: int = 0, lead: int = 0) -> str:
    """JSON indented by structure, with any object or list that fits in `WIDTH` columns (after `lead` columns
    of a key before it) kept on one line: a column is one line, a table a few."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + lead + len(flat) <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {compact_json(v, indent + 2, len(json.dumps(k)) + 2)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    return "[\n" + ",\n".join(pad + compact_json(v, indent + 2) for v in value) + "\n" + " " * indent + "]"


def near_miss_diff(example: ModelDict, near_miss: ModelDict) -> list[str]:
    """The lines that turn the example into the near miss (a unified diff of their JSON, without its header)."""
    lines = difflib.unified_diff(compact_json(example).splitlines(), compact_json(near_miss).splitlines(),
                                 lineterm="", n=2)
    return [line for line in lines if not line.startswith(("---", "+++"))]


def reported(rule: Rule, model: ModelDict) -> list[str]:
    """What `mapwright validate` says about `rule`'s code on `model`, one line a finding."""
    from engine.model import Model
    from engine.rules.validate import validate

    lines = []
    for finding in validate(Model.model_validate(model)):
        if finding.code == rule.code:
            where = ", ".join(f"{k} {v}" for k, v in finding.location.as_dict().items())
            lines.append(f"{finding.severity.value} {finding.code} ({where}): {finding.message}")
    return lines


def page(rule: Rule) -> str:
    """The whole explanation of `rule`, as Markdown."""
    checks = ", ".join(f"`{name}`" for name in checks_of(rule.code)) or "(none)"
    parts = [
        f"# {rule.code}: {rule.title}",
        "",
        f"- Severity: **{rule.severity.value}**" + (SAYS_ERROR if rule.severity is Severity.ERROR else SAYS_WARNING),
        f"- Family: {rule.family}, {family_title(rule.family).lower()}",
        f"- Scope: {' and '.join(rule.scopes)} (what the check reads, and what an edit re-checks)",
        f"- Checked by: {checks}",
        "",
        "## What it means",
        "",
        rule.meaning,
    ]
    if rule.example is not None:
        parts += ["", "## Example", "", f"This model fires {rule.code}:", "", "```json",
                  compact_json(rule.example), "```", "", "`mapwright validate` reports:", "", "```text",
                  *reported(rule, rule.example), "```"]
    if rule.near_miss is not None and rule.example is not None:
        parts += ["", "## Near miss", "", f"This closely related model does not fire {rule.code}; it differs from "
                  "the example in these lines:", "", "```diff", *near_miss_diff(rule.example, rule.near_miss), "```"]
    parts += ["", "## How to fix it", "", rule.fix]
    return "\n".join(parts) + "\n"


def code_lines() -> list[str]:
    """`mapwright codes`: one line a code, family by family: code, severity, title."""
    return [f"{rule.code}  {rule.severity.value:<7}  {rule.title}" for rule in REGISTRY.values()]


def codes_index() -> str:
    """The documentation's list of codes (docs/codes/index.md), family by family, each linking to its page."""
    parts = ["# Validation codes", "",
             "`mapwright validate` checks a model against these rules; `mapwright codes` lists them and "
             "`mapwright explain CODE` prints a code's page. A model with an **error** makes `validate` exit 1, "
             "and `run` refuses it (`export` needs `--force`); a **warning** is worth a look, and the model still "
             "runs.", ""]
    for letters, title, _ in FAMILIES:
        parts += [f"## {letters}: {title}", "", "| code | severity | rule |", "|---|---|---|"]
        parts += [f"| [{r.code}]({r.code}.md) | {r.severity.value} | {r.title} |"
                  for r in REGISTRY.values() if r.family == letters]
        parts.append("")
    return "\n".join(parts)
