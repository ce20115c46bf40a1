"""The documentation's pages of the validation codes (docs/codes/) are those the registry gives: a rule changed
without `python docs/gen_codes.py` fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from engine.rules.registry import REGISTRY

DOCS = Path(__file__).resolve().parents[2] / "docs"


def gen_codes() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_codes", DOCS / "gen_codes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_code_pages_match_the_registry() -> None:
    wanted: dict[str, str] = gen_codes().pages()
    assert set(wanted) == {"index.md", *(f"{code}.md" for code in REGISTRY)}
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (DOCS / "codes").glob("*.md")}
    stale = sorted(name for name in wanted.keys() | on_disk.keys() if wanted.get(name) != on_disk.get(name))
    assert not stale, f"docs/codes is out of date ({', '.join(stale[:5])}...): run `python docs/gen_codes.py`"


def test_every_code_page_is_linked_from_the_index_and_the_site_nav() -> None:
    index = (DOCS / "codes" / "index.md").read_text(encoding="utf-8")
    assert all(f"]({code}.md)" in index for code in REGISTRY)
    assert "codes/index.md" in (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
