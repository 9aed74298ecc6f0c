"""Search for bots: imagined copies of a game, how a seat stands, and Monte Carlo tree search.

A bot must decide on what its seat may see (``game.view(seat)``), not on the real state. So it
searches copies made by :func:`imagine`: the future of chance is drawn afresh (the copy gets a
generator state of the bot's own), and every field hidden from the seat is drawn from what the
seat sees (:func:`imagine` says how). Two games that differ only in what the seat cannot see
give the same imagined copies, so the bot's choices cannot depend on it.
"""
from __future__ import annotations

import math
import time
from itertools import repeat
from operator import is_, itemgetter
from fractions import Fraction

from railrules.interpreter.runtime.values import Action
from railrules.interpreter.errors import Pos


def imagine(game, seat: str, rng):
    """A copy of ``game`` as ``seat`` may picture it, each hidden field drawn afresh from ``rng``.

    For each secret field of a kind (``secret`` in ruleset.yaml), the values hidden from the seat
    are drawn as the ruleset's ``guess`` for that field says, read from the copy once every hidden
    value in it is replaced by its point guess (so the draw never reads the truth):

    - ``total: EXPR``: the field's sum over the kind's entities is public (a rules expression,
      such as what left a public pile); the hidden values share what the visible ones leave of
      it, every split into whole numbers from ``low`` to ``high`` (if given) equally likely.
    - else each hidden value is a whole number drawn uniformly between ``low`` and ``high``
      (expressions or numbers). Undeclared, ``low`` is 0 and ``high`` is ``2 * mean - low``,
      with ``mean`` the point guess: the prior has the mean of what the seat knows.

    The point guess is the mean (rounded down) of the field's values the seat sees in entities
    of the same kind (another player's secret cash: my own), else the entity's value when the
    ruleset starts. A value that is no whole number, a total the visible values already exceed
    (or that 1,000 draws could not split under ``high``), or a ``high`` below ``low``, keeps the
    point guess. A ruleset whose legal actions depend on a secret value declares the bounds
    within which the game goes on (a hidden value past them can leave a player no option). The paused rules' locals are kept as they
    are: a ruleset should keep secrets in secret fields. In an open round of secret choices, each
    other seat's commitment is drawn uniformly from its legal actions (who has committed is
    public; what, not)."""
    return _imagined(game, seat, rng, None)


def _imagined(game, seat: str, rng, hidden: dict | None):
    """:func:`imagine`, with ``hidden`` (:func:`_hidden` of the game and seat) if known: the same
    for every copy of one game imagined by one seat (the point guesses read no draw), so a search
    works it out once for all its copies."""
    copy = game.clone()
    copy.state["rng"] = rng.getrandbits(64)
    if game.ruleset.program.secret_choices:   # the others' pending commitments: drawn afresh
        copy.imagine_commitments(seat, rng.choice)
        hidden = None   # (read on the copy, as the commitments left it)
    if hidden is None:
        hidden = _hidden(game, copy, seat)
    if not hidden:
        return copy
    entities = copy.state["entities"]
    for (kind, f), unseen in hidden.items():
        for e, value in unseen:
            _put(entities, e, f, value)
    guesses = game.ruleset.meta.get("guess") or {}
    for (kind, f), unseen in hidden.items():
        drawn = _draw(copy, guesses.get(kind, {}).get(f, {}), kind, f, unseen, rng)
        for (e, _), value in zip(unseen, drawn):
            _put(entities, e, f, value)
    return copy


def _hidden(game, copy, seat: str) -> dict:
    """(kind, field) -> [(entity, its point guess)] for each secret field's values in ``copy``
    (a copy of ``game``) hidden from ``seat`` (:func:`imagine`)."""
    secret = game.ruleset.meta.get("secret")
    hidden: dict = {}
    if not secret:
        return hidden
    entities = copy.state["entities"]
    for kind, fields in secret.items():
        ids = copy.state["kinds"].get(kind) or game.ruleset.kinds.get(kind, ())
        for f in fields:
            unseen = [e for e in ids if f in entities[e] and game.hidden(e, f, seat)]
            if unseen:
                known = [entities[e][f] for e in ids if f in entities[e] and e not in unseen]
                hidden[kind, f] = [(e, _point(game, kind, e, f, known)) for e in unseen]
    return hidden


