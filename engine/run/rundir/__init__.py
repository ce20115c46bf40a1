"""The run directory (docs/contract.md §6): `layout` (what one is and holds), `write` (writing a run),
`read` (reading one back, checked) and `publish` (which folders a run may replace, its lock, and the swap
a kill cannot break)."""
