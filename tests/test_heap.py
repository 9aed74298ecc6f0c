"""tools/common/heap.py: the collector is held off while work runs, and put back exactly afterwards."""
from __future__ import annotations

import gc
import threading

from railrules.tools.common.heap import settled_heap


def test_the_collector_is_put_back_after_the_block_even_on_an_error():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    keep = [object() for _ in range(100)]  # alive when the block starts: frozen in it
    try:
        with settled_heap():
            assert gc.get_freeze_count() >= frozen + len(keep)
            assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] > before[2]
            raise KeyError("a failing lint")
    except KeyError:
        pass
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_nested_and_concurrent_blocks_put_it_back_only_when_the_last_ends():
    before = gc.get_threshold()
    inside, release = threading.Event(), threading.Event()

    def other():
        with settled_heap():
            inside.set()
            release.wait(10)

    with settled_heap():
        held = gc.get_threshold()
        t = threading.Thread(target=other)
        t.start()
        inside.wait(10)
        with settled_heap():
            assert gc.get_threshold() == held
    assert gc.get_threshold() == held     # the other thread's block is still under way
    release.set()
    t.join()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
