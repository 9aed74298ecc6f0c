"""Bots: the ruleset's estimate, bot specs, greedy and MCTS choices, and that a bot
decides only on what its seat may see."""
from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RulesetError, RulesRuntimeError
from railrules.interpreter.paths import rulesets_dir
from railrules.interpreter.runtime.rationals import Fraction
from railrules.tools.bots.players import BotSpecError, GreedyBot, make_bot, seat_bots
from railrules.tools.cli import main
from railrules.tools.bots.search import imagine, standings


def _coin_race(tmp_path, estimate: str | None = "estimate p = p.cash", extra: str = ""):
    """The coin race template (take 1-3 coins, first to the goal wins), with an estimate."""
    root = tmp_path / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    rules = root / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + (f"\n{estimate}\n" if estimate else "") + extra,
                     encoding="utf-8")
    return root


def _mid_game(name, players, decisions, seed=1):
    game = load_ruleset(name).new_game(players, seed)
    rng = random.Random(seed)
    while game.decisions < decisions and not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


# ------------------------------------------------------------------ estimate
@pytest.mark.parametrize("name", ["chicago_express", "german_railways", "stephensons_rocket"])
def test_every_shipped_ruleset_has_an_estimate_that_is_a_number(name):
    game = _mid_game(name, 3, 60)
    for p in game.players:
        value = game.estimate(p)
        assert isinstance(value, (int, Fraction)) and not isinstance(value, bool)
        assert value >= game.state["entities"][p]["cash"]  # cash plus what holdings will bring


@pytest.mark.parametrize("name", ["chicago_express", "german_railways", "stephensons_rocket", "baltimore_ohio"])
def test_the_estimates_of_all_seats_are_each_seats_estimate(name):
    """One pass over the seats (Game.estimates) gives what each seat's estimate alone gives, on
    the game and on a clone, and keeps nothing once it is done."""
    game = _mid_game(name, 3, 60)
    for g in (game, game.clone()):
        assert g.estimates() == {p: g.estimate(p) for p in g.players}
        assert g.estimates(g.players[1:]) == {p: g.estimate(p) for p in g.players[1:]}
        assert g.machine.memo is None


def test_a_derived_value_the_estimates_read_is_worked_out_once_a_pass(tmp_path, monkeypatch):
    """A derived value read by every seat's estimate is computed once for all of them, afresh
    on the next pass (an action may have changed what it read), by its def's typed function
    (the one the fast code calls: nothing is noted in a pass)."""
    from railrules.interpreter.engine.machine import Machine
    ruleset = load_ruleset(str(_coin_race(tmp_path, "estimate p = p.cash * 100 // max(1, total())",
                                          "derived total() = sum([q.cash for q in players])\n")))
    game = ruleset.new_game(3, 1)
    computed = []
    untracked = Machine._untracked
    monkeypatch.setattr(Machine, "_untracked", lambda run, key, args, typed=None:
                        computed.append((key, typed is not None)) or untracked(run, key, args, typed))
    for _ in range(4):
        cash = {p: game.state["entities"][p]["cash"] for p in game.players}
        assert game.estimates() == {p: cash[p] * 100 // max(1, sum(cash.values())) for p in game.players}
        game.apply(game.legal_actions()[-1])
    assert computed == [("total", True)] * 4


def test_an_estimate_asked_for_no_player_says_so(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(2, 1)
    with pytest.raises(RulesRuntimeError) as err:
        game.estimate("p3")
    d = err.value.diagnostics[0]
    assert d.code == "RR302" and "p3 is not a player" in d.message and d.pos.file.endswith("game.rules")


def test_estimate_is_none_without_one_and_the_score_once_over(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, None))).new_game(2, 1)
    assert game.estimate("p1") is None
    rng = random.Random(1)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert [game.estimate(p) for p in game.players] == [game.result["scores"][p] for p in game.players]


def test_a_failing_estimate_says_where(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, "estimate p = p.cash // 0"))).new_game(2, 1)
    with pytest.raises(RulesRuntimeError) as err:
        game.estimate("p1")
    d = err.value.diagnostics[0]
    assert d.code == "RR302" and d.pos.line > 1 and d.pos.file.endswith("game.rules")


def test_two_estimates_are_refused(tmp_path):
    root = _coin_race(tmp_path, "estimate p = p.cash\nestimate q = 0")
    with pytest.raises(RulesetError) as err:
        load_ruleset(str(root))
    assert "RR103" in {d.code for d in err.value.diagnostics}


def test_estimate_is_a_keyword(tmp_path):
    root = _coin_race(tmp_path, "def estimate(x) = x")
    with pytest.raises(RulesetError):
        load_ruleset(str(root))


