"""Hostile rulesets: inputs written to crash, hang, exhaust or take over the linter and engine.

Each gets a clear diagnostic (its code is asserted) and runs no code. Time is bounded by the
engine's own limits (the YAML node budget, the step and decision budgets, recursion guards);
no test asserts on the wall clock.
"""
from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from railrules.interpreter import IllegalAction, RulesRuntimeError, check_ruleset, load_ruleset
from railrules.interpreter.errors import BadSave
from railrules.interpreter.data.yaml_source import MAX_NODES
from railrules.tools.cli import main

RULESET = """\
name: hostile
title: A hostile ruleset
players: {min: 1, max: 2}
rules: [main.rules]
components: components.yaml
limits: {steps: 1000, decisions: 50}
"""
COMPONENTS = """\
constants: {base: 10}
variables: {x: 2, xs: [1]}
player: {cash: 0}
"""
RULES = """\
game:
    cite "Hostile rulebook: the game ends at once."
    end_game "done"

score p = p.cash
"""


def ruleset(tmp_path: Path, rules: str = RULES, components: str = COMPONENTS,
            meta: str = RULESET, **files) -> Path:
    """Write a small ruleset; ``files`` maps extra relative paths to text or bytes."""
    root = tmp_path / "hostile"
    root.mkdir(exist_ok=True)
    for rel, content in {"ruleset.yaml": meta, "components.yaml": components,
                         "main.rules": rules, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def start_error(tmp_path, rules: str):
    """The diagnostic with which starting a game of these rules fails (it must fail)."""
    rs = load_ruleset(str(ruleset(tmp_path, rules=rules)))
    with pytest.raises(RulesRuntimeError) as info:
        rs.new_game(1, 0)
    return info.value.diagnostics[0]


def codes(root: Path, variant: str | None = None) -> list[str]:
    """The codes of the errors lint reports; the ruleset must not load when there are any."""
    loaded, diags = check_ruleset(str(root), variant)
    errors = [d.code for d in diags if d.severity == "error"]
    assert (loaded is None) == bool(errors)
    return errors


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_hostile_base_is_clean(tmp_path):
    assert codes(ruleset(tmp_path)) == []


# ---------------------------------------------------------------- YAML: bombs and depth
def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['l0: &l0 [' + ", ".join(['"lol"'] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


QUADRATIC = "big: &big [" + ", ".join(["x"] * 1000) + "]\nmany: [" + ", ".join(["*big"] * 300) + "]\n"


@pytest.mark.parametrize("role, text", [
    ("components.yaml", billion_laughs() + "constants: {base: *l9}\n"),
    ("components.yaml", QUADRATIC),
    ("ruleset.yaml", billion_laughs() + RULESET),
    ("board.yaml", billion_laughs() + "hexes: {A1: {x: *l9}}\n"),
    ("variants/bomb.yaml", billion_laughs() + 'description: "bomb"\n'),
], ids=["components-laughs", "components-quadratic", "ruleset-laughs", "board-laughs", "variant-laughs"])
def test_an_alias_bomb_is_rr007(tmp_path, role, text):
    meta = RULESET + "board: board.yaml\n"
    root = ruleset(tmp_path, meta=meta, **{"board.yaml": "hexes: {A1: {}}\n"})
    (root / role).parent.mkdir(exist_ok=True)
    (root / role).write_text(text, encoding="utf-8")
    assert codes(root, "bomb" if role.startswith("variants") else None) == ["RR007"]


def test_an_alias_bomb_is_refused_after_a_bounded_number_of_nodes(tmp_path, monkeypatch):
    """The expansion stops at the node budget: count the nodes actually converted."""
    from railrules.interpreter.data import yaml_source
    visited = []
    real = yaml_source._convert

    def counting(node, *args):
        visited.append(1)
        return real(node, *args)
    monkeypatch.setattr(yaml_source, "_convert", counting)
    root = ruleset(tmp_path, components=billion_laughs() + "constants: {base: *l9}\n")
    assert codes(root) == ["RR007"]
    assert MAX_NODES < len(visited) < MAX_NODES + 100   # + the nodes of ruleset.yaml


@pytest.mark.parametrize("text", [
    "constants: {deep: " + "[" * 10_000 + "]" * 10_000 + "}\n",
    "constants: {deep: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "}\n",
    "constants:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(1500)) + " " * 1501 + "v: 1\n",
], ids=["flow-lists", "flow-maps", "block-maps"])
def test_very_deep_yaml_is_rr007(tmp_path, text):
    assert codes(ruleset(tmp_path, components=text)) == ["RR007"]


def test_a_file_over_5_mb_is_rr007_without_being_parsed(tmp_path):
    huge = "constants:\n" + "".join(f"  c{i}: {i}\n" for i in range(400_000))
    assert len(huge.encode()) > 5_000_000
    assert codes(ruleset(tmp_path, components=huge)) == ["RR007"]


# ---------------------------------------------------------------- enormous numbers
@pytest.mark.parametrize("number", [
    "1000000000000001", "-1000000000000001", "99999999999999999999999999999999",
    "9" * 5000, "0x" + "F" * 40, "1_000_000_000_000_000_000",
])
def test_an_enormous_yaml_number_is_rr008(tmp_path, number):
    assert codes(ruleset(tmp_path, components=f"constants: {{big: {number}}}\nplayer: {{cash: 0}}\n")) == ["RR008"]


def test_the_largest_accepted_number_loads(tmp_path):
    root = ruleset(tmp_path, components="constants: {big: 1000000000000000}\nplayer: {cash: 0}\n")
    assert codes(root) == []
    assert load_ruleset(str(root)).constants["big"] == 10 ** 15


@pytest.mark.parametrize("value", ["1.0e+400", "-1.5e+400", "3.5"])
def test_floats_and_infinite_floats_are_refused_by_the_schema(tmp_path, value):
    components = f"constants: {{big: {value}}}\nplayer: {{cash: 0}}\n"
    assert codes(ruleset(tmp_path, components=components)) == ["RR004"]


def test_an_enormous_rules_literal_is_a_diagnostic(tmp_path):
    rules = RULES + "\nconst big = " + "9" * 5000 + "\n"
    assert codes(ruleset(tmp_path, rules=rules)) in (["RR008"], ["RR101"])


def test_a_rule_that_makes_an_integer_too_large_to_save_is_a_diagnostic(tmp_path):
    rules = ('game:\n    cite "c"\n    repeat 14 times:\n        set x = x * x\n'
             '    choose by players[0]:\n        option go:\n            pass\n'
             '    end_game "done"\n\nscore p = p.cash\n')
    rs = load_ruleset(str(ruleset(tmp_path, rules=rules)))
    with pytest.raises((RulesRuntimeError, IllegalAction)) as info:  # refused as it is stored
        rs.new_game(1, 0).apply("go")
    assert info.value.diagnostics[0].code in ("RR302", "RR008")
    assert "cannot be stored" in info.value.diagnostics[0].message


# ---------------------------------------------------------------- encodings
LATIN1 = "constants: {name: 'Société'}\n".encode("latin-1")


@pytest.mark.parametrize("rel, data", [
    ("components.yaml", LATIN1),
    ("ruleset.yaml", RULESET.encode() + "# é\n".encode("latin-1")),
    ("extra.rules", "# é\n".encode("latin-1")),
    ("extra.rules", "procedure p():\n    pass\n".encode("utf-16")),
    ("components.yaml", b"constants: {x: 1}\n\x80\x81\xfe\xff\n"),
], ids=["components-latin1", "ruleset-latin1", "rules-latin1", "rules-utf16", "components-junk"])
def test_a_file_that_is_not_utf8_is_rr006(tmp_path, rel, data):
    meta = RULESET.replace("rules: [main.rules]", "rules: [main.rules, extra.rules]")
    root = ruleset(tmp_path, meta=meta, **{rel: data})
    assert codes(root) == ["RR006"]


def test_not_utf8_is_reported_at_the_line_of_the_first_bad_byte(tmp_path):
    meta = RULESET.replace("rules: [main.rules]", "rules: [main.rules, extra.rules]")
    root = ruleset(tmp_path, meta=meta, **{"extra.rules": b"# one\n# two\n# \xe9\n"})
    _, diags = check_ruleset(str(root))
    assert [(d.code, d.pos.line, d.pos.column) for d in diags] == [("RR006", 3, 1)]


@pytest.mark.parametrize("data", [None, RULES.encode() + "# é\n".encode("latin-1")],
                         ids=["missing", "latin1"])
def test_an_unreadable_rules_file_gets_no_follow_on_rr107(tmp_path, data):
    root = ruleset(tmp_path)
    if data is None:
        (root / "main.rules").unlink()
    else:
        (root / "main.rules").write_bytes(data)
    assert codes(root) in (["RR001"], ["RR006"])


def test_a_utf8_byte_order_mark_is_accepted_in_rules_as_in_yaml(tmp_path):
    bom = b"\xef\xbb\xbf"
    root = ruleset(tmp_path, rules=bom + RULES.encode(), components=bom + COMPONENTS.encode())
    assert codes(root) == []


# ---------------------------------------------------------------- YAML tags: never run code
PAYLOADS = [  # (tagged value, whether it is a sequence node or a bare scalar)
    ('!!python/object/apply:os.system ["touch {marker}"]', "sequence"),
    ('!!python/object/apply:subprocess.check_call [["touch", "{marker}"]]', "sequence"),
    ('!!python/object/new:os.system ["touch {marker}"]', "sequence"),
    ('!!python/object/apply:builtins.exec ["open(\'{marker}\', \'w\').close()"]', "sequence"),
    ('!!python/name:os.system', "scalar"),
    ('!!python/module:os', "scalar"),
]
# where the tagged value goes -> the errors lint reports, by node shape. The tag is ignored and
# the node read as plain data: a list where the title's string belongs (RR004), a list as a
# constant (allowed), any tagged node as a mapping key (RR004), and a bare tag that swallows
# the closing brace of a flow mapping (RR002).
TAG_CODES = {  # every tag is refused where it stands (RR004); one is a YAML syntax error first
    ("title", "sequence"): ["RR004"], ("title", "scalar"): ["RR004"],
    ("constant", "sequence"): ["RR004"], ("constant", "scalar"): ["RR002"],
    ("key", "sequence"): ["RR004"], ("key", "scalar"): ["RR004"],
}


@pytest.mark.parametrize("payload, shape", PAYLOADS, ids=[p[0].split()[0] for p in PAYLOADS])
@pytest.mark.parametrize("where", ["title", "constant", "key"])
def test_a_python_tag_constructs_nothing(tmp_path, payload, shape, where):
    marker = tmp_path / "PWNED"
    value = payload.format(marker=marker)
    meta, components = RULESET, COMPONENTS
    if where == "title":
        meta = RULESET.replace("title: A hostile ruleset", f"title: {value}")
    elif where == "constant":
        components = f"constants: {{base: {value}}}\nplayer: {{cash: 0}}\n"
    else:
        components = f"constants:\n  ? {value}\n  : 1\nplayer: {{cash: 0}}\n"
    root = ruleset(tmp_path, meta=meta, components=components)
    assert codes(root) == TAG_CODES[where, shape]
    cli("lint", str(root))
    if not codes(root):
        game = load_ruleset(str(root)).new_game(1, 0)
        json.dumps(game.state)             # plain data only, never a Python object
    assert not marker.exists(), "a YAML tag ran code"


def test_a_python_tag_gets_a_diagnostic(tmp_path):
    components = 'constants: {base: !!python/object/apply:os.system ["echo pwned"]}\nplayer: {cash: 0}\n'
    assert codes(ruleset(tmp_path, components=components)) == ["RR004"]


def test_no_rules_construct_reaches_python(tmp_path):
    rules = ('game:\n    cite "c"\n    let a = open("x")\n    let b = eval("1")\n'
             '    let c = __import__("os")\n    log "{exec(1)}"\n    end_game "done"\n\n'
             'score p = p.cash\n')
    assert codes(ruleset(tmp_path, rules=rules)) == ["RR102"] * 4


def test_python_attributes_are_not_fields(tmp_path):
    rules = ('game:\n    cite "c"\n    log "{players[0].__class__}"\n    end_game "done"\n\n'
             'score p = p.__dict__\n')
    assert codes(ruleset(tmp_path, rules=rules)) == ["RR110", "RR110"]


# ---------------------------------------------------------------- rules that never end
def test_a_loop_without_a_choice_is_rr303_when_the_game_starts(tmp_path):
    rules = 'game:\n    cite "c"\n    while true:\n        pass\n    end_game "never"\n\nscore p = p.cash\n'
    diag = start_error(tmp_path, rules)
    assert diag.code == "RR303" and (diag.pos.line, diag.pos.column) == (3, 5)


def test_lint_play_reports_the_endless_loop(tmp_path):
    rules = 'game:\n    cite "c"\n    while true:\n        pass\n    end_game "never"\n\nscore p = p.cash\n'
    root = ruleset(tmp_path, rules=rules)
    code, out, err = cli("lint", str(root), "--play", "1", "--format", "json")
    assert code == 1
    assert "RR303" in [d["code"] for d in json.loads(out)]


def test_endless_recursion_of_a_procedure_is_rr303(tmp_path):
    rules = ('procedure again():\n    cite "c"\n    call again()\n\ngame:\n    cite "c"\n'
             '    call again()\n    end_game "never"\n\nscore p = p.cash\n')
    assert start_error(tmp_path, rules).code == "RR303"


def test_endless_recursion_of_a_function_is_rr302(tmp_path):
    rules = ('def forever(n) = forever(n + 1)\n\ngame:\n    cite "c"\n    let x = forever(0)\n'
             '    end_game "never"\n\nscore p = p.cash\n')
    assert start_error(tmp_path, rules).code == "RR302"


def test_a_loop_after_a_choice_is_rr303_and_the_state_is_unchanged(tmp_path):
    rules = ('game:\n    cite "c"\n    choose by players[0]:\n        option spin:\n'
             '            while true:\n                pass\n        option stop:\n'
             '            pass\n    end_game "done"\n\nscore p = p.cash\n')
    game = load_ruleset(str(ruleset(tmp_path, rules=rules))).new_game(1, 0)
    before = game.to_json()
    with pytest.raises(RulesRuntimeError) as info:
        game.apply("spin")
    assert info.value.diagnostics[0].code == "RR303"
    assert game.to_json() == before
    game.apply("stop")
    assert game.is_over


ENDLESS_CHOICES = ('game:\n    cite "c"\n    while true:\n        choose by players[0]:\n'
                   '            option again:\n                set x += 1\n    end_game "never"\n\n'
                   'score p = p.cash\n')


def test_a_game_of_choices_that_never_ends_hits_the_decision_budget(tmp_path):
    game = load_ruleset(str(ruleset(tmp_path, rules=ENDLESS_CHOICES))).new_game(1, 0)
    for _ in range(50):                      # limits.decisions is 50
        game.apply("again")
    before = game.to_json()
    with pytest.raises(RulesRuntimeError) as info:
        game.apply("again")
    assert info.value.diagnostics[0].code == "RR303"
    assert "50 decisions" in info.value.diagnostics[0].message
    assert game.to_json() == before and game.decisions == 50


def test_the_cli_stops_a_bot_game_that_never_ends(tmp_path):
    root = ruleset(tmp_path, rules=ENDLESS_CHOICES)
    code, out, err = cli("play", str(root), "--bots", "random", "--players", "1")
    assert code == 1 and "RR303" in err and "Traceback" not in err
    code, out, err = cli("simulate", str(root), "--games", "2", "--players", "1", "--json")
    result = json.loads(out)
    assert code == 1 and result["finished"] == 0 and len(result["errors"]) == 2
    assert all("RR303" in e["error"] for e in result["errors"])


def test_exponential_work_inside_an_expression_is_bounded(tmp_path):
    """A doubly recursive def makes 2^n calls in one statement; f(40) would run for days."""
    rules = ('def f(n) = 1 if n == 0 else f(n - 1) + f(n - 1)\n\ngame:\n    cite "c"\n'
             '    let y = f(16)\n    end_game "done"\n\nscore p = p.cash\n')   # 131071 calls; limits.steps is 1000
    assert start_error(tmp_path, rules).code == "RR303"


def test_nested_comprehensions_are_bounded(tmp_path):
    """Nested comprehensions over range(0, 100000) would build 10^10 values in one statement."""
    rules = ('game:\n    cite "c"\n    let y = [[a for a in range(0, 300)] for b in range(0, 300)]\n'
             '    end_game "done"\n\nscore p = p.cash\n')     # 90000 values; limits.steps is 1000
    assert start_error(tmp_path, rules).code == "RR303"


def test_range_is_capped(tmp_path):
    rules = ('game:\n    cite "c"\n    let y = range(0, 1000000000000)\n    end_game "done"\n\n'
             'score p = p.cash\n')
    assert start_error(tmp_path, rules).code == "RR312"   # a limit of the resource governor


# ---------------------------------------------------------------- deeply nested rules
@pytest.mark.parametrize("rules", [
    "const deep = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n",
    "const deep = " + "[" * 10_000 + "]" * 10_000 + "\n",
    "const deep = " + "not " * 10_000 + "true\n",
    "const deep = " + "1 + " * 5_000 + "1\n",
    "procedure deep():\n" + "".join("    " * (i + 1) + "if true:\n" for i in range(400))
    + "    " * 401 + "pass\n",
], ids=["parens", "lists", "nots", "sums", "blocks"])
def test_deeply_nested_rules_are_rr101(tmp_path, rules):
    root = ruleset(tmp_path, rules=RULES + "\n" + rules)
    _, diags = check_ruleset(str(root))
    assert [(d.code, d.pos.line) for d in diags if d.severity == "error"] == [("RR101", 7)]
    assert "nested too deeply" in diags[0].message


# ---------------------------------------------------------------- paths and files
@pytest.mark.parametrize("entry", [
    "../outside.rules", "../../../../../../etc/passwd", "/etc/passwd",
    "library/../../../outside.rules", "./../hostile/../outside.rules",
])
def test_a_rules_path_that_escapes_the_folder_is_rr005(tmp_path, entry):
    (tmp_path / "outside.rules").write_text(RULES)
    meta = RULESET.replace("rules: [main.rules]", f"rules: [main.rules, '{entry}']")
    assert codes(ruleset(tmp_path, meta=meta)) == ["RR005"]


@pytest.mark.parametrize("key", ["components", "board"])
def test_a_data_path_that_escapes_the_folder_is_rr005(tmp_path, key):
    (tmp_path / "outside.yaml").write_text(COMPONENTS if key == "components" else "hexes: {A1: {}}\n")
    meta = RULESET.replace("components: components.yaml", "components: components.yaml\nboard: board.yaml")
    meta = meta.replace(f"{key}: {key}.yaml", f"{key}: ../outside.yaml")
    root = ruleset(tmp_path, meta=meta, **{"board.yaml": "hexes: {A1: {}}\n"})
    assert codes(root) == ["RR005"]


def test_a_symlink_out_of_the_folder_is_rr005(tmp_path):
    secret = tmp_path / "secret.rules"
    secret.write_text(RULES)
    meta = RULESET.replace("rules: [main.rules]", "rules: [main.rules, link.rules]")
    root = ruleset(tmp_path, meta=meta)
    os.symlink(secret, root / "link.rules")
    assert codes(root) == ["RR005"]


def test_a_variants_rules_path_that_escapes_is_rr005(tmp_path):
    (tmp_path / "outside.rules").write_text(RULES)
    root = ruleset(tmp_path, **{"variants/v.yaml": 'description: "v"\nrules: [../../outside.rules]\n'})
    assert codes(root, "v") == ["RR005"]


@pytest.mark.parametrize("meta", [
    RULESET.replace("rules: [main.rules]", "rules: [main.rules, missing.rules]"),
    RULESET.replace("components: components.yaml", "components: missing.yaml"),
    RULESET + "board: missing.yaml\n",
    RULESET.replace("rules: [main.rules]", "rules: [main.rules, library/missing.rules]"),
])
def test_a_missing_file_is_rr001(tmp_path, meta):
    assert codes(ruleset(tmp_path, meta=meta)) == ["RR001"]


def test_a_folder_named_as_a_file_is_rr001(tmp_path):
    root = ruleset(tmp_path, meta=RULESET.replace("rules: [main.rules]", "rules: [main.rules, sub]"))
    (root / "sub").mkdir()
    assert codes(root) == ["RR001"]


def test_a_folder_without_ruleset_yaml_is_rr206(tmp_path):
    (tmp_path / "empty").mkdir()
    assert codes(tmp_path / "empty") == ["RR206"]
    code, out, err = cli("lint", str(tmp_path / "empty"))
    assert code == 1 and "RR206" in out


# ---------------------------------------------------------------- saves and logs from strangers
@pytest.mark.parametrize("text", [
    "", "null", "[]", '{"format": "railrules-state-1"}', "{" * 100_000, '"' + "x" * 100,
    json.dumps({"format": "railrules-save-1", "ruleset": "../../etc", "state": {}}),
])
def test_a_hostile_save_is_rr304(tmp_path, text):
    save = tmp_path / "bad.save.json"
    save.write_text(text)
    code, out, err = cli("play", "--resume", str(save))
    assert code == 1 and "Traceback" not in err
    assert "RR304" in err or "RR206" in err   # a damaged save, or one naming no ruleset


@pytest.mark.parametrize("text", ["", "[]", "{" * 100_000, '{"format": "railrules-log-1"}'])
def test_a_hostile_log_is_rr304(tmp_path, text):
    log = tmp_path / "bad.log.json"
    log.write_text(text)
    code, out, err = cli("replay", str(log))
    assert code == 1 and "RR304" in err and "Traceback" not in err


# ---------------------------------------------------------------- typed saves and logs
COIN_RACE = "templates/coin_race"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A coin race saved after a few decisions, and its log once over: (save text, log text)."""
    from railrules.interpreter.paths import rulesets_dir
    from railrules.interpreter.saves import save_text
    game = load_ruleset(str(rulesets_dir() / COIN_RACE)).new_game(2, 3)
    for _ in range(3):
        game.apply(game.legal_actions()[-1])
    saved = save_text(game)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    return saved, json.dumps(game.log())


def _edit(text: str, change) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def _p1(field, value):
    return lambda d: d["state"]["entities"]["p1"].__setitem__(field, value)


@pytest.mark.parametrize("change, words", [
    (_p1("cash", "40"), 'entities.p1.cash: "40" is a string; it must be a whole number'),
    (_p1("cash", 40.5), "entities.p1.cash holds a value a game cannot: 40.5 is a float"),
    (_p1("cash", True), "entities.p1.cash: true is true/false; it must be a whole number"),
    (_p1("cash", -5), "entities.p1.cash: -5 is below 0"),
    (_p1("cash", 10**30), "entities.p1.cash holds a value a game cannot: 1000000000000000000000000000000 is beyond"),
    (_p1("cash", [1]), "entities.p1.cash: [1] is a list"),
    (_p1("kind", "bank"), "entities.p1.kind"),
    (_p1("id", "p2"), "entities.p1.id"),
    (lambda d: d["state"]["history"].append(["frobnicate", 1]), "history[3]: \"frobnicate\" is no action"),
    (lambda d: d["state"]["history"].append(7), "history[3] holds a value a game cannot: 7 is not an action"),
    (lambda d: d["state"]["history"].append(d["state"]["history"][0][:1] + [[1]]),
     "history[3] holds a value a game cannot: [\"take\", [1]] is not an action ([NAME, value...])"),
    (lambda d: d["state"]["stack"][-1]["locals"].__setitem__("junk", 0.5), ".locals.junk holds a value a game cannot: 0.5 is a float"),
    # found by tests/test_fuzz.py: the save's own ruleset and variant names were used unchecked
    (lambda d: d.__setitem__("ruleset", None), "its ruleset must be a name and its variant a name or none"),
    (lambda d: d.__setitem__("variant", [None]), "its ruleset must be a name and its variant a name or none"),
], ids=["cash-string", "cash-fraction", "cash-true", "cash-negative", "cash-huge", "cash-list", "kind",
        "id", "history-nonsense", "history-not-a-list", "history-list-value", "locals-float", "ruleset-none", "variant-list"])
def test_a_save_of_the_wrong_types_is_rr304_naming_the_field(tmp_path, played, change, words):
    save = tmp_path / "bad.save.json"
    save.write_text(_edit(played[0], change))
    code, out, err = cli("play", "--resume", str(save))
    assert code == 1 and "RR304" in err and words in err, err
    assert "internal error" not in err and "Traceback" not in err


def test_a_save_is_written_and_read_from_its_text_by_one_owner(played):
    """interpreter/saves.py: the text a game saves as reads back (no file) into the same game;
    a text that is not a save says so, in the words of every other refusal."""
    from railrules.interpreter import load_ruleset
    from railrules.interpreter.saves import game_of_save, read_save, save_text
    game = load_ruleset("chicago_express").new_game(3, 4)
    for _ in range(5):
        game.apply(game.legal_actions()[0])
    text = save_text(game)
    saved = read_save(text, "in memory")
    assert (saved.ruleset, saved.variant, saved.replayable) == ("chicago_express", None, True)
    assert game_of_save(saved, game.ruleset, "in memory").to_json() == game.to_json()
    with pytest.raises(BadSave, match="in memory:1:1: .*cannot use the save: not a railrules save file"):
        read_save(json.dumps({"format": "another"}), "in memory")


def test_a_save_whose_values_are_not_what_its_history_gives_is_rr304(tmp_path, played):
    """Well typed, but edited: the cash is not what the decisions made it, or a decision was
    added that the game, replayed from its seed, refuses."""
    from railrules.interpreter.saves import load_save
    rich = tmp_path / "rich.save.json"
    rich.write_text(_edit(played[0], lambda d: d["state"]["entities"]["p1"].__setitem__(
        "cash", d["state"]["entities"]["p1"]["cash"] + 1)))
    with pytest.raises(BadSave, match=r"entities\.p1\.cash: the save holds \d+, but its history gives"):
        load_save(rich)
    illegal = tmp_path / "illegal.save.json"
    illegal.write_text(_edit(played[0], lambda d: d["state"]["history"].__setitem__(0, ["take", 99])))
    with pytest.raises(BadSave, match=r"history\[0\]: \[\"take\", 99\] is not legal when the game is replayed"):
        load_save(illegal)
    intact = tmp_path / "intact.save.json"
    intact.write_text(played[0])
    assert load_save(intact).state["history"] == json.loads(played[0])["state"]["history"]


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace('"cash": ', '"cash": NaN, "x": ', 1), "NaN is not a number JSON allows"),
    (lambda t: t.replace('"seed": ', '"seed": Infinity, "x": ', 1), "Infinity is not a number JSON allows"),
    (lambda t: t.replace('"players": ', '"players": 2, "players": ', 1), "the key 'players' is given twice"),
    (lambda t: t.replace('"state": ', '"state": ' + "[" * 100_000 + "]" * 100_000 + ', "x": ', 1),
     "nested deeper than 64 levels"),
    (lambda t: t.replace('"state": ', '"state": ' + "[" * 200 + "]" * 200 + ', "x": ', 1),
     "nested deeper than 64 levels"),
], ids=["nan", "infinity", "duplicate-key", "deep-100000", "deep-200"])
def test_a_save_that_is_not_strict_json_is_rr304(tmp_path, played, edit, words):
    from railrules.interpreter import Game
    from railrules.interpreter.paths import rulesets_dir
    text = edit(played[0])
    assert text != played[0]
    save = tmp_path / "bad.save.json"
    save.write_text(text)
    for argv in (["play", "--resume", str(save)], ["render", "--resume", str(save)]):
        code, out, err = cli(*argv)
        assert code == 1 and "RR304" in err and words in err, err
    state = json.dumps(json.loads(played[0])["state"])
    ruleset = load_ruleset(str(rulesets_dir() / COIN_RACE))
    with pytest.raises(BadSave, match=words.replace("(", r"\(").replace(")", r"\)")):
        Game.from_json(ruleset, edit(state) if edit(state) != state else text)


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace('"seed": ', '"seed": NaN, "x": ', 1), "NaN is not a number JSON allows"),
    (lambda t: t.replace('"seed": ', '"seed": 1, "seed": ', 1), "the key 'seed' is given twice"),
    (lambda t: t.replace('"actions": [', '"actions": [' + "[" * 100_000 + "]" * 100_000 + ", ", 1),
     "nested deeper than 64 levels"),
    (lambda t: t.replace('"actions": [', '"actions": [7, ', 1), "actions[0]: 7 is not an action"),
], ids=["nan", "duplicate-key", "deep", "not-an-action"])
def test_a_log_that_is_not_strict_json_is_rr304(tmp_path, played, edit, words):
    text = edit(played[1])
    assert text != played[1]
    log = tmp_path / "bad.log.json"
    log.write_text(text)
    for argv in (["replay", str(log)], ["view", str(log), "-o", str(tmp_path / "v.html")],
                 ["render", "--log", str(log)]):
        code, out, err = cli(*argv)
        assert code == 1 and "RR304" in err and words in err, (argv, err)


def test_extra_actions_after_the_end_are_refused_at_the_first(tmp_path, played, monkeypatch):
    from railrules.tools.play import replay
    data = json.loads(played[1])
    over = len(data["actions"])
    data["actions"] += [data["actions"][-1]] * 200_000
    log = tmp_path / "long.log.json"
    log.write_text(json.dumps(data))
    applied = []
    real = replay.steps

    def counting(*args, **kwargs):
        for game in real(*args, **kwargs):
            applied.append(1)
            yield game
    monkeypatch.setattr(replay, "steps", counting)
    code, out, err = cli("replay", str(log))
    assert code == 1 and f"action {over + 1} " in err and "the game was already over" in err
    assert len(applied) == over + 1       # the start and each action of the game: none after


@pytest.mark.parametrize("field, value", [("seed", 12345), ("players", 3)])
def test_a_log_edited_to_another_game_is_refused_by_view_and_render(tmp_path, played, field, value):
    """The actions of a coin race may all be legal in another seed's game: the recorded final
    state says whether the log is the game it claims."""
    data = json.loads(played[1])
    data[field] = value
    log = tmp_path / "edited.log.json"
    log.write_text(json.dumps(data))
    for argv in (["view", str(log), "-o", str(tmp_path / "v.html")], ["render", "--log", str(log)],
                 ["render", "--log", str(log), "--step", "1"], ["replay", str(log)]):
        code, out, err = cli(*argv)
        assert code == 1 and ("RR305" in err or "RR301" in err), (argv, err)
        assert "internal error" not in err
    assert not (tmp_path / "v.html").exists()



# ---------------------------------------------------------------- the error contract
def _hostile_files(tmp_path: Path, played) -> dict:
    """The hostile saves, logs and paths, written into ``tmp_path``: name -> path."""
    save, log = played
    state = json.loads(save)["state"]
    files = {
        "save-cash-string": _edit(save, _p1("cash", "40")),
        "save-cash-fraction": _edit(save, _p1("cash", 40.5)),
        "save-cash-true": _edit(save, _p1("cash", True)),
        "save-cash-negative": _edit(save, _p1("cash", -1)),
        "save-nan": save.replace('"cash": ', '"cash": NaN, "x": ', 1),
        "save-infinity": save.replace('"cash": ', '"cash": Infinity, "x": ', 1),
        "save-duplicate-key": save.replace('"players": ', '"players": 2, "players": ', 1),
        "save-nonsense-history": _edit(save, lambda d: d["state"].__setitem__("history", [["x"], [1, 2]])),
        "save-garbage-locals": _edit(save, lambda d: d["state"]["stack"][-1]["locals"].__setitem__("g", {"a": [0.5]})),
        "save-nested-100000": '{"format": "railrules-save-1", "ruleset": "x", "state": '
                              + "[" * 100_000 + "]" * 100_000 + "}",
        "save-state-only": json.dumps(state),
        "log-nested-100000": '{"format": "railrules-log-1", "actions": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "log-extra-actions": _edit(log, lambda d: d["actions"].extend([d["actions"][-1]] * 1000)),
        "log-seed-edited": _edit(log, lambda d: d.__setitem__("seed", 999)),
        "log-nan": log.replace('"seed": ', '"seed": NaN, "x": ', 1),
    }
    out = {}
    for name, text in files.items():
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(text, encoding="utf-8")
    return out


CONTRACT_VERBS = {   # what each kind of hostile file is fed to
    "save": [["play", "--resume", "{f}"], ["render", "--resume", "{f}"]],
    "log": [["replay", "{f}"], ["view", "{f}", "-o", "{tmp}/v.html"], ["render", "--log", "{f}"],
            ["render", "--log", "{f}", "--step", "1"]],
}


def _clean_exit(argv) -> tuple[int, str]:
    code, out, err = cli(*argv)
    assert code in (1, 2), (argv, code, out[-500:], err[-1000:])
    assert "internal error" not in err and "Traceback" not in err, (argv, err[-1000:])
    return code, err


def test_every_hostile_save_and_log_is_a_railrules_error_in_the_api_and_the_cli(tmp_path, played):
    from railrules.interpreter import Game, RailrulesError
    from railrules.interpreter.paths import rulesets_dir
    from railrules.tools.play.terminal import load_save
    from railrules.tools.play.replay import read_log, replay
    ruleset = load_ruleset(str(rulesets_dir() / COIN_RACE))
    for name, path in _hostile_files(tmp_path, played).items():
        kind = name.split("-")[0]
        if kind == "save":
            with pytest.raises(RailrulesError):
                load_save(path)
            text = path.read_text()   # the state (the save's last key) alone, as Game.from_json takes it
            state_text = text[text.index('"state": ') + 9:-1] if '"state": ' in text else text
            if name != "save-state-only":   # (a good state: what the API loads, the CLI does not)
                with pytest.raises(RailrulesError):
                    Game.from_json(ruleset, state_text)
        else:
            with pytest.raises(RailrulesError):
                replay(read_log(path), str(path))
        for verb in CONTRACT_VERBS[kind]:
            code, err = _clean_exit([w.format(f=path, tmp=tmp_path) for w in verb])
            assert "RR30" in err, (name, verb, err)


def test_hostile_arguments_and_paths_get_a_clean_exit_code(tmp_path, played):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "target").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    from railrules.interpreter.paths import rulesets_dir
    race = str(rulesets_dir() / COIN_RACE)
    cases = [
        ["play", race, "--save", str(tmp_path / "link"), "--force"],
        ["play", race, "--save", str(tmp_path / "fifo"), "--force"],
        ["play", race, "--bots", "random", "--log", str(tmp_path / "fifo"), "--force"],
        ["compare", race, "--games", "2", "--csv", str(tmp_path / "no" / "x.csv")],
        ["compare", race, "--games", "2", "--html", str(tmp_path / "no" / "x.html")],
        ["render", race, "--svg", "/dev/full", "--force"],
        ["render", race, "--svg", str(tmp_path)],
        ["view", str(tmp_path / "missing.log"), "-o", str(tmp_path / "x.html")],
        ["play", "/dev/null"], ["play", str(tmp_path / "fifo")], ["lint", str(tmp_path / "target")],
        ["simulate", race, "--players", "99"], ["simulate", race, "--variant", "../../etc/passwd"],
        ["render", race, "--step", "3"], ["replay", str(tmp_path)],
    ]
    for argv in cases:
        _clean_exit(argv)
    assert (tmp_path / "target").read_text() == "keep" and (tmp_path / "link").is_symlink()


@pytest.mark.parametrize("fault", [RecursionError, MemoryError, SyntaxError])
def test_a_resource_fault_while_loading_is_a_coded_error(tmp_path, monkeypatch, fault):
    """Whatever limit of Python a ruleset reaches while it loads (a nesting the parser or the
    code generator cannot take, memory) is a RailrulesError at the loader's boundary."""
    from railrules.interpreter import RulesetError
    from railrules.interpreter.data import ruleset as loader

    def overwhelmed(self, *args, **kwargs):
        raise fault("too much")
    monkeypatch.setattr(loader._Loader, "load", overwhelmed)
    root = ruleset(tmp_path)
    with pytest.raises(RulesetError) as info:
        load_ruleset(str(root))
    assert info.value.diagnostics[0].code == "RR311"
    _, diags = check_ruleset(str(root))
    assert [d.code for d in diags] == ["RR311"]
    code, out, err = cli("lint", str(root))
    assert code == 1 and "RR311" in out and "internal error" not in err


def test_a_rules_file_is_not_read_past_the_size_limit(tmp_path, monkeypatch):
    root = ruleset(tmp_path)
    with open(root / "main.rules", "r+b") as fh:   # a sparse 64 MB file: nothing is written
        fh.truncate(64 * 1024 ** 2)
    read = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or real(self))
    assert codes(root) == ["RR007"]
    assert root / "main.rules" not in [p.resolve() for p in read]


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_ruleset_with_other_line_ends_reads_as_with_newlines(tmp_path, end):
    """A rules file whose lines end with a carriage return alone read as one line, a comment:
    "no 'game:' block". Every file of the folder with those line ends loads and plays as with
    newlines, and a fault is placed at its line."""
    import shutil
    from railrules.interpreter.paths import rulesets_dir
    plain, other = tmp_path / "plain", tmp_path / "other"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", plain)
    shutil.copytree(plain, other)
    for path in other.rglob("*"):
        if path.suffix in (".rules", ".yaml"):
            path.write_bytes(path.read_bytes().replace(b"\n", end.encode()))
    assert codes(other) == []
    games = [load_ruleset(str(root)).new_game(2, 7) for root in (plain, other)]
    for _ in range(20):
        if games[0].is_over:
            break
        assert games[1].legal_actions() == games[0].legal_actions()
        for game in games:
            game.apply(game.legal_actions()[-1])
    assert {**games[1].state, "hash": None} == {**games[0].state, "hash": None}   # (the bytes differ)
    (rules,) = other.glob("rules/*.rules")
    lines = rules.read_bytes().split(end.encode())
    lines.insert(1, b"def oops( = 1")
    rules.write_bytes(end.encode().join(lines))
    _, diags = check_ruleset(str(other))
    assert [(d.code, d.pos.line) for d in diags if d.severity == "error"] == [("RR101", 2)]
