"""Properties of seeded random Stephenson's Rocket games: 67 seeds for each of 2, 3 and 4 players.

Each (players, seed) game is played once per session by a seeded random bot
(``random.Random(seed)``) and every property reads that one playthrough. The bot chooses
uniformly among the legal actions, except that when extending a railway is one of the four
actions of a turn it takes it half of the time (as players do; a uniform bot spends most of
its actions moving stations about, which doubles the length of a game and of this test). The
properties: the game ends by one of its two end conditions; every quantity the ruleset declares
under ``conserve`` (money, shares, tiles, stations, goods, passengers) is the same after every
action; money only flows from the bank to the players; merges exchange shares two for one and
leave nothing of the eliminated railway; each line is one network (networkx) and no two lines
touch; replaying the log gives a byte-identical state; a state saved as JSON mid-game loads with
the same legal actions; a player's view hides the others' money. A failure names the player
count and lists the seeds and decisions where it broke.
"""
from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field

import networkx as nx
import pytest
from game_checks import Run, conserved, report, result_problems


from railrules.interpreter import Game, load_ruleset

pytestmark = pytest.mark.slow  # plays hundreds of seeded games: `pytest -m "not slow"` skips it

RULESET = "stephensons_rocket"
PLAYER_COUNTS = [2, 3, 4]
SEEDS = range(67)                 # 3 x 67 = 201 games
SNAPSHOTS = 3                     # mid-game saves checked per game
END_REASONS = {"shares_of_one_railway_left", "all_tiles_laid"}


@dataclass
class GameRun(Run):
    problems: list = field(default_factory=list)   # "after decision i (label): what broke"
    merges: int = 0
    junction_missing: bool = False                 # the last move merged after the 60th tile
    # filled by replay(): the replayed start and final states, and mid-game snapshots
    replay_start: str = ""
    replay_final: str = ""
    replay_digest: str = ""


def _holdings(game) -> dict:
    ents = game.state["entities"]
    return {p: dict(ents[p]["shares"]) for p in game.players}


def _check_step(ruleset, game, before: dict, active: str, run: GameRun, label: str, i: int) -> None:
    """Money flows only from the bank to players; a merge leaves nothing of the eliminated line
    and gives each holder at most one share of the survivor for every two it held."""
    ents = game.state["entities"]
    railways = ruleset.kinds["railways"]
    where = f"after decision {i} ({label})"
    for p in game.players:
        if ents[p]["cash"] < before["cash"][p]:
            run.problems.append(f"{where}: {p}'s money went down ({before['cash'][p]} -> {ents[p]['cash']})")
    if ents["bank"]["cash"] > before["bank"]:
        run.problems.append(f"{where}: the bank received money")
    now = conserved(ruleset, game)
    changed = {k: (run.conserve_start[k], v) for k, v in now.items() if v != run.conserve_start[k]}
    if changed:
        run.problems.append(f"{where}: conserved quantities changed (start, now) = {changed}")
    for c in railways:
        if ents[c]["status"] == "eliminated" and before["status"][c] != "eliminated":
            run.merges += 1
            # the survivor took the eliminated line's tiles (or, leaving its starting town, its places)
            track = before["track"][c]
            survivors = ({ents[h]["track"] for h in track} if track else
                         {s for s in railways if s != c and ents[s]["status"] != "eliminated"
                          and set(ents[c]["places"]) <= set(ents[s]["places"])
                          and not set(ents[c]["places"]) <= before["places"][s]})
            if ents[c]["shares_left"] or any(ents[p]["shares"][c] for p in game.players):
                run.problems.append(f"{where}: {c} is eliminated but shares of it remain")
            if len(survivors) != 1 or c in survivors:
                run.problems.append(f"{where}: {c} merged, but into {survivors}")
            for s in survivors:
                for p in game.players:
                    gained = ents[p]["shares"][s] - before["shares"][p][s]
                    held = before["shares"][p][c] + (1 if p == active else 0)
                    if not 0 <= gained <= held // 2:
                        run.problems.append(f"{where}: {p} held {held} of {c} and gained {gained} of {s}")