def test_standings_rank_the_seats_by_estimate(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(3, 1)
    game.execute("set p1.cash = 5")
    game.execute("set p2.cash = 2")
    game.execute("set p3.cash = 2")
    assert standings(game) == {"p1": 1.0, "p2": 0.25, "p3": 0.25}


# ------------------------------------------------------------------ specs
@pytest.mark.parametrize("spec, words", [
    ("clever", "no bot 'clever'"), ("mcts:foo=1", "no setting 'foo=1'"),
    ("mcts:iterations=many", "iterations must be a int"), ("mcts:iterations=0", "at least 1"),
    ("greedy:playouts", "no setting 'playouts'"), ("random:seconds=1", "its settings: none"),
])
def test_a_wrong_bot_spec_says_what_is_wrong(spec, words):
    with pytest.raises(BotSpecError, match=words):
        make_bot(spec, 1)


def test_specs_give_settings_and_one_bot_per_seat():
    bot = make_bot("mcts:iterations=7:depth=0:explore=1.5", 1)
    assert (bot.search.iterations, bot.search.depth, bot.search.explore) == (7, 0, 1.5)
    seats = seat_bots("greedy,random", ["p1", "p2"], 5)
    assert isinstance(seats["p1"], GreedyBot) and type(seats["p2"]).__name__ == "RandomBot"
    one = seat_bots("random", ["p1", "p2"], 5)
    assert one["p1"] is one["p2"]
    with pytest.raises(BotSpecError, match="3 bots for 2 seats"):
        seat_bots("random,random,random", ["p1", "p2"], 5)


def test_the_command_refuses_a_wrong_spec_without_a_traceback(capsys):
    with pytest.raises(SystemExit) as stop:  # argparse: usage, then the message
        main(["simulate", "chicago_express", "--bots", "mcts:turbo=1", "--games", "1"])
    assert stop.value.code == 2 and "no setting 'turbo=1'" in capsys.readouterr().err
    assert main(["simulate", "chicago_express", "--bots", "random,random", "--games", "1",
                 "--players", "3"]) == 2
    assert "2 bots for 3 seats" in capsys.readouterr().err


# ------------------------------------------------------------------ choices
def test_greedy_takes_the_action_its_estimate_rates_best(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(2, 1)
    assert make_bot("greedy", 1).choose(game).label == "take 3"
    game.execute("set p1.cash = 8")  # 2 reach the goal of 10 and win: better than any other
    assert make_bot("greedy", 1).choose(game).label == "take 2"


def test_greedy_without_an_estimate_plays_the_actions_out(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, None))).new_game(2, 1)
    game.execute("set p1.cash = 7")  # taking 3 wins at once; anything else lets p2 play on
    assert make_bot("greedy", 1).choose(game).label == "take 3"


def test_mcts_beats_random_players_at_the_coin_race(tmp_path):
    ruleset = load_ruleset(str(_coin_race(tmp_path, extra="")))
    wins = 0
    for i in range(12):
        game = ruleset.new_game(2, i)
        seat = game.players[i % 2]
        bots = {p: make_bot("mcts:iterations=60" if p == seat else "random", 100 + i) for p in game.players}
        while not game.is_over:
            game.apply(bots[game.current_player].choose(game))
        wins += seat in game.result["winners"]
    assert wins >= 10


def test_same_seed_same_choice():
    game = _mid_game("chicago_express", 3, 30)
    picks = {make_bot("mcts:iterations=30", 9).choose(game) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(game.legal_actions())


# ------------------------------------------------------------------ what a bot may see
def _with_other_cash(game, seat, amount):
    """The same game with every other player's (secret) cash set to ``amount``."""
    other = game.clone()
    ents = other.state["entities"]
    for p in other.players:
        if p != seat:
            ents[p] = {**ents[p], "cash": amount}
    return other


def test_an_imagined_game_does_not_depend_on_what_the_seat_cannot_see():
    game = _mid_game("stephensons_rocket", 3, 40)
    seat = game.current_player
    rich, poor = _with_other_cash(game, seat, 90000), _with_other_cash(game, seat, 0)
    assert rich.view(seat) == poor.view(seat)
    a = imagine(rich, seat, random.Random(3))
    b = imagine(poor, seat, random.Random(3))
    assert json.dumps(a.state, sort_keys=True) == json.dumps(b.state, sort_keys=True)
    assert a.state["rng"] != rich.state["rng"]  # the future of chance is drawn afresh
    assert a.state["entities"][seat]["cash"] == game.state["entities"][seat]["cash"]
    assert rich.state["entities"][game.players[(game.players.index(seat) + 1) % 3]]["cash"] == 90000


def _secret_coin_race(tmp_path, guess: str = ""):
    """The coin race with each player's cash secret (the bank's is public: the coins taken)."""
    root = _coin_race(tmp_path)
    meta = root / "ruleset.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + "secret: {players: [cash]}\n" + guess,
                    encoding="utf-8")
    return load_ruleset(str(root))


def test_a_derived_value_over_a_secret_field_no_rule_writes_follows_the_imagined_draw(tmp_path):
    """A derived value notes no read of a field nothing writes; a secret one the imagined copies
    draw afresh, so its reads are noted (else a copy would give the truth's kept value)."""
    root = _coin_race(tmp_path, extra="\nderived held() = sum([p.hand for p in players])\n")
    comps = root / "components.yaml"
    comps.write_text(comps.read_text(encoding="utf-8").replace("  cash: 0\n", "  cash: 0\n  hand: 3\n"),
                     encoding="utf-8")
    meta = root / "ruleset.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + "secret: {players: [hand]}\n", encoding="utf-8")
    game = load_ruleset(str(root)).new_game(3, 1)
    assert game.evaluate("held()") == 9   # now kept
    rng = random.Random(3)
    sums = set()
    for _ in range(20):
        world = imagine(game, "p1", rng)
        drawn = sum(world.state["entities"][p]["hand"] for p in world.players)
        assert world.evaluate("held()") == drawn
        world.check_derived()
        sums.add(drawn)
    assert len(sums) > 1   # the draws differed, so a kept truth would have shown


