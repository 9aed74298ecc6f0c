"""The public game API on Chicago Express: refusing actions, action forms, saves, errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from railrules.interpreter import (Action, BadSave, Game, IllegalAction, RailrulesError, RulesetError,
                                   check_ruleset, load_ruleset)

ROOT = Path(__file__).resolve().parents[1]
AUCTION_RULES = ROOT / "rulesets" / "library" / "auction.rules"
VARIANTS = sorted(p.stem for p in (ROOT / "rulesets" / "chicago_express" / "variants").glob("*.yaml"))


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that contains ``text``."""
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def refused(game, action) -> IllegalAction:
    """Apply ``action``, expect IllegalAction, and check that nothing changed."""
    before = game.to_json()
    legal_before = [a.to_json() for a in game.legal_actions()]
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert game.to_json() == before, "a refused action changed the state"
    assert [a.to_json() for a in game.legal_actions()] == legal_before
    diag = info.value.diagnostics[0]
    assert diag.code == "RR301"
    return info.value


@pytest.fixture(scope="module")
def opened(chicago):
    game = chicago.new_game(players=3, seed=1)
    for label in ["bid 7", "pass", "pass"] + ["pass"] * 9:
        game.apply(label)
    return game


# ---------------------------------------------------------------- illegal actions
def test_the_first_decision_is_an_opening_bid(fresh_game):
    labels = [a.label for a in fresh_game.legal_actions()]
    assert fresh_game.current_player == "p1"
    # PRR's opening minimum bid is 7; p1 has 40 (3 players); pass is always possible
    assert labels == [f"bid {x}" for x in range(7, 41)] + ["pass"]
    assert fresh_game.decisions == 0 and not fresh_game.is_over


def test_unknown_action_name_is_refused_and_lists_the_choices(fresh_game):
    err = refused(fresh_game, "fly")
    msg = err.diagnostics[0].message
    assert "'fly' is not a choice now" in msg
    assert "bid" in msg and "pass" in msg


@pytest.mark.parametrize("value", [3, 6, 0, -1])
def test_a_bid_below_the_minimum_is_refused(fresh_game, value):
    err = refused(fresh_game, f"bid {value}")
    assert f"{value} is not one of the choices" in err.diagnostics[0].message


def test_a_bid_over_the_players_cash_is_refused_by_the_bid_rule(fresh_game):
    cash = fresh_game.evaluate("p1.cash")
    assert cash == 40
    err = refused(fresh_game, ["bid", cash + 1])
    diag = err.diagnostics[0]
    assert f"cannot 'bid {cash + 1}'" in diag.message
    assert f"{cash + 1} is not one of the choices for the amount Player 1 bids" in diag.message
    # the diagnostic points at the rule that limits the bid: `option bid(x in range(..., p.cash + 1))`
    assert diag.pos.file.endswith("library/auction.rules")
    assert diag.pos.line == line_of(AUCTION_RULES, "option bid(")
    # the whole cash is a legal bid
    fresh_game.apply(["bid", cash])
    assert fresh_game.current_player == "p2"


@pytest.mark.parametrize("action, words", [
    ("bid", "'bid' takes 1 value(s), 0 given"),
    ("bid 7 8", "'bid' takes 1 value(s), 2 given"),
    ("pass 3", "'pass' takes 0 value(s), 1 given"),
    (["bid", "seven"], "seven is not one of the choices"),
])
def test_wrong_values_are_refused(fresh_game, action, words):
    assert words in refused(fresh_game, action).diagnostics[0].message


@pytest.mark.parametrize("action", [["bid", True], [], [7], ["bid", 7.0], ["bid", [7]], None, 7,
                                    {"name": "bid"}])
def test_malformed_actions_are_refused(fresh_game, action):
    refused(fresh_game, action)


def test_a_failing_require_names_its_reason(opened):
    game = opened.clone()
    assert game.current_player == "p1"
    game.apply("take_auction")
    err = refused(game, "auction WAB")
    diag = err.diagnostics[0]
    assert "the Wabash's shares are available only once a company has reached Chicago" in diag.message
    assert diag.pos.file.endswith("turn.rules")
    assert "WAB" in diag.message
    assert "auction WAB" not in [a.label for a in game.legal_actions()]


