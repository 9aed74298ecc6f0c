"""Stephenson's Rocket's estimate gives the values of its first formulation.

The estimate (rules/end.rules) works out once for all seats what each half token, share and
station is worth (the derived value ``worths``), and sums each seat's own holdings. Its first
formulation worked out each seat's parts from all players' tokens, shares and stations again for
each seat: it is kept here as rules text (``old_*``), added to the ruleset, and both are asked
on the states of seeded random games, for every seat.
"""
from __future__ import annotations

import random

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir

END = (rulesets_dir() / "stephensons_rocket" / "rules" / "end.rules").resolve()

# The first formulation, as it was written, its names prefixed with old_.
OLD = """
def old_part(mine, all) = mine / max(1, all)
def old_halves(tokens) = [t[1] for t in tokens] + [t[1] for t in tokens where t[0].connected]
def old_goods_part(p):
    let all = old_halves(flatten([q.tokens for q in players]))
    let mine = old_halves(p.tokens)
    let passengers = old_part(p.passengers, sum([q.passengers for q in players]))
    return passengers + sum([count_of(mine, g) / max(2, count_of(all, g)) for g in goods_types where g in mine])
def old_lines_of(hs) = [h.track for h in hs] + [h.loco for h in hs where h.loco != none and h.loco != h.track]
def old_line_part(s, n, all_s, all_n) = (s * all_n + n * all_s) / (all_s * all_n)
def old_lines_part(p):
    let all = old_lines_of(flatten([q.placed for q in players]))
    let near = old_lines_of(p.placed)
    return sum([value(c) * old_line_part(p.shares[c], count_of(near, c), max(1, sum([q.shares[c] for q in players])), max(1, count_of(all, c))) for c in railways where live(c) and (p.shares[c] > 0 or c in near)])
def old_estimate(p) = p.cash + (goods_first + goods_second) * old_goods_part(p) + (place_first + place_second) * old_lines_part(p)
"""


def _states(seed: int, players: int):
    """The states of a seeded random game, one after each action."""
    ruleset = load_ruleset("stephensons_rocket", texts={END: END.read_text(encoding="utf-8") + OLD})
    game = ruleset.new_game(players, seed, undo=False)
    rng = random.Random(seed)
    while not game.is_over:
        yield game
        game.apply(rng.choice(game.legal_actions()))


def test_the_estimate_gives_what_its_first_formulation_gave():
    """On every state of seeded random games (2 to 4 players), every seat's estimate is the old
    formulation's value, exactly (fractions included); the derived values kept between the states
    agree with a computation from scratch."""
    asked = set()
    for seed, players in [(1, 3), (2, 4), (3, 2), (4, 3)]:
        for game in _states(seed, players):
            for p in game.players:
                value = game.estimate(p)
                assert value == game.evaluate(f"old_estimate({p})"), (seed, game.decisions, p)
                asked.add(value)
            game.check_derived()
    assert len(asked) > 100   # (the games moved: the estimates took many values)
