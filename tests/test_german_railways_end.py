"""German Railways' end test gives the answers of its first, plainer formulation.

The end test (rules/end.rules, ``operation_still_possible``) searches and prices only the hexes
a company could pay its way into (``within_money``, given the hexes it may enter), and finds the
hexes of a list among another's in one step (``common``). Its first formulation worked out every
hex within reach of the company's trains, priced them all and found the common hexes by two
differences: it is kept here as rules text (``old_*``), added to the
ruleset, and both are asked the same questions on the states of seeded random games, in the base
game and in the variant whose end test asks only whether any two companies could still meet. The
slow test plays 200 seeds of each with the old formulation in place of the new and compares the
games: the same actions, the same end.
"""
from __future__ import annotations

import random

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir

END = (rulesets_dir() / "german_railways" / "rules" / "end.rules").resolve()
VARIANTS = [None, "end_when_no_connection_possible"]

# The first formulation, as it was written, its names prefixed with old_.
OLD = """
def old_common(xs, ys) = without(xs, without(xs, ys))
def old_within_money(c, near, money):
    let places = old_common(near, city_hexes)
    return places if money == none else old_common(places, reach(c.network, money, {h: lowest_price(c, h) for h in near}))
def old_near(c, open) = old_reached(c, within_cap(c, enterable(c, open)))
def old_reached(c, ok) = reach(c.network, c.trains_left, ok)
"""

# Every place the end test prices, for each company: its meeting places (money none or its
# treasury), its spendable places (treasury and the players' cash), and a few sums between; the new
# formulation given the hexes the company may enter (as the end test gives them) or the hexes its
# trains reach through them (the old formulation's argument).
SAME = """
def same_places(c, open) = same_prices(c, allowed(c, open), old_near(c, open))
def same_prices(c, ok, near) = common(near, city_hexes) == old_common(near, city_hexes) and all([within_money(c, ok, m) == old_within_money(c, near, m) and within_money(c, near, m) == old_within_money(c, near, m) for m in [none, c.cash, spendable(c), 0, 1, 3, 7, 12, 20]])
"""


def _with_old(text: str) -> dict:
    return {END: text + OLD + SAME}


def _ruleset(variant, texts):
    return load_ruleset("german_railways", variant, texts=texts)


def _play(ruleset, seed: int, players: int = 4):
    """A seeded random game: the game before each action, with the action chosen then."""
    game = ruleset.new_game(players, seed, undo=False)
    rng = random.Random(seed)
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        yield game, action
        game.apply(action)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_end_test_prices_what_its_first_formulation_priced(variant):
    """On every state whose end test is worked out afresh (the progress mark moved), each company's
    places are those of the first formulation, for every sum of money the test asks about."""
    ruleset = _ruleset(variant, _with_old(END.read_text(encoding="utf-8")))
    asked = 0
    for seed in range(5):
        mark = None
        for game, _ in _play(ruleset, seed):
            now = game.evaluate("progress_mark()")
            if now != mark:
                mark = now
                asked += 1
                assert game.evaluate("all([same_places(c, open_hexes()) for c in companies])"), (
                    variant, seed, game.decisions)
    assert asked > 40   # (the games moved: the test asked on many states)


def test_the_first_formulation_tells_a_treasury_short_of_a_city_apart():
    """The old and new formulation are not both blind: on the opening state a company with no money
    reaches no city but its own, with the whole board's money every city its trains reach."""
    ruleset = _ruleset(None, _with_old(END.read_text(encoding="utf-8")))
    game = ruleset.new_game(4, 1, undo=False)
    for name in ("within_money", "old_within_money"):
        poor = game.evaluate(f"[{name}(c, old_near(c, open_hexes()), 0) for c in companies]")
        rich = game.evaluate(f"[{name}(c, old_near(c, open_hexes()), 1000) for c in companies]")
        assert poor == game.evaluate("[common(c.network, city_hexes) for c in companies]")
        assert all(len(r) > len(p) for p, r in zip(poor, rich))


def _old_in_place(text: str) -> str:
    """end.rules with the first formulation answering in place of the new one."""
    head = "def within_money(c, ok, money):"
    common = "def common(xs, ys) = "
    assert text.count(head) == 1 and text.count(common) == 1
    text = text.replace(head, "def within_money(c, ok, money) = old_within_money(c, old_reached(c, ok), money)\n"
                              "def new_within_money(c, ok, money):")
    start = text.index(common)
    end = text.index("\n", start)
    return text[:start] + "def common(xs, ys) = old_common(xs, ys)" + text[end:] + OLD


def _played(ruleset, seed: int):
    """A seeded random game's actions and result."""
    actions = []
    game = None
    for game, action in _play(ruleset, seed):
        actions.append(str(action))
    return actions, game.result if game is not None else None


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_games_with_the_first_formulation_play_the_same(variant):
    """200 seeds: the same actions, in the same order, to the same end and scores."""
    new = _ruleset(variant, None)
    old = _ruleset(variant, {END: _old_in_place(END.read_text(encoding="utf-8"))})
    for seed in range(200):
        played = _played(new, seed)
        assert played[1]["reasons"], (variant, seed)   # (a game to its end)
        assert played == _played(old, seed), (variant, seed)
