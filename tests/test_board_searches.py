"""The builtins that search the board: each kept answer (reach, frontier) equals a fresh search
over seeded random games of the shipped rulesets that call them most, and the bit-set searches
(components, connected) and the table of grid steps (step, direction) equal networkx's and the
grid's.

A kept answer is kept by the values of everything it depends on (the board never changes), so
it needs no invalidation: these tests check that claim against recomputation, the work charged
included (a kept answer charges what its search did, so the step budget runs out where it would
without it).
"""
from __future__ import annotations

import pickle
import random

import networkx as nx
import pytest

from railrules.interpreter import RulesRuntimeError, load_ruleset
from railrules.interpreter.compile import expressions
from railrules.interpreter.dsl import builtins
from railrules.interpreter.runtime.values import BuiltinError


def _play(ruleset, games: int, players: int) -> None:
    for seed in range(1, games + 1):
        game = ruleset.new_game(players, seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))


def _fresh_beside(name: str, kept_on: str, monkeypatch) -> dict:
    """Wrap builtin ``name`` so that each answer it gives in play is compared with a fresh one
    (the board's kept answers, attribute ``kept_on``, set aside for it): the same hexes, the
    same work. Returns the counts of calls and of answers that were kept."""
    real = builtins.ALL[name].fn
    seen = {"calls": 0, "kept": 0}

    def compared(run, *args):
        board = run.board
        before = len(getattr(board, kept_on))
        steps = run.steps
        found = real(run, *args)
        charged = run.steps - steps
        seen["calls"] += 1
        seen["kept"] += len(getattr(board, kept_on)) == before   # nothing new: a kept answer
        kept, known = getattr(board, kept_on), dict(builtins._SEEN)
        lasts = (builtins._SEARCHED, builtins._PRICED, builtins._LEVELS)
        was = [dict(last) for last in lasts]
        setattr(board, kept_on, {})
        builtins._SEEN.clear()   # (distance also knows the very lists asked last,
        for last in lasts:   # and reach its last search of each group and limit, by prices of
            last.clear()     # each group, and the price levels of the last map from each group)
        try:
            steps = run.steps
            assert real(run, *args) == found, (name, args)
            assert run.steps - steps == charged, (name, args)
            run.steps = steps
        finally:
            setattr(board, kept_on, kept)
            builtins._SEEN.update(known)
            for last, kept_then in zip(lasts, was):
                last.clear()
                last.update(kept_then)
        return found
    monkeypatch.setitem(expressions._BASE, f"_b_{name}", compared)
    return seen


@pytest.mark.parametrize("ruleset, name, kept_on", [
    ("german_railways", "reach", "reaches"),
    ("baltimore_ohio", "frontier", "frontiers"),
])
def test_a_kept_answer_equals_a_fresh_search_over_random_games(ruleset, name, kept_on, monkeypatch):
    seen = _fresh_beside(name, kept_on, monkeypatch)
    loaded = load_ruleset(ruleset)   # (loaded after the wrap: a ruleset's names are its own)
    getattr(loaded.board, kept_on).clear()   # (the board is shared: an earlier test's games
    _play(loaded, 6, 4)                      # would have left every answer kept)
    assert seen["calls"] > 50 and 0 < seen["kept"] < seen["calls"], seen


def test_the_hexes_reach_gives_back_know_their_own_bits(monkeypatch):
    """The list reach gives back comes with its bits, which a later search through it reads at once
    (builtins._bits_of): over seeded random games, kept answers and fresh ones, they are the
    bits of the hexes in it."""
    real = builtins.ALL["reach"].fn
    calls = []

    def checked(run, *args):
        found = real(run, *args)
        board = run.board
        assert builtins._bits_of(board, found) == sum(board.bits[h] for h in found), args
        calls.append(len(found))
        return found
    monkeypatch.setitem(expressions._BASE, "_b_reach", checked)
    _play(load_ruleset("german_railways"), 3, 4)
    assert len(calls) > 50 and max(calls) > 20, calls


