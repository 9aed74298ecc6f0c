"""Properties of seeded random Chicago Express games, 40 seeds for each of 2..6 players.

Each (players, seed) game is played once (``playthrough`` in conftest.py caches it) and every
property below reads from that one playthrough. A failure names the player count (test id)
and lists the seeds and decisions where the property broke.
"""
from __future__ import annotations

import pytest
from game_checks import replay_problems, report, result_problems, round_trip_problems

from railrules.interpreter import Game

pytestmark = pytest.mark.slow  # every ruleset's property tests play hundreds of games: `pytest -m "not slow"` skips it

PLAYER_COUNTS = [2, 3, 4, 5, 6]
SEEDS = range(40)          # 5 x 40 = 200 games




def test_player_counts_cover_the_ruleset(chicago):
    assert (chicago.players_min, chicago.players_max) == (min(PLAYER_COUNTS), max(PLAYER_COUNTS))


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_game_ends_within_the_decision_budget(chicago, playthrough, players):
    failures = []
    for seed in SEEDS:
        run = playthrough(players, seed)
        failures += result_problems(run.name, run.game)
        assert run.game.decisions == len(run.actions) <= chicago.decision_budget
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_conserved_quantities_never_change(chicago, playthrough, players):
    names = [name for name, _ in chicago.conserve]
    assert set(names) >= {"money", "trains", "shares", "houses"}
    failures = []
    for seed in SEEDS:
        run = playthrough(players, seed)
        start = run.conserve_start
        for i, obs in enumerate(run.observations):
            if obs["conserve"] != start:
                changed = {k: (start[k], v) for k, v in obs["conserve"].items() if v != start[k]}
                failures.append(f"{run.name}, after decision {i} {run.actions[i]}: "
                                f"(start, now) = {changed}")
                break
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_share_and_train_counts_stay_consistent(chicago, playthrough, players):
    failures = []
    for seed in SEEDS:
        run = playthrough(players, seed)
        for i, obs in enumerate(run.observations):
            where = f"{run.name}, after decision {i} {run.actions[i]}"
            problems = []
            for p, shares in obs["player_shares"].items():
                problems += [f"{p} holds {n} of {c}" for c, n in shares.items() if n < 0]
                if obs["player_cash"][p] < 0:
                    problems.append(f"{p} has cash {obs['player_cash'][p]}")
            for c, rec in obs["companies"].items():
                if rec["shares_left"] < 0:
                    problems.append(f"{c}.shares_left = {rec['shares_left']}")
                if rec["trains_left"] < 0:
                    problems.append(f"{c}.trains_left = {rec['trains_left']}")
                if rec["held"] + rec["shares_left"] != rec["shares"]:
                    problems.append(f"{c}: held {rec['held']} + left {rec['shares_left']} "
                                    f"!= total {rec['shares']}")
            if problems:
                failures.append(f"{where}: {'; '.join(problems)}")
                break
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_replaying_the_log_gives_a_byte_identical_state(chicago, playthrough, players):
    failures = []
    for seed in SEEDS:
        run = playthrough(players, seed)
        failures += replay_problems(chicago, run.name, run.game, run.start_json, run.actions)
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_json_round_trip_mid_game_resumes_identically(chicago, playthrough, players):
    failures = []
    for seed in SEEDS:
        run = playthrough(players, seed)
        assert len(run.snapshots) == 3, f"{run.name}: {len(run.snapshots)} snapshots"
        failures += round_trip_problems(chicago, run.name, run.game, run.snapshots, run.actions)
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_clone_is_independent_and_equal(chicago, playthrough, players):
    """A clone at a snapshot point equals the saved state and does not share its data."""
    run = playthrough(players, 0)
    index, text, legal = run.snapshots[-1]
    game = Game.from_json(chicago, text)
    copy = game.clone()
    assert copy.to_json() == text
    copy.apply(run.actions[index])
    assert game.to_json() == text, "applying to a clone changed the original"
    assert [a.to_json() for a in game.legal_actions()] == legal


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_apply_with_the_deprecated_safe_warns_and_plays_the_same_game(chicago, playthrough, players):
    """``apply(action, safe=...)`` (deprecated: every apply is safe) warns and does what
    ``apply(action)`` does."""
    run = playthrough(players, 1)
    game = chicago.new_game(players=players, seed=1)
    for i, action in enumerate(run.actions):
        with pytest.warns(DeprecationWarning, match="safe"):
            game.apply(action, safe=i % 2 == 0)
    assert game.is_over
    assert game.to_json() == run.game.to_json()
