"""Issue 29, item 6: the choices at the terminal. A run of bids is one line ('bid 7–40: type bid
N'), each option says in one line what it does, labels are typed with any capitals, and `why` on
a name that is nothing in the game (a hex not on the board) says so."""
from __future__ import annotations

import io
import json
import random
import re

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.checks.lint_coverage import rules_of
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.play.terminal import as_listed, explain, option_lines, play_human

RANGE = re.compile(r"^(\w+) (-?\d+)–(-?\d+)(?: by (\d+))?: type \1 N")


def _expanded(game, lines) -> list:
    """The actions the listed lines stand for, a range line for each of its values."""
    out = []
    for text, action in lines:
        m = RANGE.match(text)
        if m:
            lo, hi, step = int(m.group(2)), int(m.group(3)), int(m.group(4) or 1)
            out += [f"{m.group(1)} {v}" for v in range(lo, hi + 1, step)]
            assert action.label == f"{m.group(1)} {lo}"       # its number takes the first
        else:
            assert text.startswith(action.label)
            out.append(action.label)
    return out


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_listed_lines_stand_for_every_choice_in_order_with_runs_folded(name):
    ruleset = load_ruleset(name)
    for seed in range(3):
        game = ruleset.new_game(ruleset.players_min, seed)
        rng = random.Random(seed)
        for _ in range(120):
            if game.is_over:
                break
            actions = game.legal_actions()
            lines = option_lines(game, actions)
            assert _expanded(game, lines) == [a.label for a in actions]
            runs = [t for t, _ in lines if RANGE.match(t)]
            assert len(lines) <= len(actions) - 3 * len(runs)    # each range saves 3 lines or more
            game.apply(rng.choice(actions))


def test_chicago_express_opening_bids_are_one_line():
    game = load_ruleset("chicago_express").new_game(3, 1)
    lines = [t for t, _ in option_lines(game, game.legal_actions())]
    assert lines[0].startswith("bid 7–40: type bid N") and len(lines) == 2


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_option_says_what_it_does(name):
    ruleset = load_ruleset(name)
    said = ruleset.meta["render"]["options"]
    assert {r["name"] for r in rules_of(ruleset) if r["kind"] == "option"} <= set(said)
    game = ruleset.new_game(ruleset.players_min, 1)
    first = option_lines(game, game.legal_actions())[0][0]
    assert first.endswith(f"— {said[game.legal_actions()[0].name]}")


def test_labels_are_typed_with_any_capitals(tmp_path):
    game = load_ruleset("chicago_express").new_game(3, 1)
    assert as_listed(game, "BID 8") == "bid 8" and as_listed(game, "Pass") == "pass"
    out = io.StringIO()
    seat = game.current_player
    play_human(game, seat, "random", 1, tmp_path / "g.save.json", inp=io.StringIO("BID 8\nQUIT\n"), out=out)
    history = json.loads((tmp_path / "g.save.json").read_text())["state"]["history"]
    assert history[0] == ["bid", 8] and "saved to" in out.getvalue()


def test_why_names_a_hex_that_is_not_on_the_board():
    game = load_ruleset("chicago_express").new_game(3, 2)
    rng = random.Random(3)
    while not any(a.name == "hex" for a in game.legal_actions()):
        game.apply(rng.choice(game.legal_actions()))
    assert explain(game, "hex ZZ") == "'hex ZZ' is not allowed: there is nothing named ZZ among the hexes"
    assert explain(game, "ZZ").endswith("and nothing in this game is named ZZ")
    assert "nothing in this game" not in explain(game, "R2")     # a hex: not a choice by itself
    far = explain(game, "hex a2")      # on the board, not reachable: the rule says why
    assert far.startswith("'hex A2' is not allowed: A2 is not one of the choices") and "network.rules:" in far
    legal = game.legal_actions()[0].label
    assert explain(game, legal.upper()) == f"'{legal}' is allowed now"
