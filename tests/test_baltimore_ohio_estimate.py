"""Baltimore & Ohio's estimate gives the values of its first formulation.

What a railroad's best cities pay (``net_with`` in rules/end.rules, read by the bots' estimate)
is worked out as the sum of the highest revenues of its cities; its first formulation summed the
revenues of the cities ``best_cities`` takes (sorted by a key, the railroad's cities listed
twice). The first formulation is kept here as rules text (``old_net_with``), added to the
ruleset, and both are asked on the states of seeded random games, for every railroad and every
service capacity from none to more than it has cities, and the estimates of every seat too.
"""
from __future__ import annotations

import random

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir

END = (rulesets_dir() / "baltimore_ohio" / "rules" / "end.rules").resolve()

# The first formulation, as it was written, its name prefixed with old_.
OLD = """
def old_net_with(r, level, cards) = sum([revenue(h) for h in best_cities(cities_of(r), min(level, count(cities_of(r))))]) - cards * maintenance_per_level * tech
"""


def test_the_best_cities_pay_what_the_first_formulation_paid():
    ruleset = load_ruleset("baltimore_ohio", texts={END: END.read_text(encoding="utf-8") + OLD})
    paid, served = set(), 0
    for seed, players in [(1, 3), (2, 4), (3, 5)]:
        game = ruleset.new_game(players, seed, undo=False)
        rng = random.Random(seed)
        while not game.is_over:
            if game.decisions % 5 == 0:
                for r in game.evaluate("running()"):
                    cities = game.evaluate(f"count(cities_of({r}))")
                    for level in range(0, cities + 2):
                        new = game.evaluate(f"net_with({r}, {level}, {level % 3})")
                        assert new == game.evaluate(f"old_net_with({r}, {level}, {level % 3})"), \
                            (seed, game.decisions, r, level)
                        paid.add(new)
                    served += cities > 1
            game.apply(rng.choice(game.legal_actions()))
    assert len(paid) > 10 and served > 100   # (railroads with several cities, many sums compared)
