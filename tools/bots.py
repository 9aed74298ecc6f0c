"""Bots: players that pick actions without a person."""
from __future__ import annotations

import random


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, game):
        return self.rng.choice(game.legal_actions())


class OptionBot(RandomBot):
    """Chooses an option uniformly (bid, pass, build...), then one of its values uniformly:
    a player facing 40 possible bids and a pass passes half the time, not once in 41."""

    def choose(self, game):
        by_option: dict = {}
        for action in game.legal_actions():
            by_option.setdefault(action.name, []).append(action)
        return self.rng.choice(by_option[self.rng.choice(sorted(by_option))])


BOTS = {"random": RandomBot, "options": OptionBot}


def play_out(game, bot, safe: bool = False, forced: bool = False) -> None:
    """Play ``game`` to the end with ``bot`` choosing for every seat; with ``forced``, a decision
    with only one legal action is applied without asking the bot."""
    while not game.is_over:
        if forced:
            legal = game.legal_actions()
            if len(legal) == 1:
                game.apply(legal[0], safe=safe)
                continue
        game.apply(bot.choose(game), safe=safe)
