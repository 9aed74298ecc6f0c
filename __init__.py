"""railrules: a declarative rules-as-data interpreter for railway share games.

The installed package is this repository: ``railrules.interpreter`` (the language and the
engine), ``railrules.tools`` (the command and its helpers), ``railrules.rulesets`` and
``railrules.schemas`` (data). The public Python API is here:

>>> from railrules import load_ruleset, shipped_rulesets
>>> game = load_ruleset(shipped_rulesets()[0]).new_game(players=4, seed=7)
>>> game.apply(game.legal_actions()[0])
>>> game.decisions
1
"""
__all__ = ["__version__", "load_ruleset", "check_ruleset", "shipped_rulesets", "Ruleset", "Game",
           "Action", "Diagnostic", "RailrulesError", "RulesetError", "IllegalAction",
           "RulesRuntimeError", "BadSave"]


# the agent-library adapters (pip install ".[agents]"), modules of their own: `from railrules.pettingzoo
# import env`; `import railrules` then `railrules.pettingzoo.env(...)` works too
_ADAPTERS = {"pettingzoo": ".pettingzoo", "openspiel": ".openspiel"}


def __getattr__(name: str):
    # Imported when first asked for, as in railrules.interpreter: `railrules --help` needs none of it.
    if name in _ADAPTERS:
        from importlib import import_module
        return import_module(_ADAPTERS[name], __name__)
    if name == "shipped_rulesets":
        from .interpreter.paths import shipped_rulesets
        return shipped_rulesets
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import interpreter
    return getattr(interpreter, name)
