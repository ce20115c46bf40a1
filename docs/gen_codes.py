"""Write the documentation's pages of the validation codes from the rule registry: docs/codes/index.md and one
page per code (docs/codes/DK009.md ...), each the text `mapwright explain CODE` prints.

`make docs` runs it before building the site; tests/rules/test_registry_docs.py fails when the pages in the
repository differ from what it would write (run `python docs/gen_codes.py` after changing a rule).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.rules.explain import codes_index, page  # noqa: E402
from engine.rules.registry import REGISTRY  # noqa: E402

CODES_DIR = Path(__file__).resolve().parent / "codes"


def pages() -> dict[str, str]:
    """File name -> content of every page of docs/codes/."""
    out = {"index.md": codes_index()}
    out.update({f"{code}.md": page(rule) for code, rule in REGISTRY.items()})
    return out


def main() -> int:
    CODES_DIR.mkdir(exist_ok=True)
    wanted = pages()
    for stale in sorted(p for p in CODES_DIR.glob("*.md") if p.name not in wanted):
        stale.unlink()
        print(f"removed {stale.relative_to(ROOT)}")
    changed = 0
    for name, text in wanted.items():
        path = CODES_DIR / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed += 1
    print(f"docs/codes: {len(wanted)} pages, {changed} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
