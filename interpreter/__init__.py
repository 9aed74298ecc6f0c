"""railrules: a declarative rules-as-data interpreter for railway share games.

>>> from railrules.interpreter import load_ruleset
>>> from railrules.interpreter.paths import shipped_rulesets
>>> game = load_ruleset(shipped_rulesets()[0]).new_game(players=4, seed=7)
>>> game.apply(game.legal_actions()[0])
>>> game.decisions
1
"""
from importlib import import_module

from .errors import (BadSave, Diagnostic, IllegalAction, RailrulesError, RulesetError,
                     RulesRuntimeError)

__all__ = ["__version__", "load_ruleset", "check_ruleset", "Ruleset", "Game", "Action", "Diagnostic",
           "RailrulesError", "RulesetError", "IllegalAction", "RulesRuntimeError", "BadSave"]

# Imported when first asked for: the loader and the engine pull in lark, networkx and
# jsonschema, which a command such as `railrules --help` does not need.
_LAZY = {"load_ruleset": ".data.ruleset", "check_ruleset": ".data.ruleset", "Ruleset": ".data.ruleset",
         "Game": ".engine.game", "Action": ".engine.machine"}


def _version() -> str:
    """The installed package's version (importlib.metadata takes tens of ms to import: only
    when asked for)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("railrules")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def __getattr__(name: str):
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