def test_a_dial_on_red_names_its_reason(opened):
    game = opened.clone()
    for player in ["p1", "p2", "p3"]:
        assert game.current_player == player
        game.apply("take_auction")
        game.apply("decline")
    assert game.evaluate("AuctionDial.position") == 3
    assert [a.label for a in game.legal_actions()] == ["take_build", "take_develop"]
    err = refused(game, "take_auction")
    assert "the auction dial is on red" in err.diagnostics[0].message


def test_a_refusal_names_the_player_by_name(fresh_game):
    assert fresh_game.evaluate("p1.name") == "Player 1"
    err = refused(fresh_game, "fly")
    assert err.diagnostics[0].message.startswith("Player 1 cannot 'fly'")


def test_a_refused_action_is_not_recorded(fresh_game):
    refused(fresh_game, "bid 1000")
    assert fresh_game.decisions == 0
    assert fresh_game.log()["actions"] == []


# ---------------------------------------------------------------- action forms
@pytest.mark.parametrize("form", [
    "bid 9", "  bid   9 ", ["bid", 9], Action("bid", (9,)), "legal",
])
def test_label_json_and_action_forms_are_equivalent(fresh_game, form):
    if form == "legal":
        form = next(a for a in fresh_game.legal_actions() if a.label == "bid 9")
    reference = fresh_game.clone()
    reference.apply(Action("bid", (9,)))
    game = fresh_game.clone()
    game.apply(form)
    assert game.to_json() == reference.to_json()
    assert game.log()["actions"] == [["bid", 9]]


@pytest.mark.parametrize("form", ["auction NYC", ["auction", "NYC"], Action("auction", ("NYC",))])
def test_entity_valued_actions_accept_every_form(opened, form):
    reference = opened.clone()
    reference.apply("take_auction")
    game = reference.clone()
    reference.apply(Action("auction", ("NYC",)))
    game.apply(form)
    assert game.to_json() == reference.to_json()
    # NYC: income 8, one share sold -> minimum bid ceil(8 / 2) = 4
    assert game.legal_actions()[0].label == "bid 4"


def test_action_json_round_trip(fresh_game):
    for action in fresh_game.legal_actions():
        data = json.loads(json.dumps(action.to_json()))
        assert Action.from_json(data) == action
        assert data[0] == action.name and tuple(data[1:]) == action.args
        assert action.label == " ".join(map(str, data))
        assert str(action) == action.label


def test_clone_does_not_share_state(fresh_game):
    copy = fresh_game.clone()
    copy.apply("bid 7")
    assert fresh_game.decisions == 0 and copy.decisions == 1
    assert fresh_game.current_player == "p1" and copy.current_player == "p2"


# ---------------------------------------------------------------- saves
def _mutated(text: str, change) -> str:
    state = json.loads(text)
    change(state)
    return json.dumps(state)


@pytest.fixture(scope="module")
def mid_auction(chicago):
    """A save in the middle of the B&O opening auction (several frames on the rule stack)."""
    game = chicago.new_game(players=3, seed=1)
    for label in ["bid 7", "pass", "pass"]:
        game.apply(label)
    assert len(game.state["stack"]) >= 3 and game.state["waiting"]
    return game.to_json()


def test_a_save_loads_back_losslessly(chicago, mid_auction):
    game = Game.from_json(chicago, mid_auction)
    assert game.to_json() == mid_auction
    assert game.current_player == "p1"
    assert game.legal_actions()[0].label == "bid 6"   # B&O's opening bid


@pytest.mark.parametrize("text", [
    "", "hello", "{", "[]", "null", "42", '"a string"', "{}", '{"format": "railrules-state-1"}',
])
def test_from_json_rejects_garbage(chicago, text):
    with pytest.raises(BadSave) as info:
        Game.from_json(chicago, text)
    assert info.value.diagnostics[0].code == "RR304"


