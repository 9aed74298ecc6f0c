"""Baltimore & Ohio: the authored map, and properties of 200 seeded random games (50 seeds for
each of 3, 4, 5 and 6 players).

The map tests are fast: every home city reaches every other, the board is an odd-q grid whose
only cuts are its 12 blocked edges (the thick black lines of the Chesapeake Bay, Long Island
Sound and Lake Erie's western basin) and they really cut, the five coal hexes lie in the
Appalachian coal fields, and building across the Appalachians costs more than on the plains.

The property tests (slow) play each (players, seed) game once per session with
``random.Random(seed)`` choosing uniformly among the legal actions and check after every action
that money (bank, players, treasuries), shares, cards, cubes and coal are conserved, that the
Valuation Track and the tech level stay within their bounds and the tech level is the highest
level bought, that the kept list of running railroads (live) is right, that every running
railroad's president holds the most shares and a railroad that is not running has no share,
card, money or president, and that a railroad's cubes are one connected network holding its
home; that no market decision has pass or done as its one legal action; at the end, that the
winner is the richest player (cash + shares at their value) with the lowest Player Order card
among equals, that the log replays byte for byte and that saved states load with the same
legal actions; and, with every def kept as a derived value, that each kept value equals its
computation from scratch after every action. A failure names the player count and the seeds
and decisions where it broke.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field

import networkx as nx
import pytest
from game_checks import Run, conserved, replay_problems, report, round_trip_problems

from railrules.interpreter import load_ruleset
from railrules.interpreter.board.hexgrid import grid_neighbours

RULESET = "baltimore_ohio"
PLAYER_COUNTS = [3, 4, 5, 6]
SEEDS = range(50)                 # 4 x 50 = 200 games
SNAPSHOTS = 2
END_REASONS = {"share_at_375", "tech_level_6", "no_railroad_can_run"}


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset(RULESET)


def _hexes(ruleset, **where):
    return [h for h in ruleset.kinds["hexes"]
            if all(ruleset.entities[h].get(k) == v for k, v in where.items())]


def _alias(ruleset, name):
    return next(h for h in ruleset.kinds["hexes"] if ruleset.entities[h].get("alias") == name)


# ------------------------------------------------------------------------------------- the map
def test_the_map_has_35_cities_with_six_revenues_and_every_home_is_one(ruleset):
    cities = _hexes(ruleset, city=True)
    assert len(cities) == 35
    assert all(len(ruleset.entities[h]["revenue"]) == 6 for h in cities)
    homes = [ruleset.entities[r]["home"] for r in ruleset.kinds["railroads"]]
    assert len(set(homes)) == 10 and set(homes) <= set(cities)


def test_every_home_reaches_every_other(ruleset):
    graph = ruleset.board.graph
    homes = [ruleset.entities[r]["home"] for r in ruleset.kinds["railroads"]]
    assert nx.is_connected(graph)
    for a in homes:
        reach = nx.node_connected_component(graph, a)
        assert set(homes) <= reach, a


def _board_yaml():
    import yaml
    return yaml.safe_load((load_ruleset(RULESET).root / "board.yaml").read_text(encoding="utf-8"))


def test_the_board_is_a_grid_and_the_thick_black_lines_are_its_blocked_edges(ruleset):
    """board.yaml keeps the odd-q grid (no hex lists neighbours) and cuts 12 of its edges: the
    board's graph is the grid's minus exactly those."""
    doc = _board_yaml()
    assert doc["layout"]["offset"] == "odd-q"
    assert not any("neighbours" in h for h in doc["hexes"].values())
    graph = ruleset.board.graph
    ids = list(ruleset.kinds["hexes"])
    grid = nx.Graph()
    grid.add_nodes_from(ids)
    grid.add_edges_from((h, x) for h, near in grid_neighbours(ids, "odd-q").items() for x in near)
    blocked = {frozenset(pair) for pair in doc["blocked"]}
    assert len(blocked) == len(doc["blocked"]) == 12
    assert {frozenset(e) for e in grid.edges} - {frozenset(e) for e in graph.edges} == blocked
    assert set(graph.edges) <= set(grid.edges)


def test_the_bay_the_sound_and_lake_erie_really_cut(ruleset):
    """Going round the Chesapeake Bay, Long Island Sound or the western basin of Lake Erie takes
    longer than the grid would, and the ways across are gone."""
    graph = ruleset.board.graph
    ids = list(ruleset.kinds["hexes"])
    grid = nx.Graph()
    grid.add_edges_from((h, x) for h, near in grid_neighbours(ids, "odd-q").items() for x in near)
    baltimore, dover = _alias(ruleset, "Baltimore"), _alias(ruleset, "Dover")
    norfolk, new_haven = _alias(ruleset, "Norfolk"), _alias(ruleset, "NewHaven")
    # the Eastern Shore is reached round the head of the bay, by Philadelphia
    assert nx.shortest_path_length(graph, baltimore, dover) > nx.shortest_path_length(grid, baltimore, dover)
    assert _alias(ruleset, "Philadelphia") in nx.shortest_path(graph, baltimore, dover)
    # Norfolk is reached from Richmond's side only, not across the mouth of the bay
    richmond = _alias(ruleset, "Richmond")
    assert all(nx.shortest_path_length(graph, richmond, x) <= 2 for x in graph.adj[norfolk])
    assert not graph.has_edge("T10", "T11") and grid.has_edge("T10", "T11")
    # Long Island (X6, Y6): from New Haven across the Sound on the grid; on the board only from
    # its western end, W6 (the Bronx and Queens, next to New York)
    island = [h for h in grid.adj[new_haven] if not graph.has_edge(new_haven, h)]
    assert sorted(island) == ["X6", "Y6"]
    assert all(nx.shortest_path_length(graph, new_haven, h) > 1 for h in island)
    assert set(graph.adj["X6"]) | set(graph.adj["Y6"]) <= {"W6", "X6", "Y6"}
    assert "W6" in graph.adj[_alias(ruleset, "NewYork")]
    # Lake Erie: its water is off the board (Cleveland and Buffalo have fewer than six
    # neighbours), and Toledo (K5) reaches the Sandusky shore (L5) only round by K6
    cleveland, buffalo = _alias(ruleset, "Cleveland"), _alias(ruleset, "Buffalo")
    assert len(graph.adj[buffalo]) < 6 and len(graph.adj[cleveland]) < 6
    assert grid.has_edge("K5", "L5") and not graph.has_edge("K5", "L5")
    assert nx.shortest_path_length(graph, "K5", "L5") == 2


def test_five_coal_hexes_in_the_appalachian_coal_fields(ruleset):
    """The rulebook puts the coal on five "COAL" hexes; the board puts them on the Appalachian
    coal fields: western Pennsylvania (Scranton's anthracite, Johnstown), West Virginia
    (Fairmont, Bluefield) and eastern Kentucky (Hazard), never on a city, always on hills or
    mountains, between Pittsburgh's and Roanoke's columns and south of Lake Erie."""
    coal = _hexes(ruleset, coal=True)
    assert sorted(coal) == ["K11", "N11", "O8", "Q7", "T5"]
    assert all(not ruleset.entities[h]["city"] and ruleset.entities[h]["terrain"] in ("hill", "mountain")
               for h in coal)
    graph = ruleset.board.graph
    pittsburgh = _alias(ruleset, "Pittsburgh")
    assert "O8" in graph.adj[pittsburgh]           # Fairmont's field borders Pittsburgh
    assert all(nx.shortest_path_length(graph, h, _alias(ruleset, "Chicago")) > 5 for h in coal)


def test_crossing_the_appalachians_costs_more(ruleset):
    """The cheapest track from Baltimore to Pittsburgh costs more a hex than from Chicago to
    Fort Wayne (price of entering a hex: its cost)."""
    graph = ruleset.board.graph

    def per_hex(a, b):
        path = nx.shortest_path(graph, _alias(ruleset, a), _alias(ruleset, b),
                                weight=lambda u, v, d: ruleset.entities[v]["cost"])
        return sum(ruleset.entities[h]["cost"] for h in path[1:]) / (len(path) - 1)
    assert per_hex("Baltimore", "Pittsburgh") > per_hex("Chicago", "FortWayne")
    costs = {ruleset.entities[h]["terrain"]: ruleset.entities[h]["cost"] for h in ruleset.kinds["hexes"]}
    assert costs["plain"] < costs["hill"] < costs["mountain"]


# ------------------------------------------------------------------------- random games
@dataclass
class GameRun(Run):
    problems: list = field(default_factory=list)
    receiverships: int = 0
    pass_only: int = 0          # market decisions whose one legal action was pass or done


def _step_problems(ruleset, game, run: GameRun, where: str) -> list:
    ents, glob = game.state["entities"], game.state["globals"]
    out = []
    now = conserved(ruleset, game)
    changed = {k: (run.conserve_start[k], v) for k, v in now.items() if v != run.conserve_start[k]}
    if changed:
        out.append(f"{where}: conserved quantities changed (start, now) = {changed}")
    if not 1 <= glob["tech"] <= 6:
        out.append(f"{where}: tech level {glob['tech']}")
    cards = list(ruleset.kinds["cards"])
    if glob["tech"] != max([1] + [ruleset.entities[k]["level"] for k in cards if k not in glob["deck"]]):
        out.append(f"{where}: tech level {glob['tech']} is not the highest level of a card bought")
    live = [r for r in ruleset.kinds["railroads"] if ents[r]["status"] == "running"]
    if glob["live"] != live:
        out.append(f"{where}: live is {glob['live']}, the running railroads are {live}")
    track = len(ruleset.constants["valuation"])
    graph = ruleset.board.graph
    for r in ruleset.kinds["railroads"]:
        e = ents[r]
        if not 0 <= e["step"] < track:
            out.append(f"{where}: {r} is off the Valuation Track ({e['step']})")
        held = sum(ents[p]["shares"][r] for p in game.players)
        if e["status"] == "running":
            top = max(ents[p]["shares"][r] for p in game.players)
            if held == 0 or e["president"] is None or ents[e["president"]]["shares"][r] != top:
                out.append(f"{where}: {r}'s president {e['president']} does not hold the most shares")
        elif held or e["cards"] or e["cash"] or e["orphans"] or e["president"] is not None:
            out.append(f"{where}: {r} is {e['status']} with shares, cards, money or a president")
        if e["network"] and not nx.is_connected(graph.subgraph(e["network"])):
            out.append(f"{where}: {r}'s cubes are not one network")
        if e["status"] != "unstarted" and ruleset.entities[r]["home"] not in e["network"]:
            out.append(f"{where}: {r} has no cube in its home city")
        for h in e["network"]:
            if r not in ents[h]["trains"]:
                out.append(f"{where}: {r} lists {h} but has no cube there")
    return out


def play(ruleset, players: int, seed: int) -> GameRun:
    run = GameRun.start(ruleset, players, seed)
    game, rng = run.game, random.Random(seed)
    pick = random.Random(f"snapshots-{players}-{seed}")
    i = 0
    while not game.is_over and game.decisions < ruleset.decision_budget:
        legal = game.legal_actions()
        top = game.state["stack"][-1]
        run.pass_only += ([a.label for a in legal] in (["pass"], ["done"])
                          and top["c"] == "proc:market_turn")
        run.offer_snapshot(i, legal, SNAPSHOTS, pick)
        action = rng.choice(legal)
        game.apply(action)
        run.actions.append(action.to_json())
        run.problems += _step_problems(ruleset, game, run, f"after decision {i} ({action.label})")
        i += 1
    run.receiverships = game.state["globals"]["receiverships"]
    return run


@pytest.fixture(scope="module")
def runs(ruleset):
    return functools.cache(lambda players, seed: play(ruleset, players, seed))


def test_player_counts_cover_the_ruleset(ruleset):
    assert (ruleset.players_min, ruleset.players_max) == (min(PLAYER_COUNTS), max(PLAYER_COUNTS))
    assert len(PLAYER_COUNTS) * len(SEEDS) >= 200


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_end_with_the_richest_lowest_card_winning(ruleset, runs, players):
    """Every game ends by a known reason; the score is the money (cash + shares at their value),
    the tiebreak favours the lower Player Order card, and the winner is the richest player with
    the lowest card among equals; a finished game offers nothing."""
    failures = []
    for seed in SEEDS:
        run = runs(players, seed)
        game = run.game
        if not game.is_over:
            failures.append(f"{run.name}: not over after {game.decisions} decisions")
            continue
        failures += [f"{run.name}, {p}" for p in run.problems]
        result = game.result
        if not result["reasons"] or not set(result["reasons"]) <= END_REASONS:
            failures.append(f"{run.name}: end reasons {result['reasons']}")
        wealth = {p: game.evaluate(f"wealth({p})") for p in game.players}
        card = {p: game.state["globals"]["order"].index(p) + 1 for p in game.players}
        best = max(wealth.values())
        expected = min((p for p in game.players if wealth[p] == best), key=card.get)
        if result["winners"] != [expected]:
            failures.append(f"{run.name}: winners {result['winners']}, wealth {wealth}, cards {card}")
        if result["scores"] != wealth:
            failures.append(f"{run.name}: scores {result['scores']} are not the wealth {wealth}")
        if result["tiebreaks"] != {p: players + 1 - card[p] for p in game.players}:
            failures.append(f"{run.name}: tiebreaks {result['tiebreaks']}, cards {card}")
        if game.legal_actions() or game.current_player is not None:
            failures.append(f"{run.name}: a finished game still offers actions")
    assert not failures, report(failures)


@pytest.mark.slow
def test_a_player_is_asked_only_when_there_is_something_to_do(runs):
    """A player who can do nothing more in a market turn is not asked: the turn ends by itself
    (a pass, or done after a sale), so no market decision has pass or done as its one legal
    action."""
    games = [runs(n, s) for n in PLAYER_COUNTS for s in SEEDS]
    assert sum(r.pass_only for r in games) == 0


@pytest.mark.slow
def test_receivership_and_more_than_one_end_happen(runs):
    """Random play puts railroads into receivership, and ends games more than one way."""
    games = [runs(n, s) for n in PLAYER_COUNTS for s in SEEDS]
    assert sum(r.receiverships for r in games) > 0
    reasons = {x for r in games for x in r.game.result["reasons"]}
    assert len(reasons) >= 2, reasons


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_logs_replay_and_saves_load_with_the_same_legal_actions(ruleset, runs, players):
    failures = []
    for seed in SEEDS:
        run = runs(players, seed)
        failures += replay_problems(ruleset, run.name, run.game, run.start_json, run.actions)
        failures += round_trip_problems(ruleset, run.name, run.game, run.snapshots, run.actions,
                                        play_on="last")
    assert not failures, report(failures)


@pytest.mark.slow
def test_derived_values_stay_consistent():
    """With every def kept as a derived value (load_ruleset(derive_all=True)), each kept value
    equals its computation from scratch after every action of 40 random games (10 for each
    player count), and the games are the ones the plain ruleset plays."""
    derived = load_ruleset(RULESET, derive_all=True)
    plain = load_ruleset(RULESET)
    for players in PLAYER_COUNTS:
        for seed in range(10):
            game, rng = derived.new_game(players, seed), random.Random(seed)
            again = plain.new_game(players, seed)
            while not game.is_over:
                action = rng.choice(game.legal_actions())
                game.apply(action)
                again.apply(action)
                game.check_derived()
            assert again.is_over and again.result == game.result and again.digest() == game.digest()


def test_no_player_is_asked_for_a_lone_stop():
    """The build ends by itself when no hex can be built: in seeded random games no decision
    offers `stop` alone (29 such decisions in these games when the build asked anyway)."""
    import random
    lone = []
    for seed in range(1, 6):
        g, pick = load_ruleset(RULESET).new_game(4, seed), random.Random(seed)
        while not g.is_over:
            legal = g.legal_actions()
            if [str(a) for a in legal] == ["stop"]:
                lone.append((seed, g.decisions))
            g.apply(pick.choice(legal))
    assert lone == []
