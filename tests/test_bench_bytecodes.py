"""`railrules bench --bytecodes`: the work a decision, counted exactly (so it can be compared
across commits on a busy machine, where time figures move by half)."""
from __future__ import annotations

import dis
import functools
import gc

from railrules.tools.lab.bench import bench_ruleset
from railrules.tools.lab.bytecodes import count, tally


def test_the_count_is_exact_the_same_for_the_same_games_and_splits_generated_code():
    first, again = count("chicago_express", 3, 2, 7), count("chicago_express", 3, 2, 7)
    assert first == again
    assert 0 < first["generated"] < first["bytecodes"] and first["calls"] > 1
    assert first["games"] == 2 and first["decisions"] > 50
    assert count("chicago_express", 3, 2, 8) != first     # other games, other counts


def test_the_count_does_not_see_the_garbage_collector():
    """Hypothesis registers a gc callback: Python code run at each collection, which came at
    moments that depend on the process's history and made CI's two counts differ."""
    before = count("chicago_express", 3, 1, 7)
    calls = []
    gc.callbacks.append(lambda phase, info: calls.append(phase))
    try:
        threshold = gc.get_threshold()
        gc.set_threshold(5)          # collections many times a decision, were they allowed
        assert count("chicago_express", 3, 1, 7) == before
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.pop()
    assert calls                     # the callback was there: collect() before counting ran it


def _straight(a, b):
    c = a + b
    d = c * 2
    return d - a


def test_the_tally_agrees_with_the_instructions_of_a_straight_function():
    """The reference: a function without branches runs each instruction dis lists once (but
    RESUME, which CPython does not report), in one Python call, none of it generated code."""
    listed = [i for i in dis.get_instructions(_straight) if i.opname not in ("RESUME", "CACHE")]
    assert tally(functools.partial(_straight, 1, 2)) == {"all": len(listed), "generated": 0, "calls": 1}


def test_bench_reports_the_count_only_when_asked():
    asked = bench_ruleset("chicago_express", 2, 1, 3, "random", False, counted=1)
    assert asked["bytecodes"]["games"] == 1 and asked["bytecodes"]["bytecodes"] > 0
    assert "bytecodes" not in bench_ruleset("chicago_express", 2, 1, 3, "random", False)