def test_from_json_rejects_non_text(chicago):
    for junk in (None, 42, b"\xff\xfe\x00"):
        with pytest.raises(BadSave):
            Game.from_json(chicago, junk)


@pytest.mark.parametrize("fraction", [0.01, 0.25, 0.5, 0.9, 0.999])
def test_from_json_rejects_truncated_saves(chicago, mid_auction, fraction):
    cut = mid_auction[:int(len(mid_auction) * fraction)]
    with pytest.raises(BadSave) as info:
        Game.from_json(chicago, cut)
    assert info.value.diagnostics[0].code == "RR304"


def test_from_json_rejects_a_changed_rules_hash(chicago, mid_auction):
    bad = _mutated(mid_auction, lambda s: s.update(hash="0" * 16))
    with pytest.raises(BadSave) as info:
        Game.from_json(chicago, bad)
    assert "other rules" in info.value.diagnostics[0].message


@pytest.mark.parametrize("key, value", [("ruleset", "stephensons_rocket"), ("variant", "house_threshold_4"),
                                        ("format", "railrules-state-0")])
def test_from_json_rejects_foreign_saves(chicago, mid_auction, key, value):
    with pytest.raises(BadSave):
        Game.from_json(chicago, _mutated(mid_auction, lambda s: s.update({key: value})))


@pytest.mark.parametrize("key", ["kinds", "entities", "globals", "stack", "history", "rng",
                                 "players", "seed"])
def test_from_json_rejects_a_missing_or_damaged_part(chicago, mid_auction, key):
    for change in (lambda s: s.pop(key), lambda s: s.update({key: "damaged"})):
        with pytest.raises(BadSave) as info:
            Game.from_json(chicago, _mutated(mid_auction, change))
        assert key in info.value.diagnostics[0].message


def _top(s):
    return s["stack"][-1]


DAMAGED_STACKS = {
    "unknown code unit": lambda s: _top(s).update(unit="proc:no_such_procedure"),
    "instruction past the end": lambda s: _top(s).update(at=10_000),
    "negative instruction": lambda s: _top(s).update(at=-1),
    "instruction not a number": lambda s: _top(s).update(at="6"),
    "instruction where no choice is": lambda s: _top(s).update(at=0),
    "locals not a mapping": lambda s: _top(s).update(locals=[]),
    "frame not a mapping": lambda s: s["stack"].__setitem__(0, "game"),
    "stack not a list": lambda s: s.update(stack={"unit": "game"}),
}


@pytest.mark.parametrize("damage", sorted(DAMAGED_STACKS))
def test_from_json_rejects_a_damaged_stack(chicago, mid_auction, damage):
    with pytest.raises(BadSave) as info:
        Game.from_json(chicago, _mutated(mid_auction, DAMAGED_STACKS[damage]))
    assert info.value.diagnostics[0].code == "RR304"


# A game that is not over is always paused at a choice, with the `game` block at the bottom of
# the rule stack; saves that break this cannot be resumed and should be refused on loading.
UNDETECTED_DAMAGE = {
    "empty stack, not over": lambda s: s.update(stack=[]),
    "not waiting, not over": lambda s: s.update(waiting=False),
    "game frame dropped": lambda s: s["stack"].pop(0),
    "frame without its return slot": lambda s: _top(s).pop("result_to"),
}


@pytest.mark.parametrize("damage", sorted(UNDETECTED_DAMAGE))
def test_from_json_rejects_a_stack_that_cannot_resume(chicago, mid_auction, damage):
    with pytest.raises(BadSave):
        Game.from_json(chicago, _mutated(mid_auction, UNDETECTED_DAMAGE[damage]))


