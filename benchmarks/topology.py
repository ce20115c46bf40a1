"""A seeded 3-master topology for the B2 benchmark: a model file and a data folder in the contract's format.

Three sites (east, west, south) hold one table each, ACCOUNT (ID, NAME, CITY, UPDATED_AT, BALANCE); every
pair of sites is mapped both ways (six mappings, each the other's `reverse`). Each table resolves conflicts
in two column groups: the address (NAME, CITY, UPDATED_AT) by latest timestamp, then site priority; the
balance by the additive method.

The N change events are single-record update transactions. Every key's changes come in episodes at least
`SPACING_S` apart, longer than any link's delay plus a burst, so each episode starts from the row every
site holds once the previous one has settled (its `before` images are right everywhere). 10% of the keys
have one *burst*: two or three sites change the key before the first site's change reaches them (within
the propagation delay), the conflicts the benchmark is about. The generator computes what every site
holds at the end (`Topology.final`): latest UPDATED_AT wins the address, the balances add up.

Run: `python -m benchmarks.topology --events N [--seed S] --out DIR` writes DIR/model.json, DIR/data/.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SITES = (("east", "oracle", 30), ("west", "postgresql", 20), ("south", "mssql", 10))
DELAYS_S = {("east", "west"): 4, ("west", "east"): 4, ("east", "south"): 12, ("south", "east"): 12,
            ("west", "south"): 8, ("south", "west"): 8}
SPACING_S = 60  # between a key's episodes: more than the longest delay (12 s) plus a burst (< 4 s)
CONFLICT_SHARE = 0.10
EVENTS_PER_KEY = 4
T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
TABLE = "ACCOUNT"
COLUMNS = ("ID", "NAME", "CITY", "UPDATED_AT", "BALANCE")
CITIES = ("Lyon", "Oslo", "Porto", "Turin", "Ghent", "Split", "Cork", "Graz", "Brno", "Aarhus")

Row = dict[str, Any]  # BALANCE in cents (int), UPDATED_AT a datetime


@dataclass(frozen=True)
class Change:
    """One change event: an update of `key` at `site`, committed at `at`."""

    at: datetime
    site: str
    key: int
    before: Row
    after: Row


@dataclass
class Topology:
    """What was generated: the change events (commit order), the keys changed at several sites within the
    delay, and the row every site holds after the last delivery, by key."""

    keys: int
    changes: list[Change] = field(default_factory=list)
    burst_keys: set[int] = field(default_factory=set)
    final: dict[int, Row] = field(default_factory=dict)


def model_document() -> dict[str, Any]:
    """The 3-master model: one ACCOUNT table per site, every pair mapped both ways, two column groups."""
    columns = [{"name": "ID", "type": "BIGINT", "nullable": False}, {"name": "NAME", "type": "VARCHAR(40)"},
               {"name": "CITY", "type": "VARCHAR(40)"}, {"name": "UPDATED_AT", "type": "TIMESTAMP"},
               {"name": "BALANCE", "type": "DECIMAL(14,2)"}]
    mappings = [{"id": f"{a}_to_{b}", "source": f"{a}.{TABLE}", "target": f"{b}.{TABLE}",
                 "columns": {c: c for c in COLUMNS}, "distribution_key": ["ID"], "reverse": f"{b}_to_{a}"}
                for a, _, _ in SITES for b, _, _ in SITES if a != b]
    groups = [{"name": "address_cg", "columns": ["NAME", "CITY", "UPDATED_AT"],
               "resolution": [{"method": "latest_timestamp", "column": "UPDATED_AT"}, {"method": "site_priority"}]},
              {"name": "balance_cg", "columns": ["BALANCE"], "resolution": [{"method": "additive"}]}]
    return {"format": "mapwright/1", "name": "three-masters",
            "servers": [{"id": s, "dbms": d, "priority": p} for s, d, p in SITES],
            "tables": [{"server": s, "name": TABLE, "columns": columns, "primary_key": ["ID"]} for s, _, _ in SITES],
            "mappings": mappings,
            "conflicts": [{"table": f"{s}.{TABLE}", "column_groups": groups} for s, _, _ in SITES]}


def schedule_document() -> dict[str, Any]:
    return {"links": [{"from": a, "to": b, "delay_s": d} for (a, b), d in sorted(DELAYS_S.items())]}


def initial_row(key: int) -> Row:
    return {"ID": key, "NAME": f"account {key}", "CITY": CITIES[key % len(CITIES)],
            "UPDATED_AT": T0 - timedelta(days=1), "BALANCE": 10_000 + key % 1_000 * 100}


def plan(events: int, seed: int = 11) -> Topology:
    """The change events of a topology with `events` events; the same `seed` gives the same plan."""
    if events < 1:
        raise ValueError("the benchmark needs at least one change event")
    rng = random.Random(seed)
    keys = max(10, events // EVENTS_PER_KEY)
    topo = Topology(keys)
    bursty = sorted(rng.sample(range(keys), round(keys * CONFLICT_SHARE)))
    episodes: dict[int, list[int]] = {k: [] for k in range(keys)}  # burst sizes; 1 = a single change
    left = events
    for key in bursty:
        size = min(left, rng.choice((2, 2, 3)))
        if size >= 2:
            episodes[key].append(size)
            left -= size
    for _ in range(left):
        episodes[rng.randrange(keys)].append(1)
    for key in range(keys):
        rng.shuffle(episodes[key])
        state, start = initial_row(key), T0 + timedelta(seconds=rng.randrange(SPACING_S))
        for n, size in enumerate(episodes[key]):
            at = start + timedelta(seconds=n * SPACING_S)
            state = _episode(rng, topo, key, state, at, size)
            if size > 1:
                topo.burst_keys.add(key)
        topo.final[key] = state
    topo.changes.sort(key=lambda c: (c.at, c.site, c.key))
    return topo


def _episode(rng: random.Random, topo: Topology, key: int, base: Row, at: datetime, size: int) -> Row:
    """Add one episode's changes (a burst of `size` sites, each before the others' changes reach it) and
    return the row every site settles on."""
    sites = rng.sample([s for s, _, _ in SITES], size)
    # every commit of the burst before any earlier one reaches its site: the whole burst, a second apart at
    # least, spans less than the shortest delay between two of its sites
    span = min((DELAYS_S[(a, b)] for a in sites for b in sites if a != b), default=1) - 1
    times = [at]
    for i in range(1, size):
        budget = span - int((times[-1] - at).total_seconds()) - (size - 1 - i)  # a second for each still to come
        times.append(times[-1] + timedelta(seconds=rng.randint(1, budget)))
    settled = dict(base)
    for site, when in zip(sites, times, strict=True):
        after = dict(base)
        kind = rng.choice(("address", "balance", "both"))
        if kind != "balance":
            after.update(NAME=f"account {key} v{rng.randrange(10_000)}", CITY=rng.choice(CITIES), UPDATED_AT=when)
            if when > settled["UPDATED_AT"]:  # latest timestamp wins the address group
                settled.update(NAME=after["NAME"], CITY=after["CITY"], UPDATED_AT=when)
        if kind != "address":
            delta = rng.choice((-1, 1)) * rng.randint(1, 50_000)
            after["BALANCE"] = base["BALANCE"] + delta
            settled["BALANCE"] += delta  # additive: every site adds every delta
        topo.changes.append(Change(when, site, key, base, after))
    return settled


def within_delay(changes: list[Change]) -> set[int]:
    """Keys that one site changed before another site's earlier change of them had reached it."""
    by_key: dict[int, list[Change]] = {}
    for c in changes:
        by_key.setdefault(c.key, []).append(c)
    found = set()
    for key, mine in by_key.items():
        mine.sort(key=lambda c: c.at)
        for i, first in enumerate(mine):
            if any(later.site != first.site
                   and (later.at - first.at).total_seconds() < DELAYS_S[(first.site, later.site)]
                   for later in mine[i + 1:]):
                found.add(key)
                break
    return found


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _image(row: Row) -> dict[str, Any]:
    """A row as JSON values; BALANCE as a number of 2 decimals (the float nearest n/100 prints as n/100)."""
    return {"ID": row["ID"], "NAME": row["NAME"], "CITY": row["CITY"], "UPDATED_AT": _iso(row["UPDATED_AT"]),
            "BALANCE": row["BALANCE"] / 100}