def _sampled(game, seat, draws=30):
    """``draws`` imagined copies of ``game`` for ``seat``; each shows the seat its own view."""
    rng = random.Random(7)
    worlds = [imagine(game, seat, rng) for _ in range(draws)]
    for world in worlds:
        assert world.view(seat) == game.view(seat)
        assert world.current_player != seat or world.legal_actions() == game.legal_actions()
    return [{p: w.state["entities"][p]["cash"] for p in game.players if p != seat} for w in worlds]


@pytest.mark.parametrize("decisions", [40, 150, 400])
def test_a_sampled_world_never_contradicts_the_seats_view(decisions):
    game = _mid_game("stephensons_rocket", 3, decisions, seed=decisions)
    for seat in game.players:
        own = game.state["entities"][seat]["cash"]
        draws = _sampled(game, seat)
        # the documented prior: a whole number from 0 to twice what the seat knows (its own)
        assert all(0 <= v <= 2 * own for d in draws for v in d.values())
        assert own == 0 or len({v for d in draws for v in d.values()}) > 1


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=6))
def test_the_point_guess_is_the_mean_of_the_values_seen_rounded_down(known):
    import fractions   # the reference: the exact mean, then rounded down
    from railrules.tools.bots.search import _point
    mean = fractions.Fraction(sum(known), len(known))
    guess = _point(None, "players", "p2", "cash", known)   # a game is read only when nothing is seen
    assert guess == math.floor(mean) and type(guess) is int
    halves = [fractions.Fraction(v, 2) for v in known]     # not all whole: the exact mean
    if any(v % 2 for v in known):
        assert _point(None, "players", "p2", "cash", halves) == mean / 2


def test_hidden_cash_shares_the_public_total_the_ruleset_declares(tmp_path):
    ruleset = _secret_coin_race(tmp_path, 'guess: {players: {cash: {total: "0 - bank.cash", high: "goal - 1"}}}\n')
    rng = random.Random(2)
    for seed in range(5):
        game = ruleset.new_game(4, seed)
        while game.decisions < 9 and not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        taken = -game.state["entities"]["bank"]["cash"]
        for seat in game.players:
            own = game.state["entities"][seat]["cash"]
            draws = _sampled(game, seat)
            assert all(sum(d.values()) == taken - own and min(d.values()) >= 0
                       and max(d.values()) < 10 for d in draws)
            assert len({tuple(d.values()) for d in draws}) > 1


def test_every_split_of_a_public_total_is_equally_likely(tmp_path):
    from itertools import product

    from scipy.stats import chisquare
    ruleset = _secret_coin_race(tmp_path, 'guess: {players: {cash: {total: "0 - bank.cash", low: 1}}}\n')
    game = ruleset.new_game(4, 1)
    for label in ("take 3", "take 2", "take 3", "take 1", "take 3"):  # p1 holds 6, 12 taken
        game.apply(label)
    assert game.current_player == "p2"
    rng = random.Random(5)
    counts: dict = {}
    for _ in range(1500):
        world = imagine(game, "p2", rng).state["entities"]
        split = tuple(world[p]["cash"] for p in ("p1", "p3", "p4"))
        counts[split] = counts.get(split, 0) + 1
    # p2 holds 2 of the 12 taken: the others share 10, at least 1 each
    splits = [s for s in product(range(1, 9), repeat=3) if sum(s) == 10]
    assert set(counts) == set(splits)
    assert chisquare([counts[s] for s in splits]).pvalue > 0.001


def test_mcts_plays_on_sampled_worlds_to_the_end(tmp_path):
    ruleset = _secret_coin_race(tmp_path, 'guess: {players: {cash: {total: "0 - bank.cash", high: "goal - 1"}}}\n')
    for seed in range(2):
        game = ruleset.new_game(3, seed)
        bots = seat_bots("mcts:iterations=15,greedy,random", game.players, seed)
        while not game.is_over:
            game.apply(bots[game.current_player].choose(game))
        assert game.result["winners"]


def test_a_guess_that_is_no_rules_expression_says_where(tmp_path):
    ruleset = _secret_coin_race(tmp_path, 'guess: {players: {cash: {high: "bank.cash +"}}}\n')
    game = ruleset.new_game(2, 1)
    game.apply("take 3")
    with pytest.raises(RulesetError) as err:
        imagine(game, "p2", random.Random(1))
    assert "guess.players.cash.high" in str(err.value.diagnostics[0].pos)


@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=25", "mcts:iterations=25:keep=1",
                                  "mcts:iterations=3:ties=1:playout=greedy:depth=10"])
def test_a_bots_choice_does_not_change_with_hidden_information(spec):
    game = _mid_game("stephensons_rocket", 3, 40)
    seat = game.current_player
    picks = {make_bot(spec, 4).choose(_with_other_cash(game, seat, cash)) for cash in (0, 5000, 90000)}
    assert len(picks) == 1


def test_simulate_times_each_bot_and_counts_every_choice(chicago):
    from railrules.tools.lab.simulate import simulate
    r = simulate(chicago, 2, 5, 3, "greedy,random,random")
    assert set(r["bots"]) == {"greedy", "random"}
    # every decision was one bot's choice; each bot's time is its own
    assert sum(b["choices"] for b in r["bots"].values()) == r["decisions_mean"] * r["finished"]
    assert all(b["seconds_per_game"] > 0 for b in r["bots"].values())
    forced = simulate(chicago, 2, 5, 3, "random", forced=True)
    assert forced["bots"]["random"]["choices"] < forced["decisions_mean"] * forced["finished"]


