"""The conflict browser: what a run left (CONTRACT section 6), as sortable, filterable tables and a chart."""

from designer.browser.window import ConflictBrowser

__all__ = ["ConflictBrowser"]