_TRIES = 1000  # draws of a split of a public total before a bot keeps the point guesses


def _put(entities: dict, eid: str, field: str, value) -> None:
    entities[eid] = {**entities[eid], field: value}  # records are shared: never change one


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _point(game, kind: str, eid: str, field: str, known: list):
    """The mean of the visible values (rounded down), else the entity's starting value."""
    if known and all(map(_whole, known)):
        return sum(known) // len(known)   # floor of the exact mean, made without a fraction
    if known and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in known):
        return Fraction(sum(known), len(known))
    start = game.ruleset.start["player"] if kind == "players" else game.ruleset.entities.get(eid, {})
    return start.get(field)


def _draw(copy, guess: dict, kind: str, field: str, unseen: list, rng) -> list:
    """The drawn values of ``field`` for ``unseen`` ([(entity, point guess)]), in order."""
    points = [v for _, v in unseen]
    if not all(map(_whole, points)):
        return points
    where = f"{kind}.{field}"
    low = _bound(copy, guess, "low", where, 0)
    if "total" in guess:
        entities, hidden, n = copy.state["entities"], {e for e, _ in unseen}, len(unseen)
        ids = copy.state["kinds"].get(kind) or copy.ruleset.kinds.get(kind, ())
        seen = sum(entities[e][field] for e in ids if field in entities[e] and e not in hidden)
        left = _bound(copy, guess, "total", where, None) - seen - low * n
        high = _bound(copy, guess, "high", where, None)
        if not _whole(left) or left < 0:
            return points
        for _ in range(_TRIES):  # a split with a part above high is drawn again
            # stars and bars: n - 1 bars among left + n - 1 places, every split equally likely
            edges = [-1, *sorted(rng.sample(range(left + n - 1), n - 1)), left + n - 1]
            split = [low + edges[i + 1] - edges[i] - 1 for i in range(n)]
            if high is None or max(split) <= high:
                return split
        return points
    out = []
    for point in points:
        high = _bound(copy, guess, "high", where, 2 * point - low)
        out.append(rng.randint(low, high) if _whole(low) and _whole(high) and low <= high else point)
    return out


def _bound(copy, guess: dict, key: str, where: str, default):
    """The value of ``guess[key]`` (a number, or a rules expression read on ``copy``)."""
    text = guess.get(key)
    if text is None or not isinstance(text, str):
        return default if text is None else text
    pos = Pos(f"{copy.ruleset.root}/ruleset.yaml: guess.{where}.{key}", 1, 1)
    return copy.compile_expression(text, (), pos)()


def estimates(game, values=None) -> dict:
    """Seat -> its estimate: by ``values(game)`` (seat -> value: a learned estimate) if given
    and the game is not over, else by the ruleset's (the score once the game is over)."""
    if values is None or game.is_over:
        return game.estimates()
    return values(game)


def trusting(trust: float):
    """Seat values that count only ``trust`` of what the ruleset's estimate promises above the
    score: ``score + trust * (estimate - score)``, the score as the game stands (Game.scores; the
    final scores once it is over). Below 1, a bot wary of promises (shares whose dividends
    depend on what others will build); above 1, one that counts them more. Without an estimate,
    none (the bots then play out to the end)."""
    def value(game) -> dict:
        promised = game.estimates()
        if game.is_over:
            return promised
        held = game.scores()
        return {p: None if e is None else held[p] + trust * (e - held[p]) for p, e in promised.items()}
    return value


def standings(game, values=None) -> dict:
    """How each seat stands, from 0 (below everyone) to 1 (above everyone): the share of the other
    players it is ahead of (a tie counts half), by score once the game is over, else by the
    estimate (:func:`estimates`; 0.5 for all without one). Only the order matters, not the scale."""
    return _standings(game.players, estimates(game, values))


def _unknown(values: dict) -> bool:
    """Whether a value is None (asked by identity: a fraction compared with None is slow)."""
    return any(map(is_, values.values(), repeat(None)))


def _standings(players, values: dict) -> dict:
    n = len(players)
    if n < 2 or _unknown(values):
        return dict.fromkeys(players, 1.0 if n < 2 else 0.5)
    return {p: a / (n - 1) for p, a in zip(players, _ahead([values[p] for p in players]))}


