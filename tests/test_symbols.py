"""The symbol table of a whole ruleset (interpreter/checks/symbols.py) and YAML values checked
against their uses (interpreter/checks/check_yaml_uses.py), on the shipped rulesets."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from railrules.interpreter import check_ruleset, load_ruleset
from railrules.interpreter.checks.symbols import YAML_KINDS, symbol_table
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets


def _line(pos) -> str:
    return Path(pos.file).read_text(encoding="utf-8").splitlines()[pos.line - 1]


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_name_is_where_the_table_says(name):
    rs = load_ruleset(name)
    table = symbol_table(rs)
    kinds = {s.kind for s in table.symbols}
    assert {"constant", "kind", "entity", "field", "def", "procedure"} <= kinds
    for s in table.symbols:
        text = _line(s.pos)
        if s.kind in YAML_KINDS:   # the YAML key (or an alias's value) at the column given
            assert text[s.pos.column - 1:].startswith(s.name), (s, text)
            assert Path(s.pos.file).suffix == ".yaml"
        else:                      # the definition's line names it
            assert s.name in text, (s, text)
    # nothing the rules may name is missing: constants, variables, kinds, entities, definitions
    for group in (rs.constants, rs.variables, rs.kinds, rs.entities, rs.names.functions, rs.names.procedures):
        assert set(group) <= set(table.names())
    fields = {(s.owner, s.name) for s in table["cash"] + table.symbols if s.kind == "field"}
    for kind, ids in rs.kinds.items():
        for ent in ids:
            assert {(kind, f) for f in rs.entities[ent] if f not in ("id", "kind")} <= fields


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_types_are_the_values_types(name):
    rs = load_ruleset(name)
    for s in symbol_table(rs).symbols:
        if s.kind == "constant":
            value = rs.constants[s.name]
            if isinstance(value, bool):
                assert s.type == "bool"
            elif isinstance(value, int):
                assert s.type == "int"
            elif isinstance(value, list):
                assert s.type.startswith("list")
        elif s.kind == "entity":
            assert s.type == f"entity:{rs.entities[s.name]['kind']}"


def _copy(tmp_path, name) -> Path:
    root = tmp_path / name
    shutil.copytree(rulesets_dir() / name, root)
    return root


def test_a_word_for_a_number_is_reported_at_its_yaml_line_through_the_library(tmp_path):
    # the case: the constant is passed to the library's build_network(p, c, n), which
    # runs `repeat n times`; play used to fail there, never naming the constant
    root = _copy(tmp_path, "chicago_express")
    comps = root / "components.yaml"
    text = comps.read_text(encoding="utf-8")
    comps.write_text(text.replace("  max_build: 3 ", "  max_build: three "), encoding="utf-8")
    _, diags = check_ruleset(str(root))
    errors = [d for d in diags if d.severity == "error"]
    line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith("  max_build:"))
    assert [(Path(d.pos.file).name, d.code, d.pos.line, d.pos.column) for d in errors] == [
        ("components.yaml", "RR110", line, 14)]
    assert "max_build" in errors[0].message and "network.rules" in errors[0].message


def test_a_field_of_one_entity_given_another_type_is_reported_there(tmp_path):
    root = _copy(tmp_path, "german_railways")
    comps = root / "components.yaml"
    text = comps.read_text(encoding="utf-8")
    first = text.index("max_build: 4")
    comps.write_text(text[:first] + "max_build: four" + text[first + len("max_build: 4"):], encoding="utf-8")
    _, diags = check_ruleset(str(root))
    errors = [d for d in diags if d.severity == "error"]
    line = text.count("\n", 0, first) + 1
    assert [(Path(d.pos.file).name, d.pos.line) for d in errors] == [("components.yaml", line)]
    assert ".max_build is 'four' (a string)" in errors[0].message
