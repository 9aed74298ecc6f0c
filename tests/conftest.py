"""Shared fixtures: the Chicago Express ruleset and seeded random playthroughs.

A playthrough is one game in which ``random.Random(seed)`` picks uniformly among the legal
actions until the game ends (or the ruleset's decision budget runs out). Everything the
property tests need is recorded during that single pass, so each (players, seed) game is
played once per test session however many properties look at it.
"""
from __future__ import annotations

import functools
import marshal
import random
from dataclasses import dataclass, field

import pytest

from game_checks import Run, conserved

from railrules.interpreter import load_ruleset


@dataclass
class Playthrough(Run):
    """What one seeded random game did, step by step."""
    observations: list = field(default_factory=list)  # one per action, taken after it


def observe(ruleset, game, memo: dict | None = None) -> dict:
    """The counts the invariants talk about, read straight from the plain-data state.

    Evaluating the conserved quantities is most of a playthrough's cost, and many actions (a
    bid, a pass) change neither entities nor globals. Those expressions read only entities,
    globals and the (fixed) player list, so with ``memo`` they are evaluated again only when
    a lossless serialisation of entities and globals differs from the previous one: equal
    bytes mean equal data and therefore equal values.
    """
    ents = game.state["entities"]
    if memo is None:
        values = conserved(ruleset, game)
    else:
        key = marshal.dumps((ents, game.state["globals"]))
        if memo.get("key") != key:
            memo["key"], memo["values"] = key, conserved(ruleset, game)
        values = dict(memo["values"])
    players = game.players
    companies = {}
    for c in ruleset.kinds["companies"]:
        rec = ents[c]
        companies[c] = {"shares": rec["shares"], "shares_left": rec["shares_left"],
                        "trains_left": rec["trains_left"],
                        "held": sum(ents[p]["shares"][c] for p in players)}
    return {
        "conserve": values,
        "companies": companies,
        "player_shares": {p: dict(ents[p]["shares"]) for p in players},
        "player_cash": {p: ents[p]["cash"] for p in players},
    }


def play_random(ruleset, players: int, seed: int, snapshots: int = 3) -> Playthrough:
    """Play one game choosing uniformly among the legal actions with ``random.Random(seed)``.

    Records an observation after every action and keeps ``snapshots`` states chosen uniformly
    over the whole game (reservoir sampling with its own seeded generator, so the choice of
    actions does not depend on it).
    """
    run = Playthrough.start(ruleset, players, seed)
    game = run.game
    rng = random.Random(seed)
    pick = random.Random(f"snapshots-{players}-{seed}")
    budget = ruleset.decision_budget
    memo: dict = {}
    i = 0
    while not game.is_over and game.decisions < budget:
        legal = game.legal_actions()
        assert legal, f"{run.name}: the game is not over but has no legal action"
        run.offer_snapshot(i, legal, snapshots, pick)
        action = rng.choice(legal)
        game.apply(action)
        run.actions.append(action.to_json())
        run.observations.append(observe(ruleset, game, memo))
        i += 1
    run.snapshots.sort(key=lambda s: s[0])
    return run


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The user cache (RAILRULES_CACHE_DIR), a folder of the test's own, not made yet."""
    where = tmp_path / "cache"
    monkeypatch.setenv("RAILRULES_CACHE_DIR", str(where))
    return where


@pytest.fixture(scope="session")
def chicago():
    """The shipped Chicago Express ruleset, loaded once per session."""
    return load_ruleset("chicago_express")


@pytest.fixture(scope="session")
def playthrough(chicago):
    """``playthrough(players, seed)``: a cached :func:`play_random` game of Chicago Express."""
    return functools.cache(lambda players, seed: play_random(chicago, players, seed))


@pytest.fixture
def fresh_game(chicago):
    """A new 3-player Chicago Express game (seed 1), waiting for the first opening bid."""
    return chicago.new_game(players=3, seed=1)
