"""Search for bots: imagined copies of a game, how a seat stands, and Monte Carlo tree search.

A bot must decide on what its seat may see (``game.view(seat)``), not on the real state. So it
searches copies made by :func:`imagine`: the future of chance is drawn afresh (the copy gets a
generator state of the bot's own), and every field hidden from the seat is replaced by a guess
made from what the seat sees. Two games that differ only in what the seat cannot see give the
same imagined copies, so the bot's choices cannot depend on it.
"""
from __future__ import annotations

import math
import time


def imagine(game, seat: str, rng):
    """A copy of ``game`` as ``seat`` may picture it. A hidden field is guessed as the seat's own
    value of the same field when it has one (another player's secret cash: as much as mine),
    else as the entity's value when the ruleset starts. The paused rules' locals are kept as they
    are: a ruleset should keep secrets in secret fields."""
    copy = game.clone()
    state = copy.state
    state["rng"] = rng.getrandbits(64)
    secret = game.ruleset.meta.get("secret")
    if secret:
        entities = state["entities"]
        own = entities.get(seat, {})
        start = game.ruleset.entities
        for kind, names in secret.items():
            ids = state["kinds"].get(kind) or game.ruleset.kinds.get(kind, ())
            for eid in ids:
                record = entities[eid]
                fields = [f for f in names if f in record and game.hidden(eid, f, seat)]
                if fields:
                    record = entities[eid] = dict(record)  # records are shared: never change one
                    for f in fields:
                        record[f] = own[f] if f in own else start.get(eid, {}).get(f, record[f])
    return copy


def standings(game) -> dict:
    """How each seat stands, from 0 (below everyone) to 1 (above everyone): the share of the other
    players it is ahead of (a tie counts half), by score once the game is over, else by the
    ruleset's estimate (0.5 for all without one). Only the order matters, not the scale."""
    players = game.players
    values = {p: game.estimate(p) for p in players}
    if len(players) < 2 or None in values.values():
        return dict.fromkeys(players, 1.0 if len(players) < 2 else 0.5)
    return {p: sum(1.0 if values[p] > v else 0.5 if values[p] == v else 0.0
                   for q, v in values.items() if q != p) / (len(players) - 1) for p in players}


def standing(game, seat: str) -> float:
    return standings(game)[seat]


def lead(game, seat: str):
    """How far ``seat``'s estimate (or score) is above the best of the others' (below: < 0)."""
    mine = game.estimate(seat)
    return mine - max((game.estimate(p) for p in game.players if p != seat), default=mine)


class _Node:
    __slots__ = ("children", "visits", "value")

    def __init__(self):
        self.children: dict = {}   # action -> (seat that took it, _Node)
        self.visits = 0
        self.value = 0.0           # sum of the standings of the seat that moved into this node


class Mcts:
    """UCT over imagined copies (information-set MCTS with one tree per decision).

    Each iteration imagines the game afresh, walks down the tree choosing at every decision
    the action with the best upper confidence bound for the seat deciding there (among the
    actions legal in this copy), adds one new node, plays on at random for ``depth`` decisions
    (to the end when the ruleset has no estimate), and credits every node on the way with the
    standing of the seat that moved into it. The answer is the most visited action.
    ``seconds`` > 0 stops early when the time is up (then the choice depends on the machine)."""

    def __init__(self, rng, iterations: int, depth: int, explore: float, seconds: float):
        self.rng, self.iterations, self.depth = rng, iterations, depth
        self.explore, self.seconds = explore, seconds

    def best(self, game, legal: list):
        me = game.current_player
        root = _Node()
        deadline = time.perf_counter() + self.seconds if self.seconds else None
        for _ in range(self.iterations):
            self._iterate(imagine(game, me, self.rng), root)
            if deadline and time.perf_counter() > deadline:
                break
        visits = {a: root.children[a][1].visits for a in legal if a in root.children}
        most = max(visits.values(), default=0)
        return self.rng.choice([a for a in legal if visits.get(a, 0) == most])

    def _iterate(self, game, root: _Node) -> None:
        rng = self.rng
        node, path = root, []
        while not game.is_over:
            legal = game.legal_actions()
            seat = game.current_player
            fresh = [a for a in legal if a not in node.children]
            if fresh:
                action = rng.choice(fresh)
                child = _Node()
                node.children[action] = (seat, child)
                game.apply(action)
                path.append((seat, child))
                break
            log_n = math.log(node.visits + 1)
            action = max(legal, key=lambda a: self._bound(node.children[a][1], log_n))
            game.apply(action)
            node = node.children[action][1]
            path.append((seat, node))
        self._play_on(game)
        credit = standings(game)
        for seat, n in path:
            n.visits += 1
            n.value += credit[seat]
        root.visits += 1

    def _bound(self, child: _Node, log_n: float) -> float:
        return child.value / child.visits + self.explore * math.sqrt(log_n / child.visits)

    def _play_on(self, game) -> None:
        """Random decisions: ``depth`` of them, or to the end without an estimate."""
        limit = self.depth if game.ruleset.program.estimate is not None else math.inf
        done = 0
        while not game.is_over and done < limit:
            game.apply(self.rng.choice(game.legal_actions()))
            done += 1
