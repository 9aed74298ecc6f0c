"""`railrules code RULESET [NAME]`: the Python the interpreter writes for a ruleset's rules.

Each generated function is printed with the rule it was written for as comments (see
:mod:`interpreter.compile.sources`), its file named as in every other message (from the
ruleset's folder, never the folder the package is installed in); code units (procedures,
triggers, the game) and the legal-actions listers are written for the listing even if no
game has run them yet. ``--checked``: the checked mode's code, every expression written as it
is when it faults (or as lint runs it).
"""
from __future__ import annotations

from railrules.interpreter import load_ruleset
from railrules.interpreter.compile.expressions import Checked
from railrules.interpreter.compile.sources import listing, shown
from railrules.interpreter.data.ruleset import load_all_checked
from railrules.interpreter.paths import in_ruleset


def generated(name_or_path: str, wanted: str | None = None, variant: str | None = None,
              checked: bool = False) -> list:
    """``(name, commented source)`` of the ruleset's generated functions (``wanted``: only those
    whose rule line or unit names it; ``checked``: in the checked mode, every expression with
    its checked code and no fast code)."""
    ruleset = load_all_checked(name_or_path, variant) if checked else load_ruleset(name_or_path, variant)
    program = ruleset.program
    program.write_all()   # (units and listers are written on first use: all of them, now)
    if checked:   # an expression's checked code is written on first use too
        for value in list(program.space.values()):
            if isinstance(value, Checked):
                value.function()
    return listing(program.space, wanted, in_ruleset)


# ------------------------------------------------------------------ the verb: railrules code
def add_arguments(parser) -> None:
    parser.description = (
        "Every function generated for a ruleset (rule expressions, defs, comprehension loops, code "
        "units), with the rule it was written for as comments; NAME: only those whose rule line or "
        "unit names it (a def, an option, a procedure, `estimate`...). Exit 1 when none does.")
    parser.add_ruleset()
    parser.add_argument("name", nargs="?", help="a name the rule line or unit must contain, as a word")
    parser.add_argument("--list", action="store_true", help="print only the generated functions' names")
    parser.add_argument("--checked", action="store_true",
                        help="the checked mode's code: every expression as it is written to word its faults")


def run(args) -> int:
    found = generated(args.ruleset, args.name, args.variant, args.checked)
    if not found:
        print(f"no generated function of {args.ruleset} is about '{args.name}'")
        return 1
    if args.list:
        print("\n".join(shown(name, in_ruleset) for name, _ in found))
    else:
        print("\n".join(source for _, source in found), end="")
    return 0
