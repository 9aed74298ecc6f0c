"""An example of your own bot for ``--bots`` (the protocol is in :mod:`railrules.tools.bots.players`).

    railrules simulate RULESET --players 3 --bots railrules.tools.agents.example_bot:ThriftyBot,random,random
    railrules tournament RULESET --bots random,railrules.tools.agents.example_bot:ThriftyBot:whim=0.2

A bot of yours is any importable class: made with ``(seed, **options)``, it returns one of
``legal`` from ``choose(view, legal)``, where ``view`` is what its seat may see. Put the file in
the folder you run railrules from (``--bots mybot:MyBot``) or anywhere Python imports from.
"""
from __future__ import annotations

import random


class ThriftyBot:
    """Spends as little as it can: takes the legal action whose whole-number arguments add up to
    the least (a pass, the lowest bid, the cheapest build), ties at random; with probability
    ``whim`` it takes any legal action instead."""
    settings = {"whim": 0.0}     # name -> default: the spec's whim=0.2 arrives as a float

    def __init__(self, seed: int, whim: float = 0.0):
        self.rng = random.Random(seed)
        self.whim = whim

    def choose(self, view: dict, legal: list):
        if self.rng.random() < self.whim:
            return self.rng.choice(legal)
        cost = {a: sum(x for x in a.args if isinstance(x, int) and not isinstance(x, bool)) for a in legal}
        least = min(cost.values())
        return self.rng.choice([a for a in legal if cost[a] == least])
