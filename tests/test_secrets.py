"""A secret never leaves its seat: lint's information-flow check (RR116) refuses a leak at its
line, naming the secret field and the way it went, and the engine hides what lint refuses
(engine/secrecy.py), whatever the rules wrote.

``tests/secret_leaks`` is a small game that gives each player's secret objective away once on
every surface another seat reads; the lint corpus (``secret_*`` cases) has more, and the
cases where the owner alone reads a secret, which are not leaks.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from railrules.interpreter import check_ruleset, load_ruleset
from railrules.interpreter.data.ruleset import Ruleset
from railrules.interpreter.paths import shipped_rulesets

LEAKY = Path(__file__).resolve().parent / "secret_leaks"

# (file, line, column, the sink as the message names it, the way it went): one per surface
PLANTED = [
    ("rules/game.rules", 9, 5, "this log line prints secret field players.objective of p", ""),
    ("rules/game.rules", 11, 5, "this log line prints secret field players.objective of p",
     " via def card_text (secret_leaks/rules/game.rules:3) via local shown"),
    ("rules/game.rules", 13, 5, "this log line prints secret field players.objective of p",
     " via def card_text (secret_leaks/rules/game.rules:3)"),
    ("rules/game.rules", 14, 5, "this require's message (a fault every seat reads) prints "
     "secret field players.objective of p", ""),
    ("rules/game.rules", 15, 5, "this sets a public variable 'last_objective' (every seat's view shows it) "
     "from secret field players.objective of p", ""),
    ("rules/game.rules", 20, 27, "this option's label (every seat reads it once chosen) shows "
     "secret field players.objective", ""),
    ("rules/game.rules", 23, 13, "this option's legality reason (why shows it) prints "
     "secret field players.objective", ""),
    ("rules/game.rules", 36, 5, "this end reason prints secret field players.objective", ""),
    ("rules/game.rules", 40, 1, "this metric reports secret field players.objective", ""),
    ("ruleset.yaml", 16, 10, "this cost (play shows it beside the option) shows secret field players.objective", ""),
    ("ruleset.yaml", 20, 53, "this render expression draws secret field players.objective of e", ""),
]


@pytest.fixture(scope="module")
def leaky() -> Ruleset:
    return load_ruleset(str(LEAKY))


def _leaks(root) -> list:
    _, diags = check_ruleset(str(root))
    return sorted((Path(d.pos.file).resolve().relative_to(Path(root).resolve()).as_posix(),
                   d.pos.line, d.pos.column, d.message) for d in diags if d.code == "RR116")


# ------------------------------------------------------------------ lint
def test_every_planted_leak_is_refused_at_its_line_with_its_way():
    assert _leaks(LEAKY) == sorted((f, line, col, sink + way) for f, line, col, sink, way in PLANTED)


def test_a_leak_through_a_procedure_s_parameter_is_reported_where_it_is_printed(tmp_path):
    root = tmp_path / "leaks"
    shutil.copytree(LEAKY, root)
    rules = root / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + (
        "\nprocedure tell(x):\n"
        "    cite \"Leaks Rulebook, Turn.\"\n"
        "    log \"told {x}\"\n"
        "\non told(q):\n"
        "    cite \"Leaks Rulebook, Turn.\"\n"
        "    call tell([q.objective])\n"), encoding="utf-8")
    told = [leak for leak in _leaks(root) if leak[1] == 44]
    assert told == [("rules/game.rules", 44, 5, "this log line prints secret field players.objective of q "
                     "via parameter x of procedure tell (leaks/rules/game.rules:42)")]


def test_what_the_owner_alone_reads_is_no_leak(tmp_path):
    """The leaks written as the rules allow: a line that says it reveals the field, the
    chooser's own card in their options and reasons, a choice once made."""
    root = tmp_path / "owned"
    shutil.copytree(LEAKY, root)
    (root / "ruleset.yaml").write_text(
        (root / "ruleset.yaml").read_text(encoding="utf-8").split("costs:")[0], encoding="utf-8")
    (root / "rules" / "game.rules").write_text('''\
def card_text(q) = "objective card {q.objective}"

procedure deal(p):
    cite "Leaks Rulebook, Setup: each player draws an objective card and keeps it secret."
    draw card from [3, 5, 7]
    set p.objective = card
    log "{p} draws objective card {p.objective}" reveals p.objective
    let shown = card_text(p)
    log "{p} holds {shown}" reveals p.objective

procedure turn(p):
    cite "Leaks Rulebook, Turn: play a card up to your objective, or keep your cards."
    choose by p:
        option play(x in range(1, p.objective + 1)):
            require x <= p.objective else "{p} holds only {p.objective}"
            log "{p} plays {x}"
            set p.guesses += x
        option keep:
            log "{p} keeps {card_text(p)}" reveals p.objective

game:
    cite "Leaks Rulebook, Setup and rounds."
    for p in players:
        call deal(p)
    while round < rounds:
        set round += 1
        for p in players:
            call turn(p)
    end_game "the last round is over"

score p = p.guesses + p.objective
''', encoding="utf-8")
    assert _leaks(root) == []


@pytest.mark.parametrize("name", shipped_rulesets())
def test_no_shipped_game_or_variant_is_flagged(name):
    ruleset, diags = check_ruleset(name)
    flagged = [str(d) for d in diags if d.code == "RR116"]
    for variant in ruleset.variants():
        flagged += [str(d) for d in check_ruleset(name, variant)[1] if d.code == "RR116"]
    assert flagged == []


