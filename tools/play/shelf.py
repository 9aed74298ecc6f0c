"""`railrules list`: the shipped rulesets, each with its title, players and variants."""
from __future__ import annotations

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets


def add_arguments(parser) -> None:
    """No options."""


def run(args) -> int:
    for name in shipped_rulesets():
        try:
            rs = load_ruleset(name)
            variants = ", ".join(rs.variants()) or "-"
            print(f"{name:<20} {rs.title} ({rs.players_min}-{rs.players_max} players; variants: {variants})")
        except RailrulesError as err:
            print(f"{name:<20} (broken: {err.diagnostics[0].message})")
    print(f"(in {rulesets_dir()})")
    return 0
