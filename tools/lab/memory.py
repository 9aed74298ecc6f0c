"""The memory of a game's state: what `bench` reports beside a clone's time.

A state is plain data (dicts, lists, tuples, strings, numbers), so its size is the sum of
``sys.getsizeof`` over every object reachable from it, each counted once however many times it
is referred to (a record shared by two games, a string every hex names). What a clone adds is
measured apart, as the bytes it allocates (tracemalloc): records are shared until written.
"""
from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable


def deep_size(root: object) -> int:
    """Bytes of ``root`` and of every object reachable through its containers, each once."""
    seen: set[int] = set()
    total = 0
    todo = [root]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
    return total


def allocated(make: Callable[[], object]) -> int:
    """Bytes still allocated by ``make()`` while its result is alive (tracemalloc's count)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        after = tracemalloc.get_traced_memory()[0]
        del made
    finally:
        if started:
            tracemalloc.stop()
    return after - before
