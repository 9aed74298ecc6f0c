"""The kinds of definition are declared once (dsl/nodes.py DEFINITIONS): every definition the
parser makes has one, and what the checks, the symbol table, coverage and `railrules doc` call
a definition comes from it."""
from __future__ import annotations

import inspect

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.checks.lint_coverage import rules_of
from railrules.interpreter.checks.symbols import symbol_table
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.dsl.parser import KEYWORDS
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.author.doc import ruleset_doc


def test_every_definition_class_has_one_kind():
    classes = {c for _, c in inspect.getmembers(n, inspect.isclass)
               if issubclass(c, n.Node) and c.__name__.endswith("Def")}
    assert classes == set(n.KIND_OF)
    assert len(n.DEFINITIONS) == len(n.KIND_OF) == len({k.keyword for k in n.DEFINITIONS})
    assert {k.keyword for k in n.DEFINITIONS} <= KEYWORDS


@pytest.mark.parametrize("name", shipped_rulesets())
def test_each_shipped_definition_is_named_by_its_kind(name):
    rs = load_ruleset(name)
    assert rs.definitions
    kinds = [n.KIND_OF[type(d)] for d in rs.definitions]
    symbols = {(s.name, s.kind) for s in symbol_table(rs).symbols}
    for d, kind in zip(rs.definitions, kinds):
        assert kind.named == hasattr(d, "name")
        if kind.named:
            assert (d.name, kind.keyword) in symbols
    counted = {(r["kind"], r["name"]) for r in rules_of(rs) if r["kind"] != "option"}
    assert counted == {(k.rule, getattr(d, "name", None)) for d, k in zip(rs.definitions, kinds)
                       if k.rule and k.rule != "trigger"} | {c for c in counted if c[0] == "trigger"}
    assert sum(c[0] == "trigger" for c in counted) == sum(isinstance(d, n.HandlerDef) for d in rs.definitions)
    doc = ruleset_doc(rs)
    headings = [line[3:] for line in doc.splitlines() if line.startswith("## ")]
    assert headings == [h for h in dict.fromkeys(k.heading for k in n.DEFINITIONS) if h in
                        {k.heading for k in kinds}]