def _ahead(values: list) -> list:
    """For each value, how many of the others it is above, a tie counting half: each pair
    compared once."""
    n = len(values)
    ahead = [0.0] * n
    for i in range(n - 1):
        a = values[i]
        for j in range(i + 1, n):
            b = values[j]
            if a > b:
                ahead[i] += 1.0
            elif a == b:
                ahead[i] += 0.5
                ahead[j] += 0.5
            else:
                ahead[j] += 1.0
    return ahead


def credits(game, weight: float, values=None) -> dict:
    """What the search credits each seat with for how a game stands, from 0 to 1: with
    ``weight`` 0 its standing (:func:`standings`); else ``(1 - weight) * standing + weight *
    (1 + tanh(lead / scale)) / 2``, where lead is how far the seat's estimate is above the best
    of the others' and scale the players' mean estimate in absolute value. Rank
    alone gives every action the same credit when a seat trails (or leads) by more than a
    short search can change, and the search then plays at random; the lead term, bounded and
    smooth, still tells the better action from the worse. Without an estimate: the standing.
    ``values``: as :func:`estimates`. (Once an iteration of the search: the standings and
    leads worked out together, each value read once, the best and runner-up found by a sort.)"""
    players = game.players
    values = estimates(game, values)
    n = len(players)
    if weight <= 0 or n < 2 or _unknown(values):
        return _standings(players, values)
    mine = [values[p] for p in players]
    ahead = _ahead(mine)
    ordered = sorted(mine)
    best, runner = ordered[-1], ordered[-2]   # (equal when two seats share the lead)
    scale = float(sum(map(abs, values.values()))) / n or 1.0
    tanh, others, out = math.tanh, n - 1, {}
    for p, v, a in zip(players, mine, ahead):
        out[p] = (1 - weight) * (a / others) + weight * (1 + tanh((v - (runner if v == best else best)) / scale)) / 2
    return out


def _leads(values: dict) -> dict:
    """Seat -> how far its value is above the best of the others' (below: < 0)."""
    top, best = max(values.items(), key=itemgetter(1))   # (the first of the highest)
    runner = max((v for p, v in values.items() if p != top), default=best)
    return {p: v - (runner if p == top else best) for p, v in values.items()}


def standing(game, seat: str) -> float:
    return standings(game)[seat]


def rating(game, seat: str, values=None) -> tuple:
    """(standing, lead) of ``seat``, each estimate read once: how the greedy bot compares the
    results of its actions, and the order in which the search tries them. ``values``: as
    :func:`estimates`."""
    return _rating(game.players, estimates(game, values), seat)


def _rating(players: list, values: dict, seat: str) -> tuple:
    """:func:`rating` by the seats' estimates ``values``."""
    ahead = 0 if values[seat] is None else _leads(values)[seat]
    return _standings(players, values)[seat], ahead


class _Node:
    __slots__ = ("children", "visits", "value", "order", "ranked", "legal", "open", "kids",
                 "seen", "seat", "run")

    def __init__(self):
        self.children: dict = {}   # action -> (seat that took it, _Node)
        self.visits = 0
        self.value = 0.0           # sum of the credits of the seat that moved into this node
        self.order: list | None = None  # the actions in the order they are tried, once known
        self.ranked = False        # whether that order is the look-ahead's (and the node widens)
        # the legal actions of the last copy that came here, and those of order among them: the
        # next copy mostly has the same ones (then order has nothing to add and they are reused)
        self.legal: list | None = None
        self.open: list = []
        self.kids: list = []       # the children of the first actions of open, as many as have one
        # the search (Mcts.searches) whose kept game at this node (read only) legal was last
        # listed from: in that search, legal, seat and run hold as they are
        self.seen = 0
        self.seat = ""             # who decides here, in the last copy that came here
        self.run = False           # whether that seat takes its best rated action only


_GAMES_KEPT = 4096   # games kept at nodes in one decision (tens of kB each): past it, walks replay


def _copy(game, seed: int):
    """A copy of ``game`` with generator state ``seed``."""
    copy = game.clone()
    copy.state["rng"] = seed
    return copy


def _game_key(game) -> tuple:
    """What tells one game from another that may have the same history."""
    state = game.state
    return state["hash"], state["variant"], state["players"], state["seed"]


