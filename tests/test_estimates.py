"""The shipped rulesets' estimates let bots play every game: greedy games end,
the estimate tells the seats apart in the middle of a game, a standing bid counts (German
Railways: without it a one-decision look-ahead bid at random and every game tied at 0), and most
greedy games have a sole winner (slow: a one-sided binomial test)."""
from __future__ import annotations

import pytest

from railrules.interpreter import load_ruleset
from railrules.tools.bots.players import make_bot, seat_bots

SHIPPED = ["baltimore_ohio", "chicago_express", "german_railways", "stephensons_rocket"]
MAX_DECISIONS = 20_000


def _greedy_game(name: str, seed: int, players: int = 3):
    """A greedy game played to its end (or the cap), and each seat's estimate before every decision."""
    game = load_ruleset(name).new_game(players, seed)
    bots = seat_bots("greedy", game.players, seed)
    estimates = []
    while not game.is_over and game.decisions < MAX_DECISIONS:
        estimates.append([game.estimate(p) for p in game.players])
        game.apply(bots[game.current_player].choose(game))
    return game, estimates


@pytest.mark.parametrize("name", SHIPPED)
def test_a_greedy_game_ends_and_its_estimate_tells_the_seats_apart_midway(name):
    game, estimates = _greedy_game(name, 1)
    assert game.is_over, f"not over after {game.decisions} decisions"
    middle = estimates[len(estimates) // 2]
    assert None not in middle and len(set(middle)) > 1, f"every seat estimated {middle[0]} midway"


def _first_auction():
    """German Railways, 3 players: the first opening auction, its first bidder to choose."""
    game = load_ruleset("german_railways").new_game(3, 1)
    while not any(a.name == "bid" for a in game.legal_actions()):
        game.apply(game.legal_actions()[0])
    return game


def _after(game, label):
    after = game.clone()
    after.apply(next(a for a in after.legal_actions() if a.label == label))
    return after


def test_german_railways_counts_the_bid_that_stands():
    game = _first_auction()
    me = game.current_player
    cash = game.state["entities"][me]["cash"]
    assert game.estimate(me) == cash                      # nothing held, nothing bid yet
    one, two = _after(game, "bid 1"), _after(game, "bid 2")
    assert one.estimate(me) - two.estimate(me) == 1       # each thaler bid is a thaler promised
    assert one.estimate(me) > _after(game, "pass").estimate(me)   # the share is worth more than 1
    # outbid, the first bidder is back to its cash; the new high bidder counts the share
    other = one.current_player
    outbid = _after(one, "bid 2")
    assert outbid.estimate(me) == cash
    assert outbid.estimate(other) - outbid.state["entities"][other]["cash"] == one.estimate(me) - cash - 1


def test_a_greedy_bidder_offers_the_least_it_may_while_the_share_is_worth_more():
    game = _first_auction()
    bids = {make_bot("greedy", seed).choose(game).label for seed in range(5)}
    assert bids == {"bid 1"}


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_most_greedy_games_have_a_sole_winner(name):
    """The claim: a greedy game (3 players) has a sole winner more often than not. Over 20 seeded
    games, the one-sided binomial test against that floor (p = 1/2) must reject it at 5 %
    (15 or more games of 20 with a sole winner)."""
    from scipy.stats import binomtest
    games = 20
    sole = 0
    for seed in range(1, games + 1):
        game, _ = _greedy_game(name, seed)
        assert game.is_over, f"seed {seed}: not over after {game.decisions} decisions"
        sole += len(game.result["winners"]) == 1
    assert binomtest(sole, games, 0.5, alternative="greater").pvalue < 0.05, f"{sole} of {games} games"


def test_german_railways_counts_any_company_nearing_a_connection_for_every_holder():
    """A dividend pays every share ("Per ogni azione in loro possesso i giocatori ricevono un
    dividendo"), whichever company makes the connection: a company's lines nearing a company it
    is not linked to raise the estimate of a player who holds none of it, and a hex that brings
    it no nearer does not (the estimate once counted only the player's own companies' nearness)."""
    game = _first_auction()
    me = game.current_player
    game.execute(f"set {me}.income = 5")
    start = game.estimate(me)
    far = game.evaluate("hexes_to_meet(KSS)")
    nearer, other = None, None
    for h in game.evaluate("frontier(KSS.network)"):
        after = game.clone()
        after.execute(f"add {h} to KSS.network")
        if after.evaluate("hexes_to_meet(KSS)") < far:
            nearer = after
        else:
            other = after
    assert nearer is not None and other is not None
    assert game.state["entities"][me]["shares"].get("KSS", 0) == 0
    assert nearer.estimate(me) > start
    assert other.estimate(me) <= start
