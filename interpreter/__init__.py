"""railrules: a declarative rules-as-data interpreter for railway share games.

>>> from interpreter import load_ruleset
>>> from interpreter.paths import shipped_rulesets
>>> game = load_ruleset(shipped_rulesets()[0]).new_game(players=4, seed=7)
>>> game.apply(game.legal_actions()[0])
>>> game.decisions
1
"""
from .data.ruleset import Ruleset, check_ruleset, load_ruleset
from .engine.game import Game
from .engine.machine import Action
from .errors import (BadSave, Diagnostic, IllegalAction, RailrulesError, RulesetError,
                     RulesRuntimeError)

__all__ = ["load_ruleset", "check_ruleset", "Ruleset", "Game", "Action", "Diagnostic",
           "RailrulesError", "RulesetError", "IllegalAction", "RulesRuntimeError", "BadSave"]
