"""The job timeline: Spark's listener events in, one run's jobs and the time no job covered out."""

from __future__ import annotations

from benchmarks.timeline import Job, timeline


def start(job: int, at: int, tasks: list[int], site: str | None = None) -> dict[str, object]:
    event: dict[str, object] = {"Event": "SparkListenerJobStart", "Job ID": job, "Submission Time": at,
                                "Stage Infos": [{"Number of Tasks": n} for n in tasks]}
    if site is not None:
        event["Properties"] = {"callSite.short": site}
    return event


def end(job: int, at: int) -> dict[str, object]:
    return {"Event": "SparkListenerJobEnd", "Job ID": job, "Completion Time": at}


def test_a_run_s_jobs_overlapping_ones_counted_once_and_the_time_none_ran() -> None:
    events = [start(0, 500, [1], "collect at a.py:1"), end(0, 900),  # an earlier run's job: not this one's
              start(1, 1_100, [2, 1], "count at b.py:2"), end(1, 1_400),
              {"Event": "SparkListenerTaskEnd"},  # other events are passed over
              start(2, 1_300, [4]), end(2, 1_600),  # runs beside job 1
              start(3, 2_000, [1], "save at c.py:3")]  # never ended (the run was stopped): ends with the run
    shown = timeline(events, 1_000, 2_500)
    assert shown.jobs == [Job(100, 300, 3, "count at b.py:2"), Job(300, 300, 4, "?"),
                          Job(1_000, 500, 1, "save at c.py:3")]
    assert shown.run_ms == 1_500
    assert shown.busy_ms == 500 + 500  # 1,100-1,600 once, then 2,000-2,500
    assert shown.idle_ms == 500