def play(ruleset, players: int, seed: int) -> GameRun:
    """One seeded random game, checked after every action."""
    run = GameRun.start(ruleset, players, seed)
    game = run.game
    rng = random.Random(seed)
    railways = ruleset.kinds["railways"]
    i = 0
    while not game.is_over and game.decisions < ruleset.decision_budget:
        legal = game.legal_actions()
        if not legal:
            run.problems.append(f"decision {i}: not over, but no legal action")
            break
        ents = game.state["entities"]
        before = {"cash": {p: ents[p]["cash"] for p in game.players}, "bank": ents["bank"]["cash"],
                  "status": {c: ents[c]["status"] for c in railways},
                  "track": {c: list(ents[c]["track"]) for c in railways},
                  "places": {c: set(ents[c]["places"]) for c in railways},
                  "shares": _holdings(game)}
        active, merges = game.current_player, run.merges
        extend = [a for a in legal if a.name == "extend"]
        action = extend[0] if extend and rng.random() < 0.5 else rng.choice(legal)
        game.apply(action)
        run.actions.append(action.to_json())
        _check_step(ruleset, game, before, active, run, action.label, i)
        # the move that laid the 60th tile merged: no tile was left to join the two lines
        run.junction_missing = run.merges > merges and game.state["globals"]["tiles_left"] == 0
        i += 1
    return run


def replay(ruleset, run: GameRun) -> None:
    """Replay the log from a new game, keeping the states before SNAPSHOTS decisions chosen
    uniformly (seeded) with their legal actions, and the final state."""
    game = ruleset.new_game(players=run.players, seed=run.seed)
    run.replay_start = game.to_json()
    n = len(run.actions)
    keep = set(random.Random(f"snapshots-{run.players}-{run.seed}").sample(range(n), min(SNAPSHOTS, n)))
    for i, action in enumerate(run.actions):
        if i in keep:
            run.snapshots.append((i, game.to_json(), [a.to_json() for a in game.legal_actions()]))
        game.apply(action)
    run.replay_final = game.to_json()
    run.replay_digest = game.digest()


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset(RULESET)


@pytest.fixture(scope="module")
def runs(ruleset):
    """``runs(players, seed)``: each game played once per module."""
    return functools.cache(lambda players, seed: play(ruleset, players, seed))


@pytest.fixture(scope="module")
def replayed(ruleset, runs):
    def get(players: int, seed: int) -> GameRun:
        run = runs(players, seed)
        if not run.replay_final:
            replay(ruleset, run)
        return run
    return get




def test_player_counts_cover_the_ruleset(ruleset):
    assert (ruleset.players_min, ruleset.players_max) == (min(PLAYER_COUNTS), max(PLAYER_COUNTS))
    assert len(PLAYER_COUNTS) * len(SEEDS) >= 200
    assert {name for name, _ in ruleset.conserve} == {"money", "shares", "tiles", "stations",
                                                        "goods", "passengers"}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_game_ends_with_the_richest_winning(ruleset, runs, players):
    failures = []
    for seed in SEEDS:
        run = runs(players, seed)
        g = run.game
        problems = result_problems(run.name, g, END_REASONS)
        failures += problems
        if problems:
            continue
        glob = g.state["globals"]
        with_shares = [c for c in ruleset.kinds["railways"] if g.state["entities"][c]["shares_left"] > 0]
        if not (glob["tiles_left"] == 0 or len(with_shares) <= 1):
            failures.append(f"{run.name}: over with {glob['tiles_left']} tiles and shares of {with_shares}")
    assert not failures, report(failures)


