"""Secret choices (``choose secretly by p in seats``): commitments in any order, refused twice,
kept secret from the other seats until the reveal, saved, undone and replayed exactly; and the
German Railways variant that uses them (sealed_auctions)."""
from __future__ import annotations

import itertools
import json
import random
import textwrap
from pathlib import Path

import pytest

from game_checks import conserved
from railrules.interpreter import BadSave, Game, IllegalAction, RulesetError, RulesRuntimeError, load_ruleset
from railrules.tools.play.replay import replay

RULESET_YAML = """\
name: sealed
title: sealed bids, for tests
players: {min: 1, max: 4}
rules:
  - main.rules
components: components.yaml
"""

COMPONENTS_YAML = """\
variables:
  winners: []
player:
  cash: 10
  pot: 0
kinds: {}
"""

# Three rounds of sealed bids among every player; the highest bid pays and scores; a tie goes
# to the first in seat order. A winner who bid 1 is asked (a plain choice inside the reveal)
# whether to keep the pot.
SEALED_RULES = """\
procedure auction():
    let bids = {q: 0 for q in players}
    choose secretly by p in players:
        option bid(x in range(1, p.cash + 1)):
            set bids[p] = x
            log "{p} bid {x}"
        option pass:
            log "{p} passes"
    let best = max([bids[q] for q in players])
    if best > 0:
        let w = first([q for q in players where bids[q] == best])
        set w.cash -= best
        set w.pot += 1
        add w to winners
        if best == 1:
            choose by w:
                option keep:
                    pass
                option give_back:
                    set w.pot -= 1

game:
    repeat 3 times:
        call auction()
    end_game "done"

score p = p.pot * 10 + p.cash
estimate p = p.pot * 10 + p.cash
"""