# ------------------------------------------------------------------ how the search ranks and credits
def test_credits_are_standings_with_a_bounded_lead_that_breaks_ties(tmp_path):
    from railrules.tools.bots.search import credits
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(3, 1)
    game.execute("set p1.cash = 9")
    game.execute("set p2.cash = 1")
    game.execute("set p3.cash = 0")
    assert credits(game, 0.0) == standings(game)
    near, far = credits(game, 0.5), None
    assert all(0 <= v <= 1 for v in near.values())
    assert near["p1"] > near["p2"] > near["p3"]
    game.execute("set p2.cash = 0")
    far = credits(game, 0.5)
    # p2 and p3 both trail p1 (rank alone: the same for both games); the lead term tells that p2
    # trails by less in the first
    assert standings(game)["p2"] == 0.25 and near["p2"] > far["p2"]


@pytest.mark.parametrize("cash, best", [(0, "take 3"), (8, "take 2")])
def test_mcts_tries_first_what_a_one_decision_look_ahead_rates_best(tmp_path, cash, best):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(2, 1)
    game.execute(f"set p1.cash = {cash}")
    for seed in range(5):
        assert make_bot("mcts:iterations=1", seed).choose(game).label == best
        assert make_bot("mcts:iterations=3", seed).choose(game).label == best
    # without the ranking (widen=0) one iteration tries a random action
    picks = {make_bot("mcts:iterations=1:widen=0", seed).choose(game).label for seed in range(12)}
    assert len(picks) > 1


@pytest.mark.parametrize("name", ["baltimore_ohio", "chicago_express", "stephensons_rocket"])
def test_with_one_iteration_mcts_plays_as_greedy_rates(name):
    from railrules.tools.bots.search import rating
    game = _mid_game(name, 3, 40)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    seat = game.current_player

    def rated(action):
        after = game.clone()
        after.apply(action)
        return rating(after, seat)
    top = max(rated(a) for a in game.legal_actions())
    assert rated(make_bot("mcts:iterations=1", 3).choose(game)) == top


def test_mcts_is_the_same_for_the_same_seed_with_every_setting():
    game = _mid_game("baltimore_ohio", 3, 40)
    for spec in ("mcts:iterations=40", "mcts:iterations=40:depth=4:lead=0:widen=0",
                 "mcts:iterations=40:follow=2:runs=1:answers=1", "mcts:iterations=40:sure=1.5",
                 "mcts:iterations=20:ties=1:playout=greedy:depth=10:answers=1"):
        assert len({make_bot(spec, 5).choose(game) for _ in range(3)}) == 1


_TRAP = """# A test: the first player takes a safe gain or a bolder one that the second player can punish.

game:
    cite "Test rules: the second player starts with 2 coins; the first opens, the second answers."
    pay 2 from bank to players[1]
    call opening(players[0])
    call answer(players[1], players[0])
    end_game "answered"

procedure opening(p):
    cite "Test rules: take 3 coins, or 5."
    choose by p:
        option safe:
            pay 3 from bank to p
        option bold:
            pay 5 from bank to p

procedure answer(q, p):
    cite "Test rules: take 4 coins from a player who took 5, or wait (in one of twenty ways)."
    choose by q:
        option punish:
            require p.cash >= 5 else "only a bold opening is punished"
            pay 4 from p to bank
        option wait(n in range(0, 20)):
            log "{q} waits"

score p = p.cash
estimate p = p.cash
"""


def _trap(tmp_path):
    """The first decision of a game where the bolder opening loses against the one answer (of
    21) that punishes it, and wins against the others."""
    root = _coin_race(tmp_path)
    shutil.rmtree(root / "scenarios")
    (root / "rules" / "game.rules").write_text(_TRAP, encoding="utf-8")
    return load_ruleset(str(root)).new_game(2, 1)


def test_mcts_answers_for_the_others_as_a_look_ahead_rates_their_answers(tmp_path):
    # Tried in random order, the other seat's answers are each tried once before any twice: a
    # short search credits the bold opening as if the other seat answered at random (20 of 21
    # answers let it win) and takes it. Ordered by the other seat's look-ahead (rank=2), its first
    # answer is the punishment, and the search takes the safe opening.
    game = _trap(tmp_path)
    assert make_bot("greedy", 1).choose(game).label == "bold"   # one decision ahead, it looks good
    for seed in range(8):
        assert make_bot("mcts:iterations=30:rank=2", seed).choose(game).label == "safe"
    assert [make_bot("mcts:iterations=30:rank=1", seed).choose(game).label
            for seed in range(8)].count("bold") >= 6


def test_rank_orders_the_other_seats_answers_below_the_root(tmp_path):
    from railrules.tools.bots.search import Mcts, rating
    game = _trap(tmp_path)
    bold = next(a for a in game.legal_actions() if a.label == "bold")
    after = game.clone()
    after.apply(bold)
    answerer = after.current_player

    def rated(action):
        later = after.clone()
        later.apply(action)
        return rating(later, answerer)
    for rank, ranked in ((1, False), (2, True)):
        search = Mcts(random.Random(1), 10, 0, 0.7, 0.0, 0.5, 1.0, keep=1.0)  # keep: the tree stays
        search.rank = rank
        search.best(game, game.legal_actions())
        node = search.trees[game.current_player][2].children[bold][1]
        assert node.ranked == ranked
        if ranked:  # the other seat's answers, best first by its own look-ahead
            assert node.order[0].label == "punish"
            ratings = [rated(a) for a in node.order]
            assert sorted(node.order) == sorted(after.legal_actions())
            assert ratings == sorted(ratings, reverse=True) and ratings[0] > ratings[1]