# ------------------------------------------------------------------ the engine
def test_a_seat_s_log_hides_the_values_another_seat_s_secret_gave(leaky):
    game = leaky.new_game(2, 1)
    p1, p2 = game.players
    card = {p: game.state["entities"][p]["objective"] for p in game.players}
    assert f"Player 2 draws objective card {card[p2]}" in game.messages   # the whole log
    mine, theirs = game.messages_for(p1), game.messages_for(p2)
    assert f"Player 1 draws objective card {card[p1]}" in mine
    assert "Player 2 draws objective card hidden" in mine
    assert "Player 2 holds hidden" in mine                  # through a def and a local
    assert f"Player 2 holds objective card {card[p2]}" in theirs
    assert mine.count("hidden") == 1                        # `log card_text(p)`: the whole line
    assert f"Player 2 looks at {card[p2]}" not in mine      # reveals: the owner's line alone
    onlooker = game.messages_for(None)
    assert not any(str(c) in line for line in onlooker for c in card.values())


def test_a_view_hides_a_public_variable_set_from_a_secret(leaky):
    game = leaky.new_game(2, 1)
    assert game.state["globals"]["last_objective"] != "hidden"
    for seat in (*game.players, None):
        view = game.view(seat)
        assert view["globals"]["last_objective"] == "hidden"
        assert all(r["objective"] == "hidden" for e, r in view["entities"].items()
                   if r.get("kind") == "players" and e != seat)


def test_the_label_of_an_option_that_shows_another_seat_s_secret_is_hidden_from_the_others(leaky):
    game = leaky.new_game(2, 1)
    mover, other = game.current_player, [p for p in game.players if p != game.current_player][0]
    guess = next(a for a in game.legal_actions() if a.name == "guess")
    assert game.label_for(guess, mover, mover) == guess.label
    assert game.label_for(guess, mover, other) == "guess hidden"
    keep = next(a for a in game.legal_actions() if a.name == "keep")
    assert game.label_for(keep, mover, other) == "keep"


def test_an_end_reason_built_from_a_secret_reads_hidden(leaky):
    game = leaky.new_game(2, 1)
    while not game.is_over:
        game.apply(next(a for a in game.legal_actions() if a.name == "keep"))
    best = max(game.state["entities"][p]["objective"] for p in game.players)
    assert game.result["reasons"] == [f"the best objective was {best}"]   # the lab's record
    for seat in (*game.players, None):
        assert game.view(seat)["result"]["reasons"] == ["hidden"]
        assert game.messages_for(seat)[-1] == "game over (hidden)"
    assert game.messages[-1] == f"game over (the best objective was {best})"


def test_render_and_costs_that_read_a_secret_are_not_drawn(leaky):
    from railrules.tools.pictures.board_model import board_model
    from railrules.tools.play.table import option_cost
    game = leaky.new_game(2, 1)
    assert [d.title for d in board_model(game).displays] == []
    keep = next(a for a in game.legal_actions() if a.name == "keep")
    assert option_cost(game, keep) == "  costs hidden"


def test_a_ruleset_that_leaks_nothing_logs_no_secret_value():
    """Stephenson's Rocket: the secrecy check finds nothing, so the engine hides nothing more."""
    ruleset = load_ruleset("stephensons_rocket")
    assert ruleset.secrecy == {"logs": {}, "labels": set(), "state": set(), "ends": set(), "yaml": set()}


def test_play_at_a_seat_shows_no_other_seat_s_secret(tmp_path):
    """Through the terminal: seat 1 reads its own card, and 'hidden' for seat 2's."""
    game = load_ruleset(str(LEAKY)).new_game(2, 3)
    theirs = game.state["entities"][game.players[1]]["objective"]
    done = subprocess.run(
        [sys.executable, "-m", "railrules.tools.cli", "play", str(LEAKY), "--players", "2", "--seed", "3",
         "--seat", "1", "--bots", "random", "--save", str(tmp_path / "save.json")],
        input="keep\nkeep\nkeep\nquit\n", capture_output=True, text=True, timeout=120, cwd=tmp_path)
    out = done.stdout
    assert "Player 2 draws objective card hidden" in out
    assert f"Player 2 draws objective card {theirs}" not in out
    assert "last_objective=hidden" in out
    assert "hidden: the game ends (after" in out                 # the end reason read a secret
    assert all(line.endswith("hidden") for line in out.splitlines() if line.startswith("Player 2: guess"))


def test_an_agent_s_observation_hides_a_public_variable_set_from_a_secret(leaky):
    from railrules.tools.common.encoding import encoding
    enc = encoding(leaky, 2)
    game = leaky.new_game(2, 1)
    where = next(s for s in enc.slices() if s.name.endswith("last_objective"))
    for seat in game.players:
        assert enc.observe(game, seat)[where.start:where.stop] == [-1.0]


def test_the_rules_of_the_game_s_end_may_show_every_secret():
    """tests/end_rules shows each secret objective card in `on game_end`: no leak, the game is over."""
    end_rules = Path(__file__).resolve().parent / "end_rules"
    assert load_ruleset(str(end_rules)).meta.get("secret"), "this test needs a ruleset with secrets"
    assert _leaks(end_rules) == []
