"""The shipped rulesets' estimates, rewritten in cheaper forms, give exactly what the forms they
replaced gave: the same number of the same type for every seat at every decision of seeded
random games (2 to 4 players), and of copies of some of those positions changed towards what
random games seldom reach. The replaced form is kept here as the reference: the test copies the
ruleset, puts the reference back in place of the estimate's definitions and compares."""
from __future__ import annotations

import random
import shutil

import pytest

from railrules.interpreter import Game, load_ruleset
from railrules.interpreter.paths import rulesets_dir

# ruleset -> (rules file, the first and the last line of the estimate's definitions there (the
# last one included), the definitions the shipped ones replaced, and changes made to a copy of
# every fifth position: what random games seldom reach)
REFERENCES = {
    "chicago_express": ("rules/end.rules", "def eighths(c)", "estimate p =", '''
def chicago_prospect(c) = 0 if sold(c) == 0 or Chicago in c.network else 16 - min(16, distance(c.network, Chicago))
estimate p = p.cash + sum([p.shares[c] * dividend(c) * (16 + chicago_prospect(c)) for c in companies where p.shares[c] > 0]) / 8
''', ["add Chicago to PRR.network", "add Chicago to BO.network; add Chicago to NYC.network"]),
    "stephensons_rocket": ("rules/end.rules", "# Tokens are counted in halves", "estimate p =", '''
def goods_held(q, g) = sum([2 if h.connected else 1 for (h, good) in q.tokens where good == g])
def part(mine, all) = mine / max(1, all)
def goods_share(p, g):
    let mine = goods_held(p, g)
    return 0 if mine == 0 else mine / max(2, sum([goods_held(q, g) for q in players]))
def goods_part(p):
    let passengers = part(p.passengers, sum([q.passengers for q in players]))
    return passengers + sum([goods_share(p, g) for g in goods_types])

def line_part(p, c):
    let shares = part(p.shares[c], sum([q.shares[c] for q in players]))
    let stations = part(stations_on(p, c), sum([stations_on(q, c) for q in players]))
    return shares + stations

estimate p = p.cash + (goods_first + goods_second) * goods_part(p) + (place_first + place_second) * sum([value(c) * line_part(p, c) for c in railways where live(c) and (p.shares[c] > 0 or stations_on(p, c) > 0)])
''', ["set Q9.track = LM; set Q9.loco = LM; add Q9 to p1.placed",   # a station's track and loco alike
      "set Q9.track = LM; set Q9.loco = GWR; add Q9 to p2.placed; add Q9 to p1.placed"]),
}
SEEDS = range(1, 4)


def _with_reference(name: str, tmp_path):
    """A copy of the shipped ruleset whose estimate is the reference form."""
    rules, first, last, reference, _ = REFERENCES[name]
    root = tmp_path / name
    shutil.copytree(rulesets_dir() / name, root)
    path = root / rules
    text = path.read_text(encoding="utf-8")
    start = text.index(first)
    end = text.index("\n", text.index(last, start))
    path.write_text(text[:start] + reference.strip() + text[end:], encoding="utf-8")
    return load_ruleset(root)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_a_rewritten_estimate_gives_what_the_reference_gave(name, tmp_path):
    shipped, reference = load_ruleset(name), _with_reference(name, tmp_path)
    assert shipped.hash != reference.hash   # the reference is in place: another text
    positions, wrong = 0, []
    for players in range(shipped.players_min, shipped.players_max + 1):
        for seed in SEEDS:
            game, rng = shipped.new_game(players, seed), random.Random(seed)
            while not game.is_over:
                copies = [game]
                if game.decisions % 5 == 0:
                    for change in REFERENCES[name][4]:
                        copies.append(game.clone())
                        for statement in change.split("; "):
                            copies[-1].execute(statement)
                for position in copies:
                    mirror = Game(reference, position.state)   # the same position (estimates only read)
                    for p in position.players:
                        new, old = position.estimate(p), mirror.estimate(p)
                        if (type(new), new) != (type(old), old):
                            wrong.append(f"{players} players, seed {seed}, decision {game.decisions}, "
                                         f"{p}: {new!r} instead of {old!r}")
                    positions += 1
                game.apply(rng.choice(game.legal_actions()))
    assert positions > 1000
    assert not wrong, "\n".join(wrong[:5])