def test_both_end_conditions_happen(runs):
    """The 60 tiles are a real limit: some games end by tiles, others by shares."""
    reasons = {r for n in PLAYER_COUNTS for s in SEEDS for r in runs(n, s).game.result["reasons"]}
    assert reasons == END_REASONS


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_money_flows_from_the_bank_and_everything_isconserved(runs, players):
    """After every action: no player's money goes down, the bank never receives, and money,
    shares (through merges and vetoes), tiles, stations, goods and passengers are conserved."""
    failures = [f"{runs(players, s).name}, {p}" for s in SEEDS for p in runs(players, s).problems]
    assert not failures, report(failures)
    assert sum(runs(players, s).merges for s in SEEDS) > 0, "no merge happened in any game"


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_lines_are_networks_that_never_touch(ruleset, runs, players):
    """At the end each line (track + locomotive) is one networkx component, with starting towns
    as joints, and two lines never border each other (touching means merging)."""
    graph = ruleset.board.graph
    failures = []
    for seed in SEEDS:
        run = runs(players, seed)
        ents = run.game.state["entities"]
        starts = [h for h in ruleset.kinds["hexes"] if ents[h]["site"] == "start"]
        live = [c for c in ruleset.kinds["railways"] if ents[c]["status"] != "eliminated"]
        lines = {c: set(ents[c]["track"]) | {ents[c]["loco"]} for c in live}
        for c, hexes in lines.items():
            on_board = {h for h in ruleset.kinds["hexes"] if ents[h]["track"] == c} | {ents[c]["loco"]}
            if on_board != hexes:
                failures.append(f"{run.name}: {c} records {sorted(hexes)}, the board {sorted(on_board)}")
            net = nx.node_connected_component(graph.subgraph(hexes | set(starts)), ents[c]["loco"])
            if not hexes <= net and not run.junction_missing:
                failures.append(f"{run.name}: the {c} line is not one network")
        for a in live:
            for b in live:
                if a < b and any(x in lines[b] for h in lines[a] for x in graph.adj[h]):
                    failures.append(f"{run.name}: lines {a} and {b} touch")
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_replaying_the_log_gives_a_byte_identical_state(ruleset, replayed, players):
    failures = []
    for seed in SEEDS:
        run = replayed(players, seed)
        final = run.game.to_json()
        log = run.game.log()
        assert (log["ruleset"], log["players"], log["seed"]) == (RULESET, players, seed)
        assert log["actions"] == run.actions
        # the digest is of the state in memory, which the saved final state loads back to
        assert log["final_state_sha256"] == Game.from_json(ruleset, final).digest()
        if run.replay_start != run.start_json:
            failures.append(f"{run.name}: a new game with the same seed starts differently")
        elif run.replay_final != final or run.replay_digest != log["final_state_sha256"]:
            failures.append(f"{run.name}: the replayed state differs")
    assert not failures, report(failures)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_json_round_trip_gives_the_same_legal_actions(ruleset, replayed, players):
    failures = []
    for seed in SEEDS:
        run = replayed(players, seed)
        assert run.snapshots, f"{run.name}: no snapshot"
        for i, text, legal in run.snapshots:
            loaded = Game.from_json(ruleset, text)
            if loaded.to_json() != text:
                failures.append(f"{run.name}, decision {i}: the state changes when loaded")
            if [a.to_json() for a in loaded.legal_actions()] != legal:
                failures.append(f"{run.name}, decision {i}: the legal actions change when loaded")
            if run.actions[i] not in legal:
                failures.append(f"{run.name}, decision {i}: the action played is not among them")
    assert not failures, report(failures)


def test_a_player_sees_only_their_own_money(runs):
    game = runs(3, 0).game
    ents = game.state["entities"]
    for seat in game.players:
        view = game.view(seat)
        for p in game.players:
            shown = view["entities"][p]["cash"]
            assert shown == (ents[p]["cash"] if p == seat else "hidden"), (seat, p, shown)
        assert view["entities"]["bank"]["cash"] == "hidden"   # the bank's total would betray the sum
        assert "rng" not in view
        # shares, stations, goods and passengers are on the table, face up
        assert view["entities"][seat]["shares"] == ents[seat]["shares"]
        assert json.loads(json.dumps(view)) == view
    onlooker = game.view(None)
    assert all(onlooker["entities"][p]["cash"] == "hidden" for p in game.players)


def test_two_states_differing_only_in_hidden_facts_look_the_same(runs):
    """Another player's money, the seed, the generator and the list of past actions (which with
    the seed would replay the game and give the money away) never reach a view."""
    game = runs(3, 0).game.clone()
    other = game.clone()
    other.execute("set players[1].cash += 7")
    other.execute("set players[2].cash -= 3")
    other.execute("set bank.cash -= 4")
    other.state["seed"] += 1
    other.state["rng"] ^= 12345
    other.state["history"] = list(reversed(other.state["history"]))
    seat = game.players[0]
    assert other.to_json() != game.to_json()
    assert other.view(seat) == game.view(seat)
    assert other.view(None) == game.view(None)
    view = game.view(seat)
    assert not {"seed", "rng", "history", "stack"} & set(view) and view["decisions"] == game.decisions


def test_a_player_reads_only_the_payments_they_may_see(runs):
    """Majority payouts reveal the receiver's cash (`log ... reveals p.cash`): in Stephenson's
    Rocket only the receiver reads them; the whole log still has every line."""
    game = runs(3, 0).game
    paid = [line for line in game.messages if " receives " in line]
    assert paid, "no majority payout in this game: the test shows nothing"
    for seat in game.players:
        mine = game.messages_for(seat)
        name = game.state["entities"][seat]["name"]
        assert [line for line in mine if " receives " in line] == \
            [line for line in paid if line.startswith(f"{name} receives ")]
    assert not [line for line in game.messages_for(None) if " receives " in line]
    assert [line for line in game.messages_for(None)] == \
        [line for line in game.messages if " receives " not in line]