def test_answers_takes_the_other_seats_best_rated_answer_only(tmp_path):
    # Tried in random order (rank=1), the other seat's answers credit the bold opening as if it
    # answered at random; with answers=1 the other seat takes the answer it rates best, the
    # punishment, alone, and the search takes the safe opening.
    from railrules.tools.bots.search import Mcts
    game = _trap(tmp_path)
    for seed in range(8):
        assert make_bot("mcts:iterations=30:answers=1", seed).choose(game).label == "safe"
    bold = next(a for a in game.legal_actions() if a.label == "bold")
    for answers, width in ((False, 21), (True, 1)):
        search = Mcts(random.Random(1), 60, 0, 0.7, 0.0, 0.5, 1.0, keep=1.0)  # keep: the tree stays
        search.widen, search.answers = 30.0, answers   # wide enough to try every answer
        search.best(game, game.legal_actions())
        node = search.trees[game.current_player][2].children[bold][1]
        assert len(node.children) == width
        if answers:
            assert [a.label for a in node.children] == ["punish"]


_GRAB = """# A test: open the safe and then grab from one of ten drawers (one holds three coins), or take one.

game:
    cite "Test rules: players take turns until one reaches the goal."
    each p in turn:
        call turn(p)

procedure turn(p):
    cite "Test rules: take a coin, or open the safe and grab from a drawer."
    choose by p:
        option take:
            pay 1 from bank to p
        option open_safe:
            choose by p:
                option drawer(n in range(0, 10)):
                    if n == 7:
                        pay 3 from bank to p
    if p.cash >= goal:
        end_game "{p} reached {goal}"

score p = p.cash
estimate p = p.cash
"""