def test_a_save_names_the_parts_of_a_paused_rule_and_a_format_1_save_still_loads(chicago, mid_auction):
    saved = json.loads(mid_auction)
    assert saved["format"] == "railrules-state-2"
    assert set(_top(saved)) == {"unit", "at", "locals", "result_to"}
    game = Game.from_json(chicago, mid_auction)
    old = json.dumps(game.state)       # format 1 wrote the state as it is in memory
    assert json.loads(old)["format"] == "railrules-state-1" and "pc" in _top(json.loads(old))
    again = Game.from_json(chicago, old)
    assert again.to_json() == mid_auction and again.digest() == game.digest()
    assert again.legal_actions() == game.legal_actions()


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_variants_save_is_foreign_to_the_base_ruleset(chicago, variant):
    game = load_ruleset("chicago_express", variant=variant).new_game(players=3, seed=1)
    text = game.to_json()
    assert json.loads(text)["variant"] == variant
    with pytest.raises(BadSave):
        Game.from_json(chicago, text)
    with pytest.raises(BadSave):
        Game.from_json(load_ruleset("chicago_express", variant=variant),
                       chicago.new_game(players=3, seed=1).to_json())


# ---------------------------------------------------------------- the end of the game
def test_a_finished_game_refuses_further_actions(chicago, playthrough):
    run = playthrough(3, 0)
    game = Game.from_json(chicago, run.game.to_json())
    assert game.is_over and game.result is not None
    assert game.legal_actions() == [] and game.current_player is None
    before = game.to_json()
    for action in ("pass", ["bid", 7], Action("take_build"), run.actions[-1]):
        with pytest.raises(IllegalAction) as info:
            game.apply(action)
        assert "the game is over" in info.value.diagnostics[0].message
    assert game.to_json() == before


def test_a_finished_game_has_a_result_and_a_log(playthrough):
    game = playthrough(4, 1).game
    result = game.result
    assert set(result) == {"reasons", "scores", "winners"}
    assert result["winners"] and set(result["winners"]) <= set(game.players)
    log = game.log()
    assert {"seed", "players", "actions", "hash", "final_state_sha256"} <= set(log)
    assert len(log["actions"]) == game.decisions


# ---------------------------------------------------------------- creating games and rulesets
@pytest.mark.parametrize("players", [0, 1, 7, "3"])
def test_new_game_refuses_a_player_count_the_ruleset_does_not_allow(chicago, players):
    with pytest.raises(IllegalAction) as info:
        chicago.new_game(players=players, seed=0)
    assert "2 to 6 players" in info.value.diagnostics[0].message


def test_same_seed_same_game_different_players_different_start(chicago):
    assert chicago.new_game(4, 5).to_json() == chicago.new_game(4, 5).to_json()
    a, b = chicago.new_game(4, 5), chicago.new_game(3, 5)
    assert a.players == ["p1", "p2", "p3", "p4"] and b.players == ["p1", "p2", "p3"]
    # "A seconda del numero di partecipanti": 30 each with 4 players, 40 with 3
    assert a.evaluate("p1.cash") == 30 and b.evaluate("p1.cash") == 40


def test_an_unknown_variant_is_rr205():
    with pytest.raises(RulesetError) as info:
        load_ruleset("chicago_express", variant="no_such_variant")
    codes = [d.code for d in info.value.diagnostics]
    assert codes == ["RR205"]
    assert "no_such_variant" in info.value.diagnostics[0].message
    ruleset, diags = check_ruleset("chicago_express", "no_such_variant")
    assert ruleset is None and [d.code for d in diags] == ["RR205"]


def test_an_unknown_ruleset_is_rr206(tmp_path):
    for name in ("no_such_game", str(tmp_path), str(tmp_path / "missing")):
        with pytest.raises(RulesetError) as info:
            load_ruleset(name)
        diag = info.value.diagnostics[0]
        assert diag.code == "RR206" and diag.severity == "error"
        assert "chicago_express" in (diag.hint or "")
        ruleset, diags = check_ruleset(name)
        assert ruleset is None and [d.code for d in diags] == ["RR206"]


def test_the_shipped_ruleset_checks_clean():
    ruleset, diags = check_ruleset("chicago_express")
    assert ruleset is not None
    assert [d for d in diags if d.severity == "error"] == []
    assert ruleset.name == "chicago_express" and (ruleset.players_min, ruleset.players_max) == (2, 6)


