"""Keeping Python's cyclic garbage collector out of the way of long work.

Loading, linting and playing build many objects that live as long as the work (parse trees,
compiled rules, rulesets). The collector's full collections walk all of them again and again:
a quarter of a random playout's time, and about two fifths of a lint of every shipped ruleset
(BENCHMARKS.md). :func:`settled_heap` keeps what is alive when the work starts out of the
collector's sight and leaves full collections until the work is done; the young collections go
on, so short-lived cycles are still freed as they die.
"""
from __future__ import annotations

import contextlib
import gc
import threading

# young collections as usual; a full one only after this many middle ones (the default is 10)
_FULL_AFTER = 1000
_LOCK = threading.Lock()
_held = {"depth": 0, "threshold": None}   # blocks under way (nested, or in other threads)


@contextlib.contextmanager
def settled_heap():
    """Freeze what is alive now and hold off full collections while the block runs; both are
    put back when the last such block under way ends, so nothing stays uncollectable."""
    with _LOCK:
        if _held["depth"] == 0:
            young, middle, full = _held["threshold"] = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(young, middle, max(full, _FULL_AFTER))
        _held["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _held["depth"] -= 1
            if _held["depth"] == 0:
                gc.set_threshold(*_held["threshold"])
                gc.unfreeze()