def test_runs_takes_a_seats_best_rated_decision_after_its_own(tmp_path):
    # Below the root, a seat deciding again right after its own decision (the drawer after
    # opening the safe) takes the action it rates best alone with runs=1; else the drawers
    # widen, and the empty ones' credits are averaged into opening the safe.
    from railrules.tools.bots.search import Mcts
    root = _coin_race(tmp_path)
    (root / "rules" / "game.rules").write_text(_GRAB, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    opened = next(a for a in game.legal_actions() if a.name == "open_safe")
    for runs in (False, True):
        search = Mcts(random.Random(1), 40, 0, 0.7, 0.0, 0.5, 1.0, keep=1.0)
        search.runs = runs
        search.best(game, game.legal_actions())
        node = search.trees[game.current_player][2].children[opened][1]
        labels = [a.label for a in node.children]
        assert labels == ["drawer 7"] if runs else len(labels) > 1


def test_sure_keeps_the_look_aheads_choice_where_a_trailing_seats_credits_hardly_differ(tmp_path):
    # The seat to move trails far behind, so whatever it does moves its credit by a hair (a
    # bounded lead): against the exploration term, opening the safe (three coins a decision
    # later, in drawer 7) looks no better than taking one coin, most visited is a draw, and the
    # search mostly takes the coin (about 105 visits of 200 against 95). With sure, the root is
    # ordered as greedy rates (through the seat's own next decision: the safe, then drawer 7), and
    # the search keeps that choice unless another action has clearly more visits; with the seats
    # level both find the safe.
    root = _coin_race(tmp_path)
    (root / "rules" / "game.rules").write_text(_GRAB, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    game.execute("set p2.cash = 9")
    assert make_bot("greedy", 1).choose(game).label == "open_safe"
    picks = [make_bot("mcts", seed).choose(game).label for seed in range(8)]
    assert picks.count("take") >= 6
    for seed in range(8):
        assert make_bot("mcts:sure=1.5", seed).choose(game).label == "open_safe"
    game.execute("set p2.cash = 0")
    for seed in range(4):
        assert make_bot("mcts:sure=1.5", seed).choose(game).label == "open_safe"
        assert make_bot("mcts", seed).choose(game).label == "open_safe"


def test_sure_takes_another_action_when_its_credit_is_clearly_higher(tmp_path):
    # One decision ahead the bold opening looks best (greedy takes it), but the other seat's
    # best answer punishes it: with the answers ordered (rank=2) the search visits the safe
    # opening four times as often (24 of 30), and overrules the look-ahead.
    game = _trap(tmp_path)
    assert make_bot("greedy", 1).choose(game).label == "bold"
    for seed in range(8):
        assert make_bot("mcts:iterations=30:rank=2:sure=1.5", seed).choose(game).label == "safe"


def test_greedy_playouts_answer_as_the_other_seat_rates_its_answers(tmp_path):
    # Two iterations rate each opening once, by the decision played on from it. At random, the
    # other seat answers the bold opening with one of its 20 waits (20 of 21 answers), and the
    # bold opening looks best; played on as greedy would, it punishes, and the safe one is taken.
    game = _trap(tmp_path)
    for seed in range(8):
        assert make_bot("mcts:iterations=2:depth=1:playout=greedy", seed).choose(game).label == "safe"
    assert [make_bot("mcts:iterations=2:depth=1", seed).choose(game).label
            for seed in range(8)].count("bold") >= 6


_DOORS = """# A test: two doors look alike until the other player has moved; a coin now looks better.

game:
    cite "Test rules: the second player starts with 2 coins; the first picks, the second waits, then the door pays."
    pay 2 from bank to players[1]
    call pick(players[0], players[1])
    end_game "picked"

procedure pick(p, q):
    cite "Test rules: the left door pays 1, the right door 3, once the other player has waited."
    choose by p:
        option left:
            call wait(q)
            pay 1 from bank to p
        option right:
            call wait(q)
            pay 3 from bank to p
        option grab:
            pay 1 from bank to p
            call wait(q)

procedure wait(q):
    cite "Test rules: the other player waits."
    choose by q:
        option wait:
            log "{q} waits"

score p = p.cash
estimate p = p.cash
"""


@pytest.mark.parametrize("grab", [False, True])
def test_ties_searches_only_among_greedys_tied_choices(tmp_path, grab):
    # One decision ahead, the doors are equal (nothing is paid before the other seat waits) and
    # the coin grabbed now is better; only the right door's 3 coins beat the other seat's 2.
    # Without the coin, the search breaks the doors' tie by playing on: the right door, where
    # greedy takes either. With it, greedy's choice is not tied, and ties keeps it, where a
    # search of every action finds the right door.
    root = _coin_race(tmp_path)
    shutil.rmtree(root / "scenarios")
    rules = _DOORS if grab else _DOORS.replace("        option grab:\n            pay 1 from bank to p\n"
                                              "            call wait(q)\n", "")
    (root / "rules" / "game.rules").write_text(rules, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    assert len(game.legal_actions()) == (3 if grab else 2)
    greedy = {make_bot("greedy", seed).choose(game).label for seed in range(8)}
    assert greedy == ({"grab"} if grab else {"left", "right"})
    for seed in range(8):
        assert make_bot("mcts:iterations=8:ties=1:depth=2:playout=greedy", seed).choose(game).label == ("grab" if grab else "right")
        assert make_bot("mcts:iterations=8:depth=2:playout=greedy", seed).choose(game).label == "right"


def test_playout_is_random_or_greedy():
    with pytest.raises(BotSpecError, match="playout must be random or greedy"):
        make_bot("mcts:playout=smart", 1)


def test_lead_and_keep_must_be_weights():
    for spec in ("mcts:lead=2", "mcts:keep=1.5"):
        with pytest.raises(BotSpecError, match="between 0 and 1"):
            make_bot(spec, 1)


# ------------------------------------------------------------------ a tree kept between decisions
@pytest.mark.parametrize("keep", [1.0, 0.5])
def test_the_kept_root_is_the_node_the_actions_since_lead_to(keep):
    from railrules.interpreter.runtime.values import Action
    game = _mid_game("chicago_express", 3, 20)
    bot = make_bot(f"mcts:iterations=30:keep={keep}", 5)  # one bot plays every seat
    followed = 0
    for _ in range(15):
        seat = game.current_player
        expected = 0
        if seat in bot.search.trees:
            _, before, node = bot.search.trees[seat]
            for entry in game.state["history"][len(before):]:
                node = node.children.get(Action(entry[0], tuple(entry[1:])), (None, None))[1]
                if node is None:
                    break
            if node is not None and all(s == seat for s, _ in node.children.values()):
                expected = node.visits * keep
        if len(game.legal_actions()) == 1:
            game.apply(game.legal_actions()[0])  # no search: the tree stays for the next
            continue
        game.apply(bot.choose(game))
        assert bot.search.kept == expected
        followed += expected > 0
    assert followed > 0


def test_a_kept_tree_plays_the_same_for_the_same_seed():
    runs = []
    for _ in range(2):
        game = _mid_game("chicago_express", 3, 20)
        bots = seat_bots("mcts:iterations=20:keep=1", game.players, 8)
        for _ in range(10):
            game.apply(bots[game.current_player].choose(game))
        runs.append(game.state["history"])
    assert runs[0] == runs[1]


def _twins(seed):
    """A bot that keeps its tree and one that does not, with the same seed."""
    return make_bot("mcts:iterations=25:keep=1", seed), make_bot("mcts:iterations=25", seed)


def test_an_empty_kept_tree_chooses_as_a_fresh_search():
    game = _mid_game("chicago_express", 3, 20)
    keeper, fresh = _twins(6)
    assert keeper.choose(game) == fresh.choose(game)  # nothing kept yet
    # another game (another seed): the kept tree is dropped
    other = _mid_game("chicago_express", 3, 24, seed=2)
    while len(other.legal_actions()) < 2:
        other.apply(other.legal_actions()[0])
    fresh.rng.setstate(keeper.rng.getstate())
    assert keeper.choose(other) == fresh.choose(other) and keeper.search.kept == 0


def test_a_kept_tree_is_dropped_when_the_game_went_elsewhere():
    game = _mid_game("chicago_express", 3, 20)
    while len(game.legal_actions()) < 3:
        game.apply(game.legal_actions()[0])
    keeper, fresh = _twins(4)
    seat = game.current_player
    keeper.search.iterations = 1  # one child: the action the look-ahead rates best
    keeper.choose(game)
    root = keeper.search.trees[seat][2]
    game.apply(next(a for a in game.legal_actions() if a not in root.children))  # not imagined
    rng = random.Random(2)
    while game.current_player != seat or len(game.legal_actions()) < 2:
        game.apply(rng.choice(game.legal_actions()))
    keeper.search.iterations = 25
    fresh.rng.setstate(keeper.rng.getstate())
    assert keeper.choose(game) == fresh.choose(game) and keeper.search.kept == 0



# ------------------------------------------------------------------ games kept at nodes
def _statistics(node) -> list:
    """The visits and credits of every node of a tree, depth first, in the order tried."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append((n.visits, n.value))
        stack.extend(child for _, child in n.children.values())
    return out


@pytest.mark.parametrize("name", ["chicago_express", "german_railways", "baltimore_ohio"])
@pytest.mark.parametrize("spec", ["mcts:iterations=40:keep=1", "mcts:iterations=30:depth=8:keep=1",
                                  "mcts:iterations=30:keep=0.5"])
def test_a_search_that_keeps_the_games_at_nodes_searches_as_one_that_replays_every_walk(name, spec):
    """Nothing secret in these games: the search keeps the game as it stands at each node reached
    with no draw and copies it instead of replaying the walk from an imagined copy. Decision
    after decision of a game, its tree (every node's visits and credits) and its choice are
    those of a search that replays every walk (German Railways draws its turn order: walks past
    a draw are replayed, and playouts draw)."""
    game = _mid_game(name, 3, 17)
    kept, replayed = make_bot(spec, 9), make_bot(spec, 9)
    replayed.search.reuse = False
    for _ in range(10):
        if len(game.legal_actions()) > 1:
            seat, choice = game.current_player, kept.choose(game)
            assert replayed.choose(game) == choice
            assert _statistics(kept.search.trees[seat][2]) == _statistics(replayed.search.trees[seat][2])
        else:
            choice = game.legal_actions()[0]
        game.apply(choice)


def test_a_search_that_keeps_a_few_games_searches_as_one_that_keeps_many(monkeypatch):
    """Past its bound on the games kept at nodes, the search replays the walks: the same tree."""
    from railrules.tools.bots import search
    game = _mid_game("chicago_express", 3, 17)
    trees = []
    for bound in (search._GAMES_KEPT, 3):
        monkeypatch.setattr(search, "_GAMES_KEPT", bound)
        bot = make_bot("mcts:iterations=40:keep=1", 9)
        bot.choose(game)
        trees.append(_statistics(bot.search.trees[game.current_player][2]))
    assert trees[0] == trees[1]


def test_standings_and_leads_are_their_definitions_for_any_values():
    """Standings compare each pair of seats once, and the seats' leads look for the best and the
    runner-up in one pass: for random values (whole numbers and fractions, many ties, 2 to 6
    seats) they are the share of the others a seat is ahead of (a tie half) and its value less
    the others' best, exactly (with one seat: 0)."""
    from railrules.tools.bots.search import _leads, _standings
    rng = random.Random(4)
    for _ in range(500):
        seats = [f"p{i}" for i in range(rng.randint(2, 6))]
        values = {p: rng.choice([rng.randint(-3, 3), Fraction(rng.randint(-9, 9), rng.randint(1, 3))])
                  for p in seats}
        standings, leads = _standings(seats, values), _leads(values)
        for p in seats:
            others = [v for q, v in values.items() if q != p]
            share = sum(1.0 if values[p] > v else 0.5 if values[p] == v else 0.0 for v in others)
            assert standings[p] == share / len(others)
            assert leads[p] == values[p] - max(others)
    assert _leads({"p1": Fraction(7, 2)}) == {"p1": 0}


def test_credits_are_their_definition_for_any_values():
    """The search's credits, written out for speed (each pair of seats compared once, the best
    and the runner-up found by one sort), are exactly ``(1 - w) * standing + w * (1 +
    tanh(lead / scale)) / 2`` with the standing and lead of :func:`_standings` and
    :func:`_leads`: random values, 2 to 6 seats, whole numbers and fractions, many ties."""
    from railrules.tools.bots.search import _leads, _standings, credits

    class Values:   # a game as credits reads it
        is_over = False

        def __init__(self, values):
            self.values, self.players = values, list(values)

        def estimates(self):
            return self.values
    rng = random.Random(5)
    for _ in range(500):
        seats = [f"p{i}" for i in range(rng.randint(2, 6))]
        values = {p: rng.choice([rng.randint(-3, 3), Fraction(rng.randint(-9, 9), rng.randint(1, 3))])
                  for p in seats}
        weight = rng.choice([0.25, 0.5, 1.0])
        stand, leads = _standings(seats, values), _leads(values)
        scale = float(sum(map(abs, values.values()))) / len(seats) or 1.0
        assert credits(Values(values), weight) == {
            p: (1 - weight) * stand[p] + weight * (1 + math.tanh(leads[p] / scale)) / 2 for p in seats}


# ------------------------------------------------------------------ trust, and the ruleset's settings
def _factories(tmp_path, estimate: str, yaml_extra: str = ""):
    """The learning game (a factory costs 3 and pays 1 a round) with another estimate."""
    root = tmp_path / "factories"
    shutil.copytree(Path(__file__).parent / "learning_game", root)
    rules = root / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("estimate p = p.cash", estimate), encoding="utf-8")
    if yaml_extra:
        with open(root / "ruleset.yaml", "a", encoding="utf-8") as f:
            f.write(yaml_extra)
    return root


PROMISE = "estimate p = p.cash + p.factories * (rounds - round)"   # what the factories will pay


def test_the_scores_as_the_game_stands_are_the_score_expression_read_now(tmp_path):
    game = load_ruleset(str(_factories(tmp_path, PROMISE))).new_game(2, 1)
    game.execute("set p1.cash = 7")
    game.execute("set p1.factories = 1")   # (in round 1 the estimate promises 9 more)
    assert game.scores() == {"p1": 7, "p2": 3} == {p: game.evaluate(f"{p}.cash") for p in game.players}
    assert game.estimates()["p1"] == 16
    with pytest.raises(RulesRuntimeError, match="in score: .*is not a player"):
        game.scores(["bank"])
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert game.scores() == game.result["scores"]


@pytest.mark.parametrize("trust", [0.0, 0.5, 1.0, 2.0])
def test_trust_counts_that_share_of_what_the_estimate_promises_above_the_score(tmp_path, trust):
    from railrules.tools.bots.search import trusting
    game = load_ruleset(str(_factories(tmp_path, PROMISE))).new_game(2, 1)
    game.execute("set p1.factories = 2")
    game.execute("set round = 4")
    # p1: cash 3, two factories paying 6 more rounds: the estimate promises 12 above the score
    assert trusting(trust)(game) == {"p1": 3 + trust * 12, "p2": 3}


@pytest.mark.parametrize("spec, best", [("greedy", "build"), ("greedy:trust=0.2", "take"),
                                        ("mcts:iterations=1", "build"), ("mcts:iterations=1:trust=0.2", "take")])
def test_a_bot_wary_of_promises_keeps_its_money(tmp_path, spec, best):
    # a factory bought now pays 10 coins for 3: trusted at a fifth, 2 coins for 3, so a coin is better
    game = load_ruleset(str(_factories(tmp_path, PROMISE))).new_game(2, 1)
    assert {make_bot(spec, seed).choose(game).name for seed in range(4)} == {best}


def test_trust_is_refused_with_a_learned_estimate():
    with pytest.raises(BotSpecError, match="learned estimate predicts standings"):
        make_bot("mcts:estimate=learned:trust=0.5", 1)


def test_a_ruleset_declares_its_bots_settings_and_a_spec_overrides_them(tmp_path):
    rs = load_ruleset(str(_factories(tmp_path, PROMISE, 'bots:\n  mcts: "iterations=7:trust=0.5"\n')))
    seats = ["p1", "p2"]
    bot = seat_bots("mcts", seats, 1, rs)["p1"]
    assert (bot.search.iterations, bot.trust) == (7, 0.5)
    bot = seat_bots("mcts:trust=1,greedy", seats, 1, rs)
    assert (bot["p1"].search.iterations, bot["p1"].trust, bot["p2"].trust) == (7, 1.0, 1.0)
    assert seat_bots("mcts", seats, 1)["p1"].search.iterations == 200   # without the ruleset: the defaults


def test_a_declared_setting_the_bot_does_not_have_says_where_it_comes_from(tmp_path):
    rs = load_ruleset(str(_factories(tmp_path, PROMISE, 'bots:\n  mcts: "iterations=7:nerve=2"\n')))
    with pytest.raises(BotSpecError, match=r"ruleset.yaml, bots: mcts: .*no setting 'nerve=2'"):
        seat_bots("mcts", ["p1", "p2"], 1, rs)


def test_an_overlay_declares_its_own_bots_settings_and_lint_points_at_its_file(tmp_path):
    # An overlay (ruleset.yaml with extends:) takes its base's bots settings unless it declares
    # its own; a setting the bot lacks is reported in the file that declares it.
    from railrules.tools.author.lint import lint_ruleset
    from railrules.tools.bots.players import declared
    base = _factories(tmp_path, PROMISE, 'bots:\n  mcts: "iterations=50"\n')
    over = tmp_path / "patient"
    over.mkdir()
    (over / "ruleset.yaml").write_text(f"name: patient\nextends: {base}\n", encoding="utf-8")
    assert declared("mcts", load_ruleset(str(over))) == "mcts:iterations=50"
    with open(over / "ruleset.yaml", "a", encoding="utf-8") as f:
        f.write('bots:\n  mcts: "ties=1:nerve=2"\n')
    found = [d for d in lint_ruleset(str(over)) if d.code == "RR215"]
    assert len(found) == 1 and found[0].pos.file.endswith("patient/ruleset.yaml") and found[0].pos.line == 4
    with pytest.raises(BotSpecError, match=r"patient/ruleset.yaml, bots: mcts: .*no setting 'nerve=2'"):
        seat_bots("mcts", ["p1", "p2"], 1, load_ruleset(str(over)))


def test_the_schema_refuses_bots_settings_that_are_no_spec(tmp_path):
    root = _factories(tmp_path, PROMISE, "bots:\n  mcts: 7\n")
    with pytest.raises(RulesetError, match="bots"):
        load_ruleset(str(root))


def test_the_shipped_rulesets_bots_settings_make_bots():
    from railrules.tools.bots.players import declared
    checked = []
    for name in ["chicago_express", "german_railways", "stephensons_rocket", "baltimore_ohio"]:
        rs = load_ruleset(name)
        for kind, items in (rs.meta.get("bots") or {}).items():
            assert declared(kind, rs) == f"{kind}:{items}"
            seat_bots(kind, ["p1", "p2", "p3"], 1, rs)   # (refused if a setting is not the bot's)
            checked.append((name, kind))
    assert {("german_railways", "mcts"), ("baltimore_ohio", "mcts")} <= set(checked)


def test_lint_finds_a_declared_setting_the_bot_does_not_have_where_it_is_written(tmp_path):
    from railrules.tools.author.lint import lint_ruleset
    root = _factories(tmp_path, PROMISE, 'bots:\n  greedy: "trust=0.5"\n  mcts: "iterations=50:nerve=2"\n')
    found = [d for d in lint_ruleset(str(root)) if d.code == "RR215"]
    assert len(found) == 1 and "no setting 'nerve=2'" in found[0].message
    lines = (root / "ruleset.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[found[0].pos.line - 1].strip().startswith("mcts:")