# ---------------------------------------------------------------- evaluate / execute
def test_evaluate_and_execute_set_up_a_position(fresh_game):
    """The rulebook's example: NYC income 22, 2 shares sold -> minimum bid 22 / 3 rounded up = 8."""
    game = fresh_game.clone()
    game.execute("set NYC.income = 22")
    game.execute("set NYC.shares_left -= 2")
    assert game.evaluate("min_bid(NYC)") == 8
    assert game.evaluate("sold(NYC)") == 2
    assert fresh_game.evaluate("NYC.income") == 8, "execute on a clone changed the original"


def test_evaluate_reports_undefined_names(fresh_game):
    with pytest.raises(RulesetError) as info:
        fresh_game.evaluate("NYC.income + bogus_name")
    assert info.value.diagnostics[0].code == "RR102"


def test_execute_refuses_statements_that_need_a_choice(fresh_game):
    before = fresh_game.to_json()
    with pytest.raises(RulesetError) as info:
        fresh_game.execute("call dividend_phase()")
    assert info.value.diagnostics[0].code == "RR105"
    assert fresh_game.to_json() == before


def test_the_package_installs_one_name_and_exposes_the_api():
    """Everything installs under ``railrules``: no top-level ``interpreter`` or ``tools`` in
    site-packages, and ``import railrules`` gives the public API with its version."""
    import sysconfig
    from importlib.metadata import distributions

    import railrules
    # the installed one (a checkout's own railrules.egg-info, on sys.path as the current folder, is not)
    installed = list(distributions(name="railrules", path=[sysconfig.get_paths()["purelib"]]))
    assert len(installed) == 1
    files = installed[0].files or []
    # '..' is the command in bin/; an editable install adds its own __editable__ finder
    ours = [f for f in files if f.parts[0] != ".." and "__editable__" not in f.name]
    tops = {f.parts[0] for f in ours if not f.parts[0].endswith(".dist-info")}
    assert tops <= {"railrules"}, tops
    assert railrules.load_ruleset is load_ruleset and railrules.Game is Game
    assert railrules.__version__ == railrules.interpreter.__version__
    assert "chicago_express" in railrules.shipped_rulesets()
    with pytest.raises(AttributeError):
        railrules.no_such_name


def test_every_python_package_of_the_checkout_is_installed():
    """pyproject lists the packages by hand (the checkout's root is the package): none forgotten."""
    import tomllib
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    # a folder that package-dir maps installs under its mapped name (railrules.pettingzoo)
    mapped = {folder: name for name, folder in setuptools["package-dir"].items() if folder != "."}
    found = {mapped.get(p.parent.relative_to(ROOT).as_posix(),
                        "railrules." + ".".join(p.parent.relative_to(ROOT).parts))
             for top in ("interpreter", "tools") for p in (ROOT / top).rglob("__init__.py")}
    assert found <= listed, found - listed


@pytest.mark.parametrize("call", [
    lambda g, rs: g.apply("bid " + "9" * 5000),
    lambda g, rs: g.to_action("bid " + "9" * 5000),
    lambda g, rs: rs.new_game(3, "7"),
    lambda g, rs: rs.new_game(3, 1.5),
    lambda g, rs: load_ruleset(123),
    lambda g, rs: load_ruleset(None),
    lambda g, rs: load_ruleset("chicago_express", 5),
], ids=["apply-digits", "to_action-digits", "seed-text", "seed-fraction", "ruleset-number", "ruleset-none",
        "variant-number"])
def test_bad_arguments_raise_a_railrules_error_with_a_code(fresh_game, call):
    """The README's promise: every error railrules raises on bad input is a RailrulesError. A
    number past Python's 4,300 digits was a ValueError, a wrong type a TypeError or an
    AttributeError."""
    with pytest.raises(RailrulesError) as info:
        call(fresh_game, fresh_game.ruleset)
    assert info.value.diagnostics[0].code in ("RR301", "RR205", "RR206")