def _scale(node: _Node, factor: float) -> None:
    """Multiply the visits and credits of ``node`` and all below it by ``factor``."""
    stack = [node]
    while stack:
        n = stack.pop()
        n.visits *= factor
        n.value *= factor
        stack.extend(child for _, child in n.children.values())


FOLLOW = 6   # the seat's own decisions greedy follows after the one it rates (:func:`followed`)


def followed(game, seat: str, steps: int, values=None, estimated: dict | None = None) -> tuple:
    """(rating, game) once ``seat``'s own decisions that come next (the hexes of a build it has
    begun, the first bid of an auction it has opened) are taken, up to ``steps`` of them, each
    the one after which it stands best one decision ahead (ties: the first): what an action only
    begins is rated by where it leads, not by the nothing it changes (greedy and mcts's follow).
    ``estimated``: the seats' estimates in ``game`` (:func:`estimates`), if worked out already.
    (``game`` itself is rated only when no decision is followed.)"""
    value = None
    for _ in range(steps):
        if game.is_over or game.current_player != seat:
            break
        best = None
        for action in game.legal_actions():
            after = game.clone()
            after.apply(action)
            v = rating(after, seat, values)
            if best is None or v > best[0]:
                best = (v, after)
        assert best is not None   # a seat to move has a legal action
        value, game = best
    if value is None:
        value = rating(game, seat, values) if estimated is None else _rating(game.players, estimated, seat)
    return value, game


def _best_rated(game, legal: list, values, rng):
    """The game after the action its deciding seat rates best one decision ahead (:func:`rating`;
    ties: at random)."""
    seat = game.current_player
    best, top = [], None
    for action in legal:
        after = game.clone()
        after.apply(action)
        v = rating(after, seat, values)
        if top is None or v > top:
            best, top = [after], v
        elif v == top:
            best.append(after)
    return best[0] if len(best) == 1 else rng.choice(best)


