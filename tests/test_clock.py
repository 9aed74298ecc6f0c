"""CPU time beside wall time, and whether the machine was busy (tools/common/clock.py), in
`simulate` and `bench`."""
from __future__ import annotations

from railrules.interpreter import load_ruleset
from railrules.tools.common import clock
from railrules.tools.lab.simulate import describe, simulate


def test_a_run_that_got_little_of_its_cores_is_said_busy(monkeypatch):
    monkeypatch.setattr(clock, "load_average", lambda: 0.5)
    monkeypatch.setattr(clock, "cores", lambda: 2)
    quiet = clock.timing(wall=10.0, cpu=9.5, jobs=1)
    assert not quiet["busy"] and quiet["cpu_share"] == 0.95
    assert "busy" not in clock.describe(quiet)
    shared = clock.timing(wall=10.0, cpu=9.5, jobs=2)      # two workers had 20 s of cores
    assert shared["busy"] and shared["busy_because"] == ["the work got 48% of 2 cores"]
    assert "the machine was busy (the work got 48% of 2 cores)" in clock.describe(shared)


def test_a_load_above_the_cores_is_said_busy(monkeypatch):
    monkeypatch.setattr(clock, "load_average", lambda: 7.5)
    monkeypatch.setattr(clock, "cores", lambda: 2)
    t = clock.timing(wall=1.0, cpu=1.0)
    assert t["busy"] and t["busy_because"] == ["load average 7.5 on 2 cores"]


def test_simulate_reports_the_games_cpu_time_beside_the_wall_time():
    r = simulate(load_ruleset("chicago_express"), 3, 1, 3)
    t = r["timing"]
    assert t["cpu_seconds"] > 0 and t["wall_seconds"] > 0 and t["jobs"] == 1
    assert r["cpu_seconds_per_game"] == round(t["cpu_seconds"] / 3, 3)
    assert f"CPU {t['cpu_seconds']} s" in describe(r)
