"""Bots: players that pick actions without a person."""
from __future__ import annotations

import random


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, game):
        return self.rng.choice(game.legal_actions())


BOTS = {"random": RandomBot}


def play_out(game, bot, safe: bool = False) -> None:
    """Play ``game`` to the end with ``bot`` choosing for every seat."""
    while not game.is_over:
        game.apply(bot.choose(game), safe=safe)
