"""Overlays (LANGUAGE.md section 11): a variant, or a ruleset folder that extends another, adds,
replaces and extends what its base declares, nothing copied. The base here is the lint corpus's
small game (tests/lint_corpus/base); the shipped rulesets' overlays are at the end."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.data.ruleset import check_ruleset
from railrules.interpreter.engine.game import Game
from railrules.interpreter.errors import BadSave
from railrules.interpreter.paths import rulesets_dir

CORPUS = Path(__file__).parent / "lint_corpus" / "base"


@pytest.fixture
def base(tmp_path) -> Path:
    folder = tmp_path / "base"
    shutil.copytree(CORPUS, folder)
    return folder


def overlay(folder: Path, extends: str, rules: str = "", yaml: str = "", name: str | None = None) -> Path:
    """A ruleset folder that extends ``extends``, with ``yaml`` added to its ruleset.yaml and
    ``rules`` as its one rules file."""
    folder.mkdir(parents=True)
    listed = "rules: [more.rules]\n" if rules else ""
    (folder / "ruleset.yaml").write_text(f"name: {name or folder.name}\nextends: {extends}\n{yaml}{listed}")
    if rules:
        (folder / "more.rules").write_text(rules)
    return folder


def variant(folder: Path, name: str, rules: str = "", yaml: str = "") -> None:
    (folder / "variants").mkdir(exist_ok=True)
    listed = f"rules: [variants/{name}.rules]\n" if rules else ""
    (folder / "variants" / f"{name}.yaml").write_text(f'description: "{name}"\n{yaml}{listed}')
    if rules:
        (folder / "variants" / f"{name}.rules").write_text(rules)


def errors(path, variant_name=None) -> list:
    _, found = check_ruleset(str(path), variant_name)
    return [(d.code, Path(d.pos.file).name, d.pos.line) for d in found if d.severity == "error"]


def played(rs, seed=1, players=2) -> Game:
    game, rng = rs.new_game(players, seed), random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


# ---------------------------------------------------------------- adding
ADDED = [   # (add: section, an expression true of the loaded game)
    ("constants: {bonus: 4}", "bonus == 4"),
    ("variables: {tally: 2}", "tally == 2"),
    ("notes: {scratch: [1]}", "scratch == [1]"),
    ("player: {loans: 1}", "p1.loans == 1 and p2.loans == 1"),
    ("fields: {companies: {last_price: 3}}", "Red.last_price == 3 and Blue.last_price == 3"),
    ("fields: {hexes: {toll: 1}}", "A1.toll == 1"),
    ("kinds: {tokens: {fields: {used: false}, entities: {T1: {}, T2: {used: true}}}}", "tokens == [T1, T2] and T2.used"),
    ("entities: {companies: {Green: {name: Green Line, home: A1}}}", "companies == [Red, Blue, Green] and Green.income == 1"),
]


@pytest.mark.parametrize("added, holds", ADDED)
def test_an_overlay_adds_data_the_rules_then_read(base, tmp_path, added, holds):
    rs = load_ruleset(str(overlay(tmp_path / "mine", "../base", yaml=f"add:\n  {added}\n")))
    assert rs.new_game(2).evaluate(holds) is True


def test_an_overlay_adds_hexes_secret_fields_costs_and_render_entries(base, tmp_path):
    yaml = ("add:\n  hexes: {E1: {cost: 2}}\n  player: {hand: 0}\n  secret: {players: [hand]}\n"
            "  costs: {pass: \"0\"}\n  render: {options: {wait: \"wait a turn\"}, hex: '\"x\"'}\n")
    rs = load_ruleset(str(overlay(tmp_path / "mine", "../base", yaml=yaml)))
    assert "E1" in rs.kinds["hexes"] and rs.meta["secret"] == {"players": ["hand"]}
    assert rs.meta["costs"] == {"pass": "0"} and rs.meta["render"] == {"options": {"wait": "wait a turn"}, "hex": '"x"'}
    assert rs.new_game(2).hidden("p1", "hand", "p2")


def test_an_overlay_adds_and_replaces_rules_by_name(base, tmp_path):
    rules = ("def build_cost(h) = h.cost + 1\n\n"          # replaces the base's
             "def toll(h) = build_cost(h) * 2\n\n"         # added
             "metric tolls = sum([toll(h) for h in hexes])\n")
    rs = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules)))
    game = rs.new_game(2)
    assert game.evaluate("build_cost(A1)") == game.evaluate("A1.cost + 1")
    assert game.metrics()["tolls"] == game.evaluate("sum([2 * (h.cost + 1) for h in hexes])")


# ---------------------------------------------------------------- extending
def test_before_and_after_a_procedure_run_around_it_in_layer_order(base, tmp_path):
    (base / "rules" / "game.rules").write_text((base / "rules" / "game.rules").read_text() + (
        "\nafter turn(p):\n    cite \"x\"\n    log \"base after {p}\"\n"))
    mine = overlay(tmp_path / "mine", "../base", (
        "before turn(q):\n    cite \"x\"\n    log \"before {q}\"\n\n"
        "after turn(q):\n    cite \"x\"\n    log \"after {q}\"\n"), yaml="add: {variables: {turns: 0}}\n")
    variant(mine, "counted", "after turn(who):\n    cite \"x\"\n    set turns += 1\n")
    rs = load_ruleset(str(mine), "counted")
    game = rs.new_game(2)
    game.apply("pass")
    lines = [x for x in game.messages_for(None) if "Player 1" in x]
    assert lines == ["before Player 1", "Player 1 passes", "base after Player 1", "after Player 1"]
    assert game.evaluate("turns") == 1
    assert [d.name for d in rs.definitions if "turn" in getattr(d, "name", "")] == [
        "turn", "turn (base)", "after turn", "before turn", "after turn #2", "after turn #3"]


def test_a_procedure_with_rules_after_it_still_returns_its_value(base, tmp_path):
    rules = ("procedure half(x):\n    cite \"x\"\n    if x > 3:\n        return x // 2\n    return x\n\n"
             "after half(x):\n    cite \"x\"\n    set seen += x\n\n"
             "after turn(p):\n    cite \"x\"\n    let h = call half(8)\n    set got = h\n")
    rs = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules, "add: {variables: {seen: 0, got: 0}}\n")))
    game = rs.new_game(2)
    game.apply("pass")
    assert (game.evaluate("got"), game.evaluate("seen")) == (4, 8)


@pytest.mark.parametrize("side, order", [("after", ["pass", "wait"]), ("before", ["wait", "pass"])])
def test_an_option_is_added_beside_the_one_it_names(base, tmp_path, side, order):
    rules = f"option wait {side} pass in turn:\n    log \"{{p}} waits\"\n"
    game = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules))).new_game(2)
    labels = [a.label for a in game.legal_actions()]
    assert labels[-2:] == order and labels[0] == "buy Red"
    game.apply("wait")
    assert game.current_player == "p2" and "Player 1 waits" in game.messages_for(None)


def test_an_added_option_sees_the_procedures_parameters_and_requires_decide_it(base, tmp_path):
    rules = ("option gift(c in companies) after pass in turn:\n"
             "    require p.cash >= 5 else \"{p} is too poor to give\"\n"
             "    pay 5 from p to c\n")
    game = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules))).new_game(2)
    assert "gift Red" in [a.label for a in game.legal_actions()]
    game.execute("set p1.cash = 4")
    assert "gift Red" not in [a.label for a in game.legal_actions()]
    assert "too poor" in game.machine.why_illegal(game.to_action("gift Red"))[0]


@pytest.mark.parametrize("join, after_rounds", [("or", 1), ("and", 3)])
def test_a_clause_joined_to_an_end_condition(base, tmp_path, join, after_rounds):
    rules = f"end_condition big_network {join}: round >= 1\n"
    rs = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules)))
    game = rs.new_game(2)
    while not game.is_over:
        game.apply("pass")
    assert game.evaluate("round") == after_rounds
    assert game.result["reasons"] == (["big_network"] if join == "or" else ["the last round is over"])


# ---------------------------------------------------------------- conflicts and missing targets
CONFLICTS = [   # (overlay rules, variant-of-base rules, expected errors)
    ("def toll(h) = 1\n", "def toll(h) = 2\n", [("RR211", "toll.rules", 1)]),
    ("option wait after pass in turn:\n    pass\n", "option wait after buy in turn:\n    pass\n",
     [("RR211", "toll.rules", 1)]),
    # replacing the base's definition in both is no conflict: the later layer wins
    ("def build_cost(h) = 1\n", "def build_cost(h) = 2\n", []),
    ("", "def toll(h) = 1\n", []),
]


@pytest.mark.parametrize("mine, theirs, expected", CONFLICTS)
def test_two_overlays_adding_the_same_name_conflict(base, tmp_path, mine, theirs, expected):
    variant(base, "toll", theirs)
    folder = overlay(tmp_path / "mine", "../base", mine + "def other(h) = 0\n")
    assert errors(folder, "toll") == expected


MISSING = [
    ("after trun(p):\n    pass\n", "RR212", "did you mean 'turn'?"),
    ("before build_cost(h):\n    pass\n", "RR212", "only a procedure"),       # a def, not a procedure
    ("option wait after pas in turn:\n    pass\n", "RR212", "did you mean 'pass'?"),
    ("option wait after pass in game:\n    pass\n", "RR212", "its chooses offer: nothing"),
    ("end_condition no_such or: true\n", "RR212", "name a definition of the base"),
    ("after turn(p, q):\n    pass\n", "RR104", "write after turn(p)"),
    ("option buy after pass in turn:\n    pass\n", "RR211", "another name"),
    ("def build_cost(h) = 1\ndef build_cost(h) = 2\n", "RR103", None),
]


@pytest.mark.parametrize("rules, code, hint", MISSING)
def test_an_extension_whose_target_is_gone_is_an_error_at_its_line(base, tmp_path, rules, code, hint):
    variant(base, "broken", "# a variant\n" + rules)
    _, found = check_ruleset(str(base), "broken")
    wrong = [d for d in found if d.severity == "error"]
    assert [(d.code, Path(d.pos.file).name) for d in wrong] == [(code, "broken.rules")]
    assert wrong[0].pos.line == (3 if code == "RR103" else 2)
    if hint:
        assert hint in (wrong[0].hint or "")


def test_the_base_missing_and_cycles_of_overlays_are_refused(base, tmp_path):
    a = overlay(tmp_path / "a", "../b")
    b = overlay(tmp_path / "b", "../a")
    assert errors(a) == [("RR214", "ruleset.yaml", 2)]
    _, found = check_ruleset(str(a))
    assert "a -> b -> a" in found[0].message
    assert errors(overlay(tmp_path / "c", "../nowhere")) == [("RR213", "ruleset.yaml", 2)]
    assert errors(overlay(tmp_path / "d", "no_such_shipped_game")) == [("RR213", "ruleset.yaml", 2)]
    assert errors(b) == [("RR214", "ruleset.yaml", 2)]


def test_overlays_of_overlays_lay_in_order(base, tmp_path):
    overlay(tmp_path / "one", "../base", "def build_cost(h) = 10\n", "add: {constants: {bonus: 1}}\n")
    two = overlay(tmp_path / "two", "../one", "def build_cost(h) = bonus + 20\n", "constants: {bonus: 2}\n")
    rs = load_ruleset(str(two))
    assert rs.layers == ((tmp_path / "base").resolve(), (tmp_path / "one").resolve(), two.resolve())
    assert rs.new_game(2).evaluate("build_cost(A1)") == 22


# ---------------------------------------------------------------- the base's fixes reach the overlay
def test_the_content_hash_covers_the_base_and_a_save_refuses_a_changed_base(base, tmp_path):
    mine = overlay(tmp_path / "mine", "../base", "option wait after pass in turn:\n    pass\n")
    rs = load_ruleset(str(mine))
    game = rs.new_game(2)
    game.apply("wait")
    saved = game.to_json()
    components = base / "components.yaml"
    components.write_text(components.read_text().replace("share_price: 2", "share_price: 3"))
    changed = load_ruleset(str(mine))
    assert changed.hash != rs.hash and "changed const share_price" in changed.changed_since(rs.fingerprints)
    with pytest.raises(BadSave):
        Game.from_json(changed, saved)


def _shipped_copy(tmp_path, name) -> Path:
    folder = tmp_path / name
    shutil.copytree(rulesets_dir() / name, folder)
    text = (folder / "ruleset.yaml").read_text()   # the shared library stays where it is
    return folder if "library/" not in text else folder


def test_a_fix_in_the_base_reaches_the_chicago_express_overlay(tmp_path):
    base = _shipped_copy(tmp_path, "chicago_express")
    mine = overlay(tmp_path / "mine", "../chicago_express", yaml="add:\n  fields: {companies: {last_price: 0}}\n")
    shutil.copy(base / "variants" / "sell_back.rules", mine / "more.rules")
    (mine / "ruleset.yaml").write_text((mine / "ruleset.yaml").read_text() + "rules: [more.rules]\n")
    before = load_ruleset(str(mine)).new_game(3, 1).evaluate("min_bid(PRR)")
    turn = base / "rules" / "turn.rules"
    turn.write_text(turn.read_text().replace("def min_bid(c) = ceil(c.income / (sold(c) + 1))",
                                             "def min_bid(c) = ceil(c.income / (sold(c) + 1)) + 1"))
    after = load_ruleset(str(mine)).new_game(3, 1)
    assert after.evaluate("min_bid(PRR)") == before + 1
    labels = [a.label for a in after.legal_actions()]
    assert "bid 7" in labels     # the opening auctions are the rulebook's, not min_bid


def test_a_fix_inside_the_extended_procedure_reaches_the_stephensons_rocket_variant(tmp_path):
    base = _shipped_copy(tmp_path, "stephensons_rocket")
    extend = base / "rules" / "extend.rules"
    extend.write_text(extend.read_text().replace('log "{p} moves the {c} locomotive from {origin} to {h}"',
                                                  'log "{p} drives the {c} locomotive from {origin} to {h}"'))
    game = load_ruleset(str(base), "two_hexes").new_game(2, 1)
    for label in ("extend", "railway LM", "to B3", "further", "to C2"):
        game.apply(label)
    moves = [x for x in game.messages_for(None) if "locomotive from" in x]
    assert len(moves) == 2 and all(x.startswith("Player 1 drives the ") for x in moves)


# ---------------------------------------------------------------- the shipped overlays
@pytest.mark.parametrize("ruleset, name", [("chicago_express", "sell_back"), ("stephensons_rocket", "two_hexes")])
def test_the_shipped_house_rules_are_short_overlays_that_copy_nothing(ruleset, name):
    folder = rulesets_dir() / ruleset
    files = [folder / "variants" / f"{name}.yaml", folder / "variants" / f"{name}.rules"]
    assert sum(len(f.read_text().splitlines()) for f in files) < 30
    base = load_ruleset(ruleset)
    mine = load_ruleset(ruleset, name)
    written = {d.name for d in mine.definitions if hasattr(d, "name")} - {d.name for d in base.definitions if hasattr(d, "name")}
    own = {d.pos.file for d in mine.definitions} - {d.pos.file for d in base.definitions}
    assert len(own) == 1   # every definition new to the variant is in its one rules file ...
    copied = [d.name for d in mine.definitions if getattr(d, "name", None) in {x.name for x in base.definitions
              if hasattr(x, "name")} and str(d.pos.file).endswith(f"{name}.rules")]
    assert copied == [] and written   # ... and none has a base definition's name
    assert played(mine, seed=3, players=3).is_over


def test_an_overlay_changes_the_generated_code_only_of_what_it_extends(tmp_path):
    from railrules.tools.author.generated import generated
    (tmp_path / "wait.yaml").write_text('description: "wait"\nrules: [wait.rules]\n')
    (tmp_path / "wait.rules").write_text('option wait after decline in auction_turn:\n    log "{p} waits"\n')
    base = dict(generated("chicago_express"))
    mine = dict(generated("chicago_express", variant=str(tmp_path / "wait.yaml")))
    assert len(base) == len(mine)
    # auction_turn's unit and its choice's legal-actions lister: names are not numbered in the
    # order written, so nothing written after them is renamed
    changed = [k.split()[1] for k in base if k not in mine]
    assert len(changed) == 2 and changed[0] == "proc:auction_turn"
    assert changed[1].endswith("chicago_express/rules/turn.rules:32")
    assert "waits" in "".join(v for k, v in mine.items() if k not in base)


def test_an_overlay_folder_changing_what_its_base_lacks_is_named_in_the_message(base, tmp_path):
    mine = overlay(tmp_path / "mine", "../base", yaml="constants: {max_rond: 4}\nentities: {Red: {incme: 1}}\n")
    _, found = check_ruleset(str(mine))
    assert [(d.code, d.message) for d in found if d.severity == "error"] == [
        ("RR204", "overlay mine sets constant 'max_rond', which the ruleset does not have"),
        ("RR204", "overlay mine sets Red.incme, a field Red does not have")]
    assert "add:" in found[0].hint


def test_an_overlays_trigger_runs_after_the_bases_for_the_same_event(base, tmp_path):
    rules = 'on built(c, h):\n    cite "House rule: a company earns 1 more for a hex."\n    set c.income += 1\n'
    game = load_ruleset(str(overlay(tmp_path / "mine", "../base", rules))).new_game(2)
    income = game.evaluate("Red.income")
    game.apply([a for a in game.legal_actions() if a.label.startswith("extend Red")][0])
    assert game.evaluate("Red.income") == income + 2     # the base's 1 and the overlay's 1