def test_the_isolation_search_finds_only_ways_that_never_cross_themselves(runs):
    """route_ahead (the isolation test's search) never enters a hex twice, its start included:
    a line walled in on itself by a knot is isolated. Checked for every railway on
    the board after every 7th decision of three random games."""
    ruleset = load_ruleset("stephensons_rocket")
    routes = 0
    for seed, game in _every_nth_decision(ruleset, 3, (1, 2, 3), 7):
        for c in ruleset.kinds["railways"]:
            if game.evaluate(f"{c}.loco") is None:
                continue
            way = game.evaluate(f"route_ahead({c}.loco, {c}.facing, free_hexes, place_hexes)")
            start = game.evaluate(f"{c}.loco")
            assert len(way) == len(set(way)) and start not in way, (seed, c, start, way)
            routes += bool(way)
    assert routes > 20, "too few ways found to show anything"


# The isolation search's open hexes and goals as lists of the whole map: the free hexes next to
# no other line (`near`, a hex once for each other line it is next to), and the free hexes next
# to one other line or to a place the line has not reached.
NEAR = "flatten([frontier(line(o)) for o in railways where live(o) and o != {c}])"
UNREACHED = "without(place_hexes, flatten([{c}.places, locomotives()]))"
WAY_BY_LISTS = (f"route_ahead({{c}}.loco, {{c}}.facing, without(free_hexes, {NEAR}), "
                f"without(intersect(flatten([{NEAR}, frontier({UNREACHED})]), free_hexes), duplicates({NEAR})))")


def test_the_isolation_search_asks_about_hexes_what_the_lists_of_the_whole_map_hold():
    """way_on asks about each hex the search meets (open_at, goal_at) instead of listing the open
    hexes and goals of the whole map: the same way for every active railway after every 5th
    decision of three random games."""
    ruleset = load_ruleset("stephensons_rocket")
    ways = 0
    for seed, game in _every_nth_decision(ruleset, 4, (4, 5, 6), 5):
        for c in ruleset.kinds["railways"]:
            if game.evaluate(f"{c}.status") == "active":
                way = game.evaluate(f"way_on({c})")
                assert way == game.evaluate(WAY_BY_LISTS.format(c=c)), (seed, game.decisions, c)
                ways += bool(way)
    assert ways > 100, "too few ways found to show anything"


def _every_nth_decision(ruleset, players: int, seeds, n: int):
    """(seed, game) after every ``n``-th decision of a uniformly random game for each seed."""
    for seed in seeds:
        game = ruleset.new_game(players, seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
            if game.decisions % n == 0:
                yield seed, game


def test_the_quick_progress_test_agrees_with_counting_the_lines_near():
    """progress_at (an exists over the neighbours first, the lines counted only where one leads
    on) holds for exactly the free hexes that counting other_lines_near says: next to one other
    line, or to none and to a place the line has not reached. For every live railway after every
    9th decision of two random games."""
    ruleset = load_ruleset("stephensons_rocket")
    n = "count(other_lines_near(h, {c}))"
    plain = (f"[h for h in free_hexes where {n} == 1 or ({n} == 0 and "
             "exists y in neighbours(h) where (is_place(y) and y not in {c}.places))]")
    seen = {"goals": 0, "next to a line": 0}
    for seed, game in _every_nth_decision(ruleset, 4, (7, 8), 9):
        for c in ruleset.kinds["railways"]:
            if game.evaluate(f"live({c})"):
                quick = game.evaluate(f"[h for h in free_hexes where progress_at(h, {c})]")
                assert quick == game.evaluate(plain.format(c=c)), (seed, game.decisions, c)
                seen["goals"] += len(quick)
                seen["next to a line"] += game.evaluate(
                    f"count([h for h in free_hexes where progress_at(h, {c}) and near_other_line(h, {c})])")
    assert seen["goals"] > 1000 and seen["next to a line"] > 100, seen


def test_the_quick_site_test_agrees_with_the_list_of_station_sites():
    """is_station_site (one hex, for has_station_site, which stops at the first site) holds for
    exactly the hexes station_sites lists, for a station from the supply and for every station
    on the map, after every 8th decision of two random games."""
    ruleset = load_ruleset("stephensons_rocket")
    seen = {"sites": 0, "refused": 0}
    for seed, game in _every_nth_decision(ruleset, 4, (4, 5), 8):
        for moving in ["none", *game.evaluate("stations_on_map()")]:
            listed = game.evaluate(f"station_sites({moving})")
            quick = game.evaluate(f"[h for h in free_hexes where is_station_site(h, {moving})]")
            assert quick == listed, (seed, game.decisions, moving)
            assert game.evaluate(f"has_station_site({moving})") == bool(listed)
            seen["sites"] += len(listed)
            seen["refused"] += game.evaluate("count(free_hexes)") - len(listed)
    assert seen["sites"] > 1000 and seen["refused"] > 1000, seen
