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


# ------------------------------------------------------------------ the verb: railrules code
def add_arguments(parser) -> None:
    parser.description = (
        "Every function generated for a ruleset (rule expressions, defs, comprehension loops, code "
        "units), with the rule it was written for as comments; NAME: only those whose rule line or "
        "unit names it (a def, an option, a procedure, `estimate`...). Exit 1 when none does.")
    parser.add_ruleset()
    parser.add_argument("name", nargs="?", help="a name the rule line or unit must contain, as a word")
    parser.add_argument("--list", action="store_true", help="print only the generated functions' names")


def run(args) -> int:
    found = generated(args.ruleset, args.name, args.variant)
    if not found:
        print(f"no generated function of {args.ruleset} is about '{args.name}'")
        return 1
    if args.list:
        print("\n".join(name for name, _ in found))
    else:
        print("\n".join(source for _, source in found), end="")
    return 0
