"""``from railrules.openspiel import game``: the OpenSpiel game of any ruleset, registered with
pyspiel as ``python_railrules``.

This folder installs as the package ``railrules.openspiel`` (pyproject.toml's package-dir), kept
apart from the checkout's root for the same reason as ``railrules.pettingzoo`` (see there).
The game itself is :mod:`railrules.tools.agents.openspiel_game`.
"""
from railrules.tools.agents.openspiel_game import SHORT_NAME, RulesGame, RulesState, game

__all__ = ["game", "RulesGame", "RulesState", "SHORT_NAME"]