def _records(topo: Topology, site: str) -> Iterator[str]:
    for n, c in enumerate((c for c in topo.changes if c.site == site), start=1):
        yield json.dumps({"site": site, "txn": f"{site}-{n:07d}", "seq": 1, "commit_ts": _iso(c.at), "table": TABLE,
                          "op": "U", "before": _image(c.before), "after": _image(c.after)}, separators=(",", ":"))


def write(topo: Topology, out: Path) -> tuple[Path, Path]:
    """Write `out/model.json` and `out/data/` (snapshots, changes per site, schedule); returns both paths."""
    data = out / "data"
    for stale in [*data.glob("changes/*.jsonl"), *data.glob("snapshots/*/*")]:
        if stale.is_file() and stale.suffix in (".csv", ".jsonl", ".parquet"):
            stale.unlink()  # a run would read it with the new files
    for folder in (data / "changes", *(data / "snapshots" / s for s, _, _ in SITES)):
        folder.mkdir(parents=True, exist_ok=True)
    model = out / "model.json"
    model.write_text(json.dumps(model_document(), indent=1) + "\n", encoding="utf-8")
    (data / "schedule.json").write_text(json.dumps(schedule_document(), indent=1) + "\n", encoding="utf-8")
    header = ",".join(COLUMNS) + "\n"
    rows = "".join(",".join(str(v) for v in _image(initial_row(k)).values()) + "\n" for k in range(topo.keys))
    for site, _, _ in SITES:
        (data / "snapshots" / site / f"{TABLE}.csv").write_text(header + rows, encoding="utf-8")
        with (data / "changes" / f"{site}.jsonl").open("w", encoding="utf-8", newline="") as f:
            for line in _records(topo, site):
                f.write(line + "\n")
    return model, data


def generate(out: Path, events: int, seed: int = 11) -> Topology:
    """Plan and write a topology of `events` change events into `out`; returns the plan."""
    topo = plan(events, seed)
    write(topo, out)
    return topo


def event_count(text: str) -> int:
    """A positive number of events for argparse (`100000` or `100_000`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least one change event, not {value}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.topology", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=event_count, default=10_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    topo = generate(args.out, args.events, args.seed)
    print(f"{len(topo.changes)} change events on {topo.keys} keys ({len(topo.burst_keys)} changed at several "
          f"sites within the delay) in {args.out}")


if __name__ == "__main__":
    main()
