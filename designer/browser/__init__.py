"""The conflict browser: what a run left (docs/contract.md §6), as sortable, filterable tables and a chart.

`ConflictBrowser` is loaded when first asked for: its run-directory readers bring pyarrow, which the
designer does not need until a run is opened (a second off its start)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from designer.browser.window import ConflictBrowser

__all__ = ["ConflictBrowser"]


def __getattr__(name: str) -> Any:
    if name == "ConflictBrowser":
        from designer.browser.window import ConflictBrowser

        return ConflictBrowser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
