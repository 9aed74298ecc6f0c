"""Every problem of the rules' names and statements is reported by one walk before any code is
written (interpreter/dsl/resolver.py); the compiler (interpreter/compile/) only writes code.

Statement problems of every kind (a call, an emit, an assignment, break and continue, the marks
of a turn loop, reveals, a choice's options) are mixed with undefined names in the expressions
around them, so that the order of the reports is checked as well as their words.
"""
from __future__ import annotations

import pytest

from railrules.interpreter import check_ruleset, load_ruleset
from railrules.interpreter.compile.statements import Compiler
from railrules.interpreter.dsl.parser import parse_rules
from railrules.interpreter.dsl.resolver import Resolver
from railrules.interpreter.errors import Sink
from test_language import COMPONENTS_YAML, RULESET_YAML, WAITING_RULES, write_ruleset

PROBLEMS = """\
procedure two(a, b):
    return a + b

action take(t in tokens) by p:
    require t != nowhere1 else "no"
    continue

on moved(x):
    log "{x}"

procedure problems(p):
    break
    pass turn
    set base = 1
    set base.value = 2
    set nosuch = 1
    set p.cash[nowhere2] = nowhere3
    call nope(nowhere4)
    call two(1)
    emit unheard(1)
    emit moved(1, 2)
    log "{p}" reveals p
    log "{p}" reveals p.tally[nowhere5].cash
    each q in turn until all pass:
        log "{q}"
    each q in turn:
        pass turn
        for x in [1]:
            drop out
    choose by p:
        use take
        use take
        use nosuch_action
        option o(x in nowhere6):
            require x > 0 else "{nowhere7}"
            break
        option o:
            pass
"""

# (code, line, column, message), in the order of the rules' text (the action's domain and
# requires first: the compiler writes every action's legality test before any unit)
EXPECTED = [
    ("RR102", 5, 18, "undefined name 'nowhere1'"),
    ("RR105", 6, 5, "'continue' outside a loop"),
    ("RR105", 12, 5, "'break' outside a loop"),
    ("RR105", 13, 5, "'pass turn' outside an 'each ... in turn' loop"),
    ("RR105", 14, 9, "'base' is a constant and cannot be changed"),
    ("RR105", 15, 9, "'base' is a constant and cannot be changed"),
    ("RR102", 16, 9, "undefined variable 'nosuch'"),
    ("RR102", 17, 16, "undefined name 'nowhere2'"),      # once, though the compiler reads it twice
    ("RR102", 17, 28, "undefined name 'nowhere3'"),
    ("RR102", 18, 15, "undefined name 'nowhere4'"),       # the arguments before the procedure
    ("RR106", 18, 5, "undefined procedure 'nope'"),
    ("RR104", 19, 5, "procedure 'two' takes 2 argument(s), 1 given"),
    ("RR102", 20, 5, "no 'on unheard(...)' handles this event"),
    ("RR104", 21, 5, "'on moved' takes 1 argument(s), 2 given"),
    ("RR105", 22, 23, "'reveals' names an entity's field, as in: reveals p.cash"),
    ("RR102", 23, 31, "undefined name 'nowhere5'"),
    ("RR112", 24, 5, "this loop ends when all pass, but nothing in it says 'pass turn' or 'drop out'"),
    ("RR112", 27, 9, "'pass turn' counts only in a loop that ends 'until all pass' or "
                     "'until all others pass'"),
    ("RR103", 32, 9, "option 'take' appears twice in this choice"),
    ("RR102", 33, 9, "undefined action 'nosuch_action'"),
    ("RR102", 34, 23, "undefined name 'nowhere6'"),
    ("RR102", 35, 34, "undefined name 'nowhere7'"),
    ("RR105", 36, 13, "'break' outside a loop"),
    ("RR103", 37, 9, "option 'o' appears twice in this choice"),
]


def test_statement_problems_come_in_the_order_of_the_rules_with_their_words(tmp_path):
    root = write_ruleset(tmp_path, {"main.rules": WAITING_RULES, "problems.rules": PROBLEMS}, COMPONENTS_YAML,
                         ruleset=RULESET_YAML.replace("  - main.rules\n", "  - main.rules\n  - problems.rules\n"))
    ruleset, diags = check_ruleset(str(root))
    assert ruleset is None
    got = [(d.code, d.pos.line, d.pos.column, d.message) for d in diags
           if d.pos.file.endswith("problems.rules") and d.code in {"RR102", "RR103", "RR104", "RR105",
                                                                   "RR106", "RR112"}]
    assert got == EXPECTED
    hints = {(d.pos.line, d.hint) for d in diags if d.pos.file.endswith("problems.rules")}
    assert (13, "it says what the turn of an 'each p in turn' loop did") in hints
    assert (15, "declare it under variables: in components.yaml if the rules change it") in hints
    assert (24, "say 'pass turn' where a player passes") in hints


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    return load_ruleset(str(write_ruleset(tmp_path_factory.mktemp("resolver"), WAITING_RULES))).names


@pytest.mark.parametrize("generate", [False, True])
def test_the_compiler_reports_exactly_what_the_resolver_does(names, generate):
    """Compiling the definitions reports what the walk alone reports, no more and in the same
    order: no statement compiler says anything of its own."""
    parsed = Sink()
    definitions = parse_rules(PROBLEMS, "problems.rules", parsed).definitions
    assert parsed.diagnostics == []
    walked, compiled = Sink(), Sink()
    Resolver(names, walked).definitions(definitions)
    Compiler(names, compiled, generate=generate).compile(definitions)
    assert len(walked.diagnostics) >= len(EXPECTED)
    assert compiled.diagnostics == walked.diagnostics
