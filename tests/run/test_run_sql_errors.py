"""A mapping whose SQL fails on a row (Spark's ANSI errors) queues that change with the reason; the run goes on
and its accounting holds (docs/contract.md §5)."""

from __future__ import annotations

from runkit import T0, build, pair, rec, rows, run, table


def test_a_where_clause_that_fails_on_a_row_queues_that_change() -> None:
    model = pair(where="A / B > 1")
    result = run(model, [
        rec("s", "t1", "I", after={"ID": 1, "A": 4, "B": 2}),
        rec("s", "t2", "I", after={"ID": 2, "A": 4, "B": 0}),  # 4 / 0 fails
        rec("s", "t3", "I", after={"ID": 3, "A": 1, "B": 2}),  # filtered
    ])
    assert [r["ID"] for r in rows(result, "t.T")] == [1]
    assert [(q["after"]["ID"], q["op"]) for q in result.error_queue] == [(2, "I")]
    assert "where clause fails on this row" in result.error_queue[0]["reason"]
    assert "DIVIDE_BY_ZERO" in result.error_queue[0]["reason"]
    counts = result.counts
    assert (counts.deliveries, counts.applied, counts.queued, counts.filtered) == (2, 1, 1, 1)


def test_an_update_whose_where_fails_on_its_before_image_is_queued_as_an_update() -> None:
    model = pair(where="A / B > 1")
    result = run(model, [rec("s", "t1", "U", before={"ID": 1, "A": 4, "B": 0}, after={"ID": 1, "A": 4, "B": 1})],
                 snapshots={"t.T": [{"ID": 1, "A": 4, "B": 0}]})
    assert [q["op"] for q in result.error_queue] == ["U"]
    assert result.error_queue[0]["before"] == {"ID": 1, "A": 4, "B": 0}


def test_an_expression_that_fails_on_a_row_queues_it_with_the_column_named() -> None:
    cols = {"ID": "INTEGER", "A": "INTEGER", "B": "INTEGER", "R": "INTEGER"}
    model = build([{"id": "s", "dbms": "oracle"}, {"id": "t", "dbms": "oracle"}],
                  [table("s", "T", cols, ["ID"]), table("t", "T", cols, ["ID"])],
                  [{"id": "m", "source": "s.T", "target": "t.T",
                    "columns": {"ID": "ID", "A": "A", "B": "B", "R": {"method": "expression", "sql": "A DIV B"}}}])
    result = run(model, [
        rec("s", "t1", "I", after={"ID": 1, "A": 7, "B": 2, "R": None}),
        rec("s", "t2", "I", after={"ID": 2, "A": 7, "B": 0, "R": None}, at=T0),
    ])
    assert [(r["ID"], r["R"]) for r in rows(result, "t.T")] == [(1, 3)]
    (queued,) = result.error_queue
    assert queued["after"] == {"ID": 2, "A": 7, "B": 0, "R": None}
    assert "column R" in queued["reason"] and "DIVIDE_BY_ZERO" in queued["reason"]
    assert result.counts.queued == 1 and result.counts.applied == 1


def test_convergence_leaves_out_rows_the_where_clause_fails_on() -> None:
    model = pair(where="A / B > 1")
    result = run(model, [], snapshots={"s.T": [{"ID": 1, "A": 4, "B": 0}, {"ID": 2, "A": 4, "B": 1}],
                                       "t.T": [{"ID": 2, "A": 4, "B": 1}]})
    (report,) = result.convergence
    assert (report["compared"], report["diverged"]) == (1, 0)