def write(root: Path, rules: str, components: str = COMPONENTS_YAML) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ruleset.yaml").write_text(RULESET_YAML, encoding="utf-8")
    (root / "components.yaml").write_text(components, encoding="utf-8")
    (root / "main.rules").write_text(textwrap.dedent(rules), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return load_ruleset(str(write(tmp_path_factory.mktemp("sealed"), SEALED_RULES)))


def commit_all(game, commits: dict, order) -> None:
    for seat in order:
        game.apply(commits[seat], player=seat)


# ---------------------------------------------------------------- who commits, in what order
def test_every_seat_of_the_round_decides_at_once(sealed):
    game = sealed.new_game(players=3, seed=1)
    assert game.deciding == ["p1", "p2", "p3"]
    assert game.current_player == "p1"   # the first still to commit: single-seat code works
    assert [a.label for a in game.legal_actions("p3")][:2] == ["bid 1", "bid 2"]
    game.apply("bid 7", player="p2")
    assert game.deciding == ["p1", "p3"]
    assert game.current_player == "p1"
    assert game.legal_actions("p2") == []   # committed: nothing more to choose
    game.apply("bid 2")                     # the current player, as ever
    assert game.deciding == ["p3"] and game.current_player == "p3"
    assert game.state["history"] == []      # nothing revealed yet
    game.apply("pass")
    assert game.state["history"] == [["bid", 2], ["bid", 7], ["pass"]]   # the list's order
    assert game.evaluate("p2.pot") == 1 and game.evaluate("p2.cash") == 3


def test_the_order_of_commitments_changes_nothing(sealed):
    commits = {"p1": "bid 4", "p2": "bid 6", "p3": "bid 6"}
    states = set()
    for order in itertools.permutations(["p1", "p2", "p3"]):
        game = sealed.new_game(players=3, seed=5)
        commit_all(game, commits, order)
        states.add((game.to_json(), game.digest()))
    assert len(states) == 1
    game = Game.from_json(sealed, states.pop()[0])
    assert game.evaluate("p2.pot == 1 and p3.pot == 0 and p2.cash == 4")   # a tie: seat order


def test_a_second_commitment_is_refused_and_changes_nothing(sealed):
    game = sealed.new_game(players=3, seed=1)
    game.apply("bid 3", player="p2")
    before = game.to_json()
    with pytest.raises(IllegalAction) as err:
        game.apply("bid 5", player="p2")
    d = err.value.diagnostics[0]
    assert d.code == "RR315"
    assert "Player 2 has already committed in this round of secret choices" in d.message
    assert d.pos.line == 3   # the `choose secretly` line
    assert game.to_json() == before
    with pytest.raises(IllegalAction) as err:   # not legal for the seat that commits
        game.apply("bid 11", player="p3")
    assert err.value.diagnostics[0].code == "RR301" and "11 is not one of the choices" in err.value.diagnostics[0].message
    with pytest.raises(IllegalAction):
        game.apply("bid 1", player="p9")


def test_a_seat_outside_a_round_commits_nothing(sealed):
    game = sealed.new_game(players=2, seed=1)
    commit_all(game, {"p1": "bid 1", "p2": "pass"}, ["p1", "p2"])
    assert game.deciding == ["p1"] and game.current_player == "p1"   # keep or give back
    assert game.legal_actions("p2") == []
    with pytest.raises(IllegalAction) as err:
        game.apply("keep", player="p2")
    assert "not Player 2's choice now" in err.value.diagnostics[0].message


# ---------------------------------------------------------------- what each seat sees
def test_views_and_logs_show_that_a_seat_committed_not_what(sealed):
    game = sealed.new_game(players=3, seed=1)
    game.apply("bid 7", player="p2")
    for seat in ("p1", "p3", None):
        view = game.view(seat)
        assert view["committed"] == {"p2": "hidden"}
        assert view["deciding"] == ["p1", "p3"]
        assert '"bid", 7' not in json.dumps(view) and "bid 7" not in json.dumps(view)
        log = game.messages_for(seat)
        assert log == ["Player 2 commits"]
    assert "bid 7" not in "\n".join(game.messages)           # the whole log too, until the reveal
    assert game.view("p2")["committed"] == {"p2": ["bid", 7]}
    assert game.messages_for("p2") == ["Player 2 commits: bid 7"]
    game.apply("bid 3", player="p3")
    game.apply("pass", player="p1")
    assert game.view("p1")["committed"] == {}   # the next round: nobody has committed yet
    assert "Player 2 reveals: bid 7" in game.messages_for("p1")
    assert game.messages_for("p1")[:3] == ["Player 2 commits", "Player 3 commits", "Player 1 commits: pass"]


def test_a_view_outside_a_round_is_as_before(sealed, tmp_path):
    plain = load_ruleset(str(write(tmp_path / "plain", SEALED_RULES.replace(
        "choose secretly by p in players:", "choose by players[0]:").replace("{p}", "{players[0]}")
        .replace("p.cash", "players[0].cash").replace("bids[p]", "bids[players[0]]"))))
    view = plain.new_game(players=2, seed=1).view("p1")
    assert "committed" not in view and "deciding" not in view


# ---------------------------------------------------------------- saves, undo, replay
def test_a_save_in_the_middle_of_a_round_round_trips(sealed):
    game = sealed.new_game(players=3, seed=2)
    game.apply("bid 4", player="p3")
    text = game.to_json()
    assert '"commits":{"p3":["bid",4]}' in text   # the full save keeps the commitment
    loaded = Game.from_json(sealed, text)
    assert loaded.to_json() == text
    assert loaded.deciding == ["p1", "p2"] and loaded.legal_actions("p3") == []
    for g in (game, loaded):
        commit_all(g, {"p1": "bid 4", "p2": "pass"}, ["p2", "p1"])
    assert loaded.to_json() == game.to_json()


@pytest.mark.parametrize("damage", [
    lambda r: r["commits"].update({"p9": ["bid", 1]}),
    lambda r: r.update(seats=["p1", "p1", "p2"]),
    lambda r: r["commits"].update({"p1": ["bid", 1]}),   # then p1 is not the one asked
    lambda r: r.pop("at"),
])
def test_a_damaged_round_in_a_save_is_refused(sealed, damage):
    game = sealed.new_game(players=3, seed=2)
    game.apply("bid 4", player="p3")
    data = json.loads(game.to_json())
    frame = data["stack"][-1]["locals"]
    damage(next(v for k, v in frame.items() if k.startswith("$secret")))
    with pytest.raises(BadSave) as err:
        Game.from_json(sealed, json.dumps(data))
    assert err.value.diagnostics[0].code == "RR304"
    assert "round of secret choices" in err.value.diagnostics[0].message


def test_undo_takes_back_one_commitment(sealed):
    game = sealed.new_game(players=3, seed=3)
    states = [game.to_json()]
    for seat, label in (("p3", "bid 2"), ("p1", "pass"), ("p2", "bid 5")):   # the last reveals
        game.apply(label, player=seat)
        states.append(game.to_json())
    assert game.state["history"]
    for expected in reversed(states[:-1]):
        game.undo()
        assert game.to_json() == expected
    assert game.deciding == ["p1", "p2", "p3"]


def test_a_log_replays_whole_games_and_open_rounds(sealed):
    rng = random.Random(4)
    game = sealed.new_game(players=3, seed=4)
    logs = []
    while not game.is_over:
        seat = rng.choice(game.deciding)
        game.apply(rng.choice(game.legal_actions(seat)), player=seat)
        logs.append((game.log(), game.digest()))
    for log, digest in logs:
        again, _ = replay(json.loads(json.dumps(log)))
        assert again.digest() == digest
    assert any("committed" in log for log, _ in logs)


def test_a_save_in_a_round_loaded_into_rules_without_secret_choices_says_so():
    variant = load_ruleset("german_railways", "sealed_auctions")
    game = variant.new_game(players=3, seed=1)
    for label in ["pass", "pass", "pass", "pass", "bid 1", "pass"] + ["pass"] * 18 \
            + ["abstain"] * 4 + ["auction BHEG"]:
        game.apply(label)
    game.apply("bid 2", player="p3")
    with pytest.raises(BadSave) as err:
        Game.from_json(load_ruleset("german_railways"), game.to_json())
    message = err.value.diagnostics[0].message
    assert err.value.diagnostics[0].code == "RR304"
    assert "paused in a round of secret choices (1 of 3 seats committed)" in message
    assert "variant sealed_auctions" in message


# ---------------------------------------------------------------- the language
def test_use_in_a_secret_choice_is_refused(tmp_path):
    rules = SEALED_RULES.replace("        option pass:\n", "        use give\n        option pass:\n") \
        + "\naction give by q:\n    pass\n"
    with pytest.raises(RulesetError) as err:
        load_ruleset(str(write(tmp_path, rules)))
    d = next(d for d in err.value.diagnostics if d.code == "RR105")
    assert "'use give' in a secret choice" in d.message and d.pos.line == 7


@pytest.mark.parametrize("seats, words", [
    ("[1, 2]", "1 is not a player"),
    ("[players[0], players[0]]", "is in the list twice"),
])
def test_the_seats_of_a_secret_choice_are_players_once_each(tmp_path, seats, words):
    rules = SEALED_RULES.replace("choose secretly by p in players:", f"choose secretly by p in {seats}:")
    ruleset = load_ruleset(str(write(tmp_path, rules)))
    with pytest.raises(RulesRuntimeError) as err:
        ruleset.new_game(players=2, seed=1)
    assert err.value.diagnostics[0].code == "RR302" and words in err.value.diagnostics[0].message


def test_no_seat_commits_nothing_and_goes_on(tmp_path):
    rules = SEALED_RULES.replace("choose secretly by p in players:", "choose secretly by p in []:")
    game = load_ruleset(str(write(tmp_path, rules))).new_game(players=2, seed=1)
    assert game.is_over and game.result["scores"] == {"p1": 10, "p2": 10}


def test_a_choice_inside_the_reveal_pauses_and_saves(sealed):
    game = sealed.new_game(players=2, seed=1)
    commit_all(game, {"p1": "bid 1", "p2": "pass"}, ["p2", "p1"])
    assert [a.label for a in game.legal_actions()] == ["keep", "give_back"]
    loaded = Game.from_json(sealed, game.to_json())
    for g in (game, loaded):
        g.apply("give_back")
    assert loaded.to_json() == game.to_json()
    assert game.evaluate("p1.pot == 0 and p1.cash == 9") and game.deciding == ["p1", "p2"]


# ---------------------------------------------------------------- the German Railways variant
def test_random_games_of_sealed_auctions_conserve_end_and_replay():
    ruleset = load_ruleset("german_railways", "sealed_auctions")
    rounds = 0
    for seed in range(6):
        rng = random.Random(seed)
        game = ruleset.new_game(players=3 + seed % 3, seed=seed)
        start = conserved(ruleset, game)
        while not game.is_over:
            seats = game.deciding
            rounds += len(seats) > 1
            seat = rng.choice(seats)
            game.apply(rng.choice(game.legal_actions(seat)), player=seat)
            assert conserved(ruleset, game) == start, f"seed {seed}: not conserved"
        assert game.result["reasons"]
        again, _ = replay(json.loads(json.dumps(game.log())))
        assert again.to_json() == game.to_json()
    assert rounds > 10   # rounds of sealed bids were played, not only the opening auctions


# ---------------------------------------------------------------- bots and the terminal
@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=24", "mcts:iterations=4:ties=1:playout=greedy:depth=8"])
def test_bots_decide_on_what_their_seat_knows(sealed, spec):
    """Two games that differ only in another seat's pending commitment: the bot of p3 (same
    seed) chooses the same in both; it does not peek."""
    from railrules.tools.bots.players import seat_bots
    chosen = set()
    for other in ("bid 1", "bid 9"):
        game = sealed.new_game(players=3, seed=1)
        game.apply(other, player="p1")
        game.apply("pass", player="p2")
        bot = seat_bots(spec, game.players, 7)["p3"]
        chosen.add(bot.choose(game))
    assert len(chosen) == 1


def test_the_terminal_shows_the_others_commitments_as_committed(sealed, tmp_path):
    import io

    from railrules.tools.play.terminal import play_human
    game = sealed.new_game(players=3, seed=1)
    out = io.StringIO()
    play_human(game, "p2", "random", 3, tmp_path / "save.json", inp=io.StringIO("bid 4\n" * 3 + "keep\n" * 3), out=out)
    text = out.getvalue()
    before = text[:text.index("reveals")]
    assert "Player 1: commits" in before and "Player 3: commits" in before
    assert "Player 1: bid" not in before and "Player 3: bid" not in before
    assert "Player 2 commits: bid 4" in before   # the seat reads its own
    assert "Player 2 reveals: bid 4" in text


def test_serve_each_person_commits_on_their_own_page(sealed, tmp_path):
    from railrules.tools.play.table import Refused, Table
    t = Table(sealed.new_game(players=3, seed=1), ["p1", "p2"], "random", 1, tmp_path / "g.json", delay=0)
    assert [o["label"] for o in t.state("p2")["options"]][:1] == ["bid 1"]
    t.act("p2", "bid 7", t.version)                      # before p1, the current player
    with pytest.raises(Refused) as err:
        t.act("p2", "bid 8", t.version)
    assert "already committed" in err.value.message
    for page in ("p1", None):                             # p1's page, and the table's (p1 to move)
        state = t.state(page)
        assert "Player 2 commits" in state["log"]
        assert "bid 7" not in json.dumps({k: v for k, v in state.items() if k != "options"})  # (p1 may bid 7)
    assert "Player 2 commits: bid 7" in json.dumps(t.state("p2"))
    t.act("p1", "pass", t.version)
    done = t.step(t.version)                              # the bot of p3 commits: the round reveals
    assert done["done"] == "commits" and t.last["label"] == "commits"
    assert "Player 2 reveals: bid 7" in json.dumps(t.state("p1"))


def test_the_parallel_env_steps_a_round_of_secret_choices_at_once(sealed):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test

    from railrules.tools.agents.pettingzoo_env import RulesParallelEnv
    env = RulesParallelEnv(sealed, 3)
    obs, infos = env.reset(seed=1)
    assert infos["player_0"]["deciding"] == ["player_0", "player_1", "player_2"]
    assert all(obs[a]["action_mask"].sum() == 11 for a in env.agents)   # bid 1..10, pass
    labels = env.labels
    want = {"player_0": "bid 2", "player_1": "bid 5", "player_2": "pass"}
    obs, rewards, done, truncated, infos = env.step({a: labels.index(x) for a, x in want.items()})
    assert env.game.state["history"] == [["bid", 2], ["bid", 5], ["pass"]]
    assert env.game.evaluate("p2.pot == 1")
    parallel_api_test(RulesParallelEnv(sealed, 3), num_cycles=40)


def test_a_save_in_a_round_made_before_the_rules_changed_keeps_its_commitments(tmp_path):
    from railrules.interpreter.saves import load_save, save_text
    root = write(tmp_path / "sealed", SEALED_RULES)
    game = load_ruleset(str(root)).new_game(players=3, seed=2)
    game.apply("bid 4", player="p3")
    saved = tmp_path / "g.save.json"
    saved.write_text(save_text(game, replayable=True), encoding="utf-8")
    write(root, SEALED_RULES.replace('log "{p} passes"', 'log "{p} declines"'))
    told: list[str] = []
    loaded = load_save(saved, tell=told.append)
    assert "the game is the same as the save's" in told[0]
    assert loaded.deciding == ["p1", "p2"] and loaded.legal_actions("p3") == []
    commit_all(loaded, {"p1": "bid 5", "p2": "pass"}, ["p1", "p2"])
    assert loaded.state["entities"]["p1"]["pot"] == 1
