"""`railrules code RULESET [NAME]`: the Python the interpreter writes for a ruleset's rules.

Each generated function is printed with the rule it was written for as comments (see
:mod:`interpreter.compile.sources`); code units (procedures, triggers, the game) are written for
the listing even if no game has run them yet.
"""
from __future__ import annotations

from railrules.interpreter import load_ruleset
from railrules.interpreter.compile.sources import listing


def generated(name_or_path: str, wanted: str | None = None, variant: str | None = None) -> list:
    """``(name, commented source)`` of the ruleset's generated functions (``wanted``: only those
    whose rule line or unit names it)."""
    ruleset = load_ruleset(name_or_path, variant)
    program = ruleset.program
    for key in program.codes:
        program.units[key]   # written on first use: write them all
    return listing(program.space, wanted)


def main(args) -> int:
    found = generated(args.ruleset, args.name, args.variant)
    if not found:
        print(f"no generated function of {args.ruleset} is about '{args.name}'")
        return 1
    if args.list:
        print("\n".join(name for name, _ in found))
    else:
        print("\n".join(source for _, source in found), end="")
    return 0