class Mcts:
    """UCT over imagined copies (information-set MCTS with one tree per decision).

    Each iteration imagines the game afresh and walks down the tree. At the root, at the
    searching seat's next decision if it is the one to decide right after, and at every node
    fewer than ``rank`` decisions below the root whoever decides there (``rank`` 1: the root
    alone), the actions are put in the order a one-decision look-ahead rates them for the seat
    deciding (the greedy bot's rating: standing, then lead, by the estimate; ties at random),
    and a node visited n times may have ``ceil(widen * sqrt(n + 1))`` children: while it has
    fewer, the next action in that order becomes a new child and the walk stops. (Rating every
    action at every node costs a decision's width in estimates per node: measured, up to eight
    times as long a search.) Elsewhere, and with ``widen`` 0 or without an estimate, the actions
    are tried in random order, each once before any twice: where another seat answers with
    many actions (an auction's bids), a short search tries each answer about once, and so
    credits an action as if that seat answered at random; with ``rank`` 2 or more its first
    answers are the ones it rates best. With ``answers``, below the root every other seat has
    one child, the answer it rates best (the search branches on its own seat's choices alone,
    ordered at every depth); with ``runs``, so has a seat deciding again right after its own
    decision (the next hex of a build it has begun), instead of having the explored follow-ups
    averaged into the action that began the run. With ``follow``, the order looks through the
    seat's own next decisions, as greedy does. Once every allowed action has a child, the walk goes on
    to the child with the best upper confidence bound for the seat deciding there (among the
    actions legal in this copy). From the new node it plays on at random for ``depth`` decisions
    (to the end when the ruleset has no estimate; with ``playout`` "greedy", each of those
    decisions is the one its seat rates best one decision ahead, ties at random: the seats play
    on as greedy bots would, not at random) and credits every node on the way with what
    the seat that moved into it gets (:func:`credits`, ``lead`` its weight). The answer is the most visited action
    (ties: the best credited, then the first in order). With ``sure`` > 0 the root is ordered as
    the greedy bot rates (through the seat's own next decisions, up to ``FOLLOW``), and the
    answer is the first in that order unless the most visited action has at least ``sure`` times
    its visits: where the seat's choice moves its credit by less than the noise of the others'
    imagined answers (a seat far behind, a build that pays a few hexes on), the search gives
    every action about as many visits and most visited is a draw among near equals; the search
    then keeps the look-ahead's choice, and overrules it only where it clearly found better.
    With ``ties`` there is no tree: the answer is the greedy bot's choice, and where greedy
    rates several actions first (the estimate cannot tell them apart), each of them is played
    on from the same imagined copies and the best credited is taken (:meth:`_tie_broken`): a
    search that departs from greedy only where greedy has no reason for its choice, and judges
    the departure by how the game goes on (with ``playout`` "greedy": as greedy bots play it).
    Without an estimate (the ruleset's or ``values``) there is no greedy choice, and the tree
    search runs as without ``ties``.
    ``seconds`` > 0 stops early when the time is up (then the choice depends on the machine).

    With ``keep`` > 0 the tree outlives the decision: at the seat's next decision in the same
    game (same ruleset, players and seed, and the history then begins with the history now), the
    actions played since are followed down the tree, and the node they lead to, if the search
    had made it (and the seat decides there), is the new root, its statistics multiplied by
    ``keep`` (1: as they are); ``iterations`` more are run on it. Elsewhere the tree is dropped.
    The actions followed are the ones every seat saw played: the choice still depends only on
    what the seat saw. One tree is kept per seat (one bot may play every seat).

    A ruleset with nothing ``secret`` is searched faster, with the same trees and choices: its
    imagined copies differ only in their generator state, which no rule reads, so the game as
    it stands at a node reached with no draw is kept for the decision, and a walk copies the
    deepest one it reaches (``reuse``; False replays every walk from an imagined copy)."""

    reuse = True   # keep the games at nodes when nothing is secret (False: replay every walk)
    follow = 0     # at a new node, the decisions of the seat that moved into it taken greedily first
    runs = False   # below the root, a seat's decisions that follow its own: the best rated only
    answers = False  # below the root, the other seats' decisions: the best rated only
    rank = 1       # nodes fewer decisions than this below the root are ordered by look-ahead
    sure = 0.0     # how many times the look-ahead's first's visits another needs to be chosen (0: off)
    ties = False   # no tree: greedy's choice, its ties broken by playing on (:meth:`_tie_broken`)
    playout = "random"  # how the ``depth`` decisions from a new node are taken: "random" or "greedy"
    values = None  # seat values of a game instead of the ruleset's estimate (:func:`estimates`)

    def __init__(self, rng, iterations: int, depth: int, explore: float, seconds: float,
                 lead: float = 0.0, widen: float = 0.0, keep: float = 0.0):
        self.rng, self.iterations, self.depth = rng, iterations, depth
        self.explore, self.seconds, self.lead, self.widen = explore, seconds, lead, widen
        self.keep = keep
        self.trees: dict = {}  # seat -> (the game's key, its history at the root, the root)
        self.kept = 0          # the visits the last search's root started with (0: afresh)
        self.searches = 0      # how many searches this one is (a node's ``seen``)
        self._root: _Node | None = None   # the root of the search under way

    def best(self, game, legal: list):
        me = game.current_player
        if self.ties and self._estimated(game):
            return self._tie_broken(game, legal, me)
        root = self._root = self._kept_root(game, me)
        self.kept = root.visits
        self.searches += 1
        deadline = time.perf_counter() + self.seconds if self.seconds else None
        # Nothing secret: every imagined copy is the game with a generator state of its own, and
        # the copies go down the tree alike until chance is drawn. So the game as it stands at a
        # node reached with no draw is kept (at), and an iteration copies the deepest one it
        # reaches instead of replaying the actions from the root: the same states, the same
        # choices, a copy instead of each replayed action.
        secret = game.ruleset.meta.get("secret") or game.ruleset.program.secret_choices
        at = None if secret or not self.reuse else {root: game.clone()}
        hidden = _hidden(game, game, me)
        for _ in range(self.iterations):
            if at is None:
                self._iterate(root, me, _imagined(game, me, self.rng, hidden))
            else:
                self._iterate(root, me, None, at, self.rng.getrandbits(64))  # as imagine draws it
            if deadline and time.perf_counter() > deadline:
                break
        if self.keep > 0:
            self.trees[me] = (_game_key(game), list(game.state["history"]), root)
        rank = {a: i for i, a in enumerate(root.order or ())}
        tried = [a for a in legal if a in root.children]
        if not tried:
            return self.rng.choice(legal)

        def merit(a):
            child = root.children[a][1]
            return child.visits, child.value / max(child.visits, 1), -rank.get(a, len(rank))
        chosen = max(tried, key=merit)
        first = root.order[0] if self.sure > 0 and root.ranked and root.order else None
        if first in tried and root.children[chosen][1].visits < self.sure * root.children[first][1].visits:
            return first   # not visited clearly more often than the look-ahead's choice
        return chosen

    def _kept_root(self, game, me: str) -> _Node:
        """The node of the seat's kept tree the actions played since lead to, else a new one."""
        kept = self.trees.pop(me, None)
        if kept is None:
            return _Node()
        key, before, node = kept
        history = game.state["history"]
        if key != _game_key(game) or history[:len(before)] != before:
            return _Node()
        for entry in history[len(before):]:
            step = node.children.get(Action(entry[0], tuple(entry[1:])))
            if step is None:
                return _Node()
            node = step[1]
        if any(seat != me for seat, _ in node.children.values()):
            return _Node()  # in the imagined games another seat decided here
        if self.keep < 1:
            _scale(node, self.keep)
        if not node.ranked:
            node.order = node.legal = None  # ordered afresh, as a new root would be
        return node

    def _iterate(self, root: _Node, me: str, game, at: dict | None = None, seed: int = 0) -> None:
        """One walk down from ``root`` and its credits. ``game``: the iteration's imagined copy;
        None: ``at`` holds the game at nodes reached with no draw (read only), and the copy is
        made from the deepest one the walk reaches, with generator state ``seed``."""
        node = root
        path: list[tuple[str, _Node]] = []
        here = game if at is None else at[root]   # the game at node: the copy once it is made
        rank, runs, answers, widen, searches = self.rank, self.runs, self.answers, self.widen, self.searches
        while not here.is_over:
            if game is not None or node.seen != searches:   # (else listed from the kept game here)
                legal = here.legal_actions()
                seat = here.current_player
                below = len(path)
                # fewer than rank decisions below the root (whoever decides), and the seat's next one
                planning = below < rank or (seat == me and (below < 2 or answers))
                # below the root, a seat that goes on with a run of its own decisions (the hexes of a
                # build it has begun; runs), or any other seat (answers), takes the action it rates
                # best one decision ahead
                run = below > 0 and ((runs and path[-1][0] == seat) or (answers and seat != me))
                self._update_actions(node, here, legal, seat, planning, run)
                node.seat, node.run, node.seen = seat, run, searches if game is None else 0
            seat, candidates, kids = node.seat, node.open, node.kids
            width = len(candidates)
            if node.ranked and width > 1:   # a node widens with its visits
                width = min(width, 1 if node.run else math.ceil(widen * math.sqrt(node.visits + 1)))
            children = node.children
            while len(kids) < width:   # the children of the first actions, as many as have one
                entry = children.get(candidates[len(kids)])
                if entry is None:
                    break
                kids.append(entry[1])
            if len(kids) < width:   # the next action in order: a new child, and the walk stops
                fresh = candidates[len(kids)]
                child = _Node()
                children[fresh] = (seat, child)
                if game is None:
                    game = here = _copy(here, seed)
                game.apply(fresh)
                path.append((seat, child))
                # kept when no draw was made since the root (and while there is room)
                if at is not None and game.state["rng"] == seed and len(at) < _GAMES_KEPT:
                    at[child] = game if self._still(game, seat) else game.clone()
                break
            i = self._select(kids, width, math.log(node.visits + 1))
            action, node = candidates[i], kids[i]
            path.append((seat, node))
            if game is None:   # then ``at`` holds the kept games (see the docstring)
                assert at is not None
                if node in at:
                    here = at[node]
                    continue
                game = here = _copy(here, seed)
            game.apply(action)
        here = self._play_on(here, path[-1][0] if path else None)
        credit = credits(here, self.lead, self.values)
        for seat, n in path:
            n.visits += 1
            n.value += credit[seat]
        root.visits += 1

    def _still(self, game, mover) -> bool:
        """Whether :meth:`_play_on` leaves ``game`` as it is."""
        return game.is_over or (self.depth == 0 and self._estimated(game)
                                and not (self.follow and game.current_player == mover))

    def _estimated(self, game) -> bool:
        """Whether positions of ``game`` have an estimate (the ruleset's, or ``values``)."""
        return self.values is not None or game.ruleset.program.estimate is not None

    def _update_actions(self, node: _Node, game, legal: list, seat: str, planning: bool, run: bool) -> None:
        """Bring the node's actions up to date with this copy's ``legal`` ones: its order (made
        on the first visit), and ``open``, the legal actions in that order, whose first ones
        the walk may try (one in a ``run``; as many as the node's width allows when it is
        ranked); ``kids`` start again when they change."""
        order = node.order
        if order is None:
            node.ranked = (planning or run) and self.widen > 0 and len(legal) > 1 and self._estimated(game)
            follow = 0 if run else FOLLOW if self.sure > 0 and node is self._root else self.follow
            order = node.order = (self._order(game, legal, seat, follow) if node.ranked
                                  else self.rng.sample(legal, len(legal)))
        elif len(legal) > 1 and legal != node.legal:
            known = set(order)
            order.extend(a for a in legal if a not in known)  # imagined chance may differ
        if legal != node.legal:
            here = set(legal)
            node.open = [a for a in order if a in here] if len(legal) > 1 else legal
            node.legal = legal
            node.kids = []

    def _order(self, game, legal: list, seat: str, follow: int) -> list:
        """The legal actions, best first for ``seat`` by a one-decision look-ahead, through the
        seat's own decisions that come right after (up to ``follow`` of them, as greedy rates
        them: :func:`followed`); ties in random order."""
        rated = self._rated(game, legal, seat, follow)
        return sorted(rated, key=rated.__getitem__, reverse=True)

    def _rated(self, game, legal: list, seat: str, follow: int) -> dict:
        """Action -> its look-ahead rating (as :meth:`_order` rates), the actions in random order."""
        def rate(action):
            after = game.clone()
            after.apply(action)
            if follow:
                return followed(after, seat, follow, self.values)[0]
            return rating(after, seat, self.values)
        return {a: rate(a) for a in self.rng.sample(legal, len(legal))}

    def _tie_broken(self, game, legal: list, me: str):
        """Greedy's choice, its ties broken by playing on (``ties``): the actions the look-ahead
        rates first (through the seat's own next decisions, up to ``FOLLOW``: greedy's choices);
        if more than one, each is played on (:meth:`_play_on`) from the same ``iterations``
        imagined copies, and the one with the best mean credit is taken (ties: the first in a
        random order). The same draws for each action: their credits differ by the action, not
        by luck."""
        hidden = _hidden(game, game, me)
        rated = self._rated(_imagined(game, me, self.rng, hidden), legal, me, FOLLOW)
        top = max(rated.values())
        tied = [a for a, r in rated.items() if r == top]
        if len(tied) == 1:
            return tied[0]
        totals = dict.fromkeys(tied, 0.0)
        for _ in range(self.iterations):
            world = _imagined(game, me, self.rng, hidden)
            for action in tied:
                after = world.clone()
                after.apply(action)
                totals[action] += credits(self._play_on(after, me), self.lead, self.values)[me]
        return max(tied, key=totals.__getitem__)

    def _select(self, kids: list, n: int, log_n: float) -> int:
        """The index of the first of the ``n`` first ``kids`` with the best upper confidence
        bound: its mean credit plus ``explore * sqrt(log_n / visits)``."""
        explore, sqrt = self.explore, math.sqrt
        best, top = 0, -math.inf
        for i, child in enumerate(kids[:n] if len(kids) > n else kids):
            visits = child.visits
            bound = child.value / visits + explore * sqrt(log_n / visits)
            if bound > top:
                best, top = i, bound
        return best

    def _play_on(self, game, mover):
        """The game to credit: ``game`` after ``depth`` random decisions (to the end without
        an estimate); with ``follow`` (and ``depth`` 0), after the decisions the seat that moved
        into the new node takes next (a build's hexes), up to ``follow`` of them, each the one
        after which it stands best one decision ahead: what an action only begins is credited
        by where it leads."""
        estimated = self._estimated(game)
        if self.follow and self.depth == 0 and estimated:
            return followed(game, mover, self.follow, self.values)[1]
        limit = self.depth if estimated else math.inf
        done = 0
        greedy = self.playout == "greedy" and estimated
        while not game.is_over and done < limit:
            legal = game.legal_actions()
            if greedy and len(legal) > 1:
                game = _best_rated(game, legal, self.values, self.rng)
            else:
                game.apply(self.rng.choice(legal))
            done += 1
        return game
