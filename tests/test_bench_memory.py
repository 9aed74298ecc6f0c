"""`bench`'s memory figures: a state's size counts every object reachable once, and a clone
allocates less than the state it copies (its records are shared until written)."""
from __future__ import annotations

import copy
import sys

from railrules.interpreter import load_ruleset
from railrules.tools.lab.bench import _mid_game
from railrules.tools.lab.memory import allocated, deep_size


def test_every_reachable_object_is_counted_once():
    name, other = "x" * 40, "y" * 50           # long strings: not shared with anything else
    shared = [name, 10**30]
    root = {"a": shared, "b": (shared, other), other: {"c": shared}}
    objects = [root, "a", "b", "c", shared, name, 10**30, root["b"], other, root[other]]
    assert len({id(o) for o in objects}) == len(objects)
    assert deep_size(root) == sum(sys.getsizeof(o) for o in objects)


def test_a_clone_allocates_less_than_a_deep_copy_of_the_state():
    game = _mid_game(load_ruleset("chicago_express"), 4, 1)
    size = deep_size(game.state)
    assert size > 10_000
    full = allocated(lambda: copy.deepcopy(game.state))
    clone = allocated(game.clone)
    assert 0 < clone < full / 4
    assert 0.5 < full / size < 2         # tracemalloc and getsizeof agree on a full copy's size