def test_a_kept_reach_is_not_one_of_alike_but_different_arguments():
    """Arguments that are equal but not alike (a price 1 and true, a limit 2 and a fraction 2)
    are not one key: the second is checked, and refused, or searched, in its own right."""
    game = load_ruleset("stephensons_rocket").new_game(3, 1)
    h = next(iter(game.ruleset.board.adj))
    assert h in game.evaluate(f"reach([{h}], 2, {{{h}: 1}})")
    with pytest.raises(RulesRuntimeError, match="got a boolean"):
        game.evaluate(f"reach([{h}], 2, {{{h}: true}})")
    assert game.evaluate(f"reach([{h}], 4 / 2)") == game.evaluate(f"reach([{h}], 2)")
    assert game.evaluate(f"reach([{h}], 1)") != []
    with pytest.raises(RulesRuntimeError, match="needs a number"):
        game.evaluate(f"reach([{h}], true)")


def test_a_search_by_steps_taken_again_through_changed_hexes_equals_a_fresh_one(monkeypatch):
    """reach by steps through a list of enterable hexes takes its last search from the same group
    within the same limit as far as it stands: its layers (the hexes first reached at each step) up
    to the first one next to a hex barred or opened since, all of it when none is
    (builtins._layers_kept). On random groups, limits and hexes barred or opened a few at a time,
    the answer of a fresh search (and so its work, which is the count of hexes reached; the test
    above compares the work in play), whether the last search stood whole, in part or not at all."""
    game = load_ruleset("german_railways").new_game(4, 1)
    board, rng = game.ruleset.board, random.Random(7)
    hexes = list(board.adj)
    taken = {"whole": 0, "in part": 0, "not at all": 0}
    real = builtins._layers_kept

    def counted(*args):
        stands = real(*args)
        taken["whole" if stands is None else "in part" if stands else "not at all"] += 1
        return stands
    monkeypatch.setattr(builtins, "_layers_kept", counted)
    for _ in range(60):
        group, limit = ", ".join(rng.sample(hexes, rng.randint(1, 3))), rng.randint(1, 9)
        enterable = set(rng.sample(hexes, len(hexes) * 3 // 4))
        for _ in range(5):
            enterable ^= set(rng.sample(hexes, rng.randint(1, 4)))   # some barred, some opened
            text = f"reach([{group}], {limit}, [{', '.join(sorted(enterable))}])"
            _kept_equals_fresh(game, builtins._SEARCHED, text)
    assert min(taken.values()) > 20, taken


def _kept_equals_fresh(game, kept: dict, text: str) -> None:
    """``text`` evaluated with the searches ``kept`` as they are equals it evaluated with none
    kept; ``kept`` as it was after the first."""
    board = game.ruleset.board
    board.reaches.clear()   # (the exact arguments' answer is kept apart)
    found = game.evaluate(text)
    was = dict(kept)
    kept.clear()
    board.reaches.clear()
    assert game.evaluate(text) == found, text
    kept.clear()
    kept.update(was)


def test_a_search_by_prices_taken_again_through_changed_prices_equals_a_fresh_one(monkeypatch):
    """reach by a map of whole prices, none free, takes its last search from the same group as far
    as it stands: the hexes first reached for each cost below the first at which a hex whose price
    changed since could be reached (builtins._costs_kept), within any limit. On random groups,
    limits and prices changed, given or taken away a few at a time, the answer of a fresh search,
    whether the last search stood whole, in part or not at all."""
    game = load_ruleset("german_railways").new_game(4, 1)
    board, rng = game.ruleset.board, random.Random(11)
    hexes = list(board.adj)
    taken = {"whole": 0, "in part": 0, "not at all": 0}
    real = builtins._costs_kept

    def counted(board, was, now, news):
        stands = real(board, was, now, news)
        taken["whole" if stands == len(news) else "in part" if stands > 1 else "not at all"] += 1
        return stands
    monkeypatch.setattr(builtins, "_costs_kept", counted)
    for _ in range(60):
        group = ", ".join(rng.sample(hexes, rng.randint(1, 3)))
        prices = {h: rng.randint(1, 5) for h in rng.sample(hexes, len(hexes) * 3 // 4)}
        for _ in range(5):
            for h in rng.sample(hexes, rng.randint(0, 4)):   # some dearer, cheaper, given, taken
                if h in prices and rng.random() < 0.3:
                    del prices[h]
                else:
                    prices[h] = rng.randint(1, 5)
            text = f"reach([{group}], {rng.randint(0, 16)}, {{{', '.join(f'{h}: {w}' for h, w in prices.items())}}})"
            _kept_equals_fresh(game, builtins._PRICED, text)
    assert min(taken.values()) > 20, taken


def test_price_levels_worked_out_from_the_last_map_equal_fresh_ones(monkeypatch):
    """reach by a map of whole prices works out the map's price levels from those of the last map
    searched from the same group, where the two differ in fewer hexes than the new map has
    (builtins._levels_of). On random groups, limits and prices changed, given, taken away, made
    none or below 0 a few at a time, the answer (or the refusal) of a search with no levels kept,
    whether the levels were worked out from the last ones or afresh."""
    game = load_ruleset("german_railways").new_game(4, 1)
    board, rng = game.ruleset.board, random.Random(13)
    hexes = list(board.adj)
    fresh = {"from the last": 0, "afresh": 0, "refused": 0}
    real = builtins._price_levels
    made = [0]

    def counted(bits, prices, limit):
        made[0] += 1
        return real(bits, prices, limit)
    monkeypatch.setattr(builtins, "_price_levels", counted)
    for _ in range(60):
        group = ", ".join(rng.sample(hexes, rng.randint(1, 3)))
        prices: dict = {h: rng.randint(0, 5) for h in rng.sample(hexes, len(hexes) * rng.randint(1, 3) // 4)}
        for _ in range(6):
            for h in rng.sample(hexes, rng.randint(0, 5)):
                if h in prices and rng.random() < 0.3:
                    del prices[h]
                else:
                    prices[h] = rng.choice([None, -1, *range(6)]) if rng.random() < 0.2 else rng.randint(0, 5)
            text = f"reach([{group}], {rng.randint(0, 16)}, {{{', '.join(f'{h}: {w}' for h, w in prices.items()).replace('None', 'none')}}})"
            before = made[0]
            try:
                _kept_equals_fresh(game, builtins._LEVELS, text)
            except RulesRuntimeError as refused:
                fresh["refused"] += 1
                builtins._LEVELS.clear()
                board.reaches.clear()
                with pytest.raises(RulesRuntimeError) as again:
                    game.evaluate(text)
                assert str(again.value) == str(refused)
                for h, w in list(prices.items()):
                    if w is not None and w < 0:
                        prices[h] = 0
                continue
            # (levels made once, by the search with none kept: the first took the last ones)
            fresh["from the last" if made[0] - before == 1 else "afresh"] += 1
    assert min(fresh.values()) > 20, fresh


def test_route_ahead_asks_functions_about_the_hexes_it_meets_as_it_reads_lists():
    """route_ahead and reach_ahead given functions for their open hexes and goals find the way
    they find given the lists of the hexes those functions hold true, on random starts, facings,
    open hexes and goals; each function is asked once a hex it meets, a step a call on top of
    the states searched."""
    run = load_ruleset("stephensons_rocket").new_game(3, 1).machine
    rng = random.Random(5)
    hexes = list(run.board.adj)
    fn = builtins.ALL["route_ahead"].fn
    found = 0
    for _ in range(300):
        h, d = rng.choice(hexes), rng.choice([None, *range(6)])
        open_hexes = rng.sample(hexes, len(hexes) * rng.randint(2, 9) // 10)
        goals = rng.sample(hexes, rng.randint(1, 8))
        asked: list = []

        def asking(xs):
            def ask(x):
                asked.append(x)
                return x in xs
            return ask
        steps = run.steps
        way = fn(run, h, d, open_hexes, goals)
        by_lists = run.steps - steps
        steps = run.steps
        assert fn(run, h, d, asking(set(open_hexes)), asking(set(goals))) == way, (h, d)
        assert run.steps - steps == by_lists + len(asked), (h, d)
        found += bool(way)
    assert 50 < found < 250, found   # ways found and ways not found
    with pytest.raises(BuiltinError, match=r"goals\(\w+\) must be true or false, got a number"):
        fn(run, hexes[0], None, hexes, lambda x: 1)


def test_components_and_connected_are_networkx_on_random_groups():
    """`components` and `connected` (a spread of bits within the group) on the board of 265 hexes:
    networkx's connected components of the group's subgraph, each in board order, ordered by
    their first hex; whether two hexes have a path within the group."""
    game = load_ruleset("stephensons_rocket").new_game(3, 1)
    board, rng = game.ruleset.board, random.Random(5)
    hexes = list(board.adj)
    for _ in range(60):
        group = rng.sample(hexes, rng.randint(0, len(hexes)))
        graph = board.graph.subgraph(group)
        parts = sorted((sorted(c, key=board.order.__getitem__) for c in nx.connected_components(graph)),
                       key=lambda c: board.order[c[0]])
        listed = f"[{', '.join(group)}]"
        assert game.evaluate(f"components({listed})") == parts
        a, b = rng.choice(hexes), rng.choice(hexes)
        assert game.evaluate(f"connected({listed}, {a}, {b})") == \
            (a in graph and b in graph and nx.has_path(graph, a, b))
    assert game.evaluate("components([])") == [] and game.evaluate(f"connected([], {a}, {a})") is False


@pytest.mark.parametrize("name", ["chicago_express", "stephensons_rocket", "german_railways", "baltimore_ohio"])
@pytest.mark.parametrize("kept", [4096, 3])
def test_a_groups_neighbours_and_hexes_read_by_chunks_are_those_hex_by_hex(name, kept, monkeypatch):
    """`Board.around` reads a group of more than three hexes eight bytes at a time and
    `Board.hexes_in` one of more than eight two bytes at a time, each chunk's answer kept (a table
    cleared when full: `kept` chunks): on each shipped board (hexes not a multiple of 64 or 16, so
    a last chunk part empty), groups of every size give the or of their hexes' neighbours and
    their hexes in board order, asked twice (the second time from what was kept). The board is
    a pickled copy, so that it starts with nothing kept whatever ran before in this process."""
    from railrules.interpreter.board import graph
    monkeypatch.setattr(graph, "_KEPT_CHUNKS", kept)
    board, rng = pickle.loads(pickle.dumps(load_ruleset(name).board)), random.Random(7)
    assert not any(board._near_chunk) and not any(board._by_pair)
    hexes = list(board.order)
    for size in (0, 1, 3, 4, 8, 9, 10, 11, 12, 30, 90, len(hexes) - 1, len(hexes)):
        for _ in range(20):
            group = rng.sample(hexes, size)
            bits = sum(board.bits[h] for h in group)
            near = 0
            for h in group:
                near |= board.near_bits[h]
            listed = sorted(group, key=board.order.__getitem__)
            for _ in range(2):
                assert board.around(bits) == near
                assert board.hexes_in(bits) == listed
    assert all(len(table) <= kept for table in board._near_chunk)


def test_step_and_direction_are_the_grid_steps_across_open_edges():
    """`step` reads the board's table of grid steps: the grid's neighbour in that direction when
    the board joins them (else none), and `direction` is its inverse."""
    from railrules.interpreter.board.hexgrid import step_id
    game = load_ruleset("stephensons_rocket").new_game(3, 1)
    board = game.ruleset.board
    for h in list(board.adj)[::7]:
        for d in range(-6, 12, 5):
            x = step_id(h, d, board.offset)
            expected = x if x in board.adj[h] else None
            assert game.evaluate(f"step({h}, {d})") == expected
            if expected is not None:
                assert game.evaluate(f"direction({h}, {expected})") == d % 6
