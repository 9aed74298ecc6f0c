"""An estimate learned by self-play, for the bots of a ruleset that has no good one of its own.

``learn(ruleset, players)`` plays games with bots, and fits a value model: how each seat stood
when the game ended (the share of the other players it finished ahead of, a tie counting half,
as :func:`tools.bots.search.standings` says), predicted from the position as the seat saw it.
A position is the observation vector the agent adapters are given
(:mod:`railrules.tools.common.encoding`), turned to the seat's point of view: the seat's own
player fields, the mean of the other players', every other field as it is, whether the seat is
to move, and the products of the players' fields with the game's small scalar fields
(:class:`_Features`). The model is linear in these, fitted by ridge regression (numpy, the ``agents`` extra:
``pip install "railrules[agents]"``). Predicting needs no numpy (a model is a map of weights),
but a model missing from the cache must be learned, so ``estimate=learned`` asks for numpy.

A model is kept in the user cache (:mod:`railrules.interpreter.cache`) under the rules' content
hash, the variant and the player count (the last one learned, whatever its settings, which it
keeps): changed rules are learned afresh. ``model(ruleset, players)`` returns the kept one, or
learns it with the default settings.

The first games are played by ``bots`` (default: greedy when the ruleset has an estimate, else
random); with ``rounds`` > 1, each further round's games are played by greedy bots standing by
the model of the round before, and the model is fitted on every round's positions. A share
``explore`` of all decisions is taken at random instead, so that the games show what the bots
alone would never try (a model learns nothing of a field that never changes).
"""
from __future__ import annotations

import pickle
import random
import time
from dataclasses import dataclass

from railrules.interpreter import cache
from railrules.tools.bots.search import standings
from railrules.tools.common.encoding import encoding

INSTALL = 'pip install "railrules[agents]" (or, in a checkout, pip install -e ".[agents]")'
FORMAT = "3"   # changes when a model's content or the way it is learned changes


class LearnError(ValueError):
    """Learning cannot be done here (numpy is missing); says how to install it."""


@dataclass(frozen=True)
class Settings:
    games: int = 40          # games per round
    rounds: int = 2          # rounds of self-play (see the module's docstring)
    bots: str = ""           # the first round's bots ("": greedy with an estimate, else random)
    ridge: float = 0.01      # the ridge penalty, per position (on standardized features)
    seed: int = 1
    explore: float = 0.2     # the share of decisions taken at random instead of by the bots


class Model:
    """A linear value model: ``value(game)`` -> seat -> the predicted final standing (0 to 1)."""

    def __init__(self, ruleset, players: int, weights: dict, bias: float, positions: int,
                 seconds: float, games: int, r2: float, settings: Settings):
        self.players, self.games, self.r2, self.settings = players, games, r2, settings
        self.weights = weights       # feature index -> weight (features of :class:`_Features`)
        self.bias = bias
        self.positions, self.seconds = positions, seconds   # what learning it took (CPU seconds)
        self._features = _Features(ruleset, players)

    def value(self, game) -> dict:
        """Seat -> predicted standing; on a finished game, the scores (as ``game.estimate``)."""
        if game.is_over:
            return game.estimates()
        items = list(self.weights.items())
        out = {}
        for seat, x in self._features.of(game).items():
            out[seat] = self.bias + sum(w * x[i] for i, w in items)
        return out

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_features"}

    def bind(self, ruleset) -> "Model":
        self._features = _Features(ruleset, self.players)
        return self


class _Features:
    """A position as one seat sees it: its own player slots, the mean of the other players'
    slots, every other slot, whether it is the seat to move, and the products of the seat's own
    slots (and of the others' means) with the game's scalar variables and the scalar fields of
    the kinds of at most ``FEW`` entities (what a holding is worth depends on the stage of the
    game and on what it holds a part of: a share on its company's income)."""

    FEW = 12

    def __init__(self, ruleset, players: int):
        self.encoding = enc = encoding(ruleset, players)
        seats = enc.seats
        blocks: dict = {p: [] for p in seats}
        shared: list = []
        scalars: list = []
        counts = {k: len(ids) for k, ids in enc.ids_of.items()}
        for s, slot in zip(enc.slices()[3:], enc.slots):   # after the header: observer, to move, game over
            owner = slot.owner
            (blocks[owner] if owner in blocks else shared).extend(range(s.start, s.stop))
            kind = enc.kind_of.get(owner)
            if owner not in blocks and s.stop == s.start + 1 and slot.form in ("scalar", "single") \
                    and (owner == "globals" or counts.get(kind, self.FEW + 1) <= self.FEW):
                scalars.append(s.start)
        self.seats, self.blocks, self.shared, self.scalars = seats, blocks, shared, scalars
        self.to_move = len(seats)    # the header's "to move" one-hot starts here

    def of(self, game) -> dict:
        """Seat -> its feature vector (a list of floats)."""
        seats = self.seats
        views = self.encoding.observe_seats(game, seats)
        out = {}
        n = len(seats)
        for k, seat in enumerate(seats):
            v = views[seat]
            mine = [v[i] for i in self.blocks[seat]]
            others = [0.0] * len(mine)
            for q in seats:
                if q != seat:
                    for j, i in enumerate(self.blocks[q]):
                        others[j] += v[i] / (n - 1)
            stage = [v[i] for i in self.scalars]
            out[seat] = (mine + others + [v[i] for i in self.shared] + [v[self.to_move + k]]
                         + [a * b for a in mine for b in stage] + [a * b for a in others for b in stage])
        return out


def numpy():
    """numpy, or LearnError saying how to install it."""
    try:
        import numpy as np
    except ImportError:
        raise LearnError(f"a learned estimate needs numpy, which is not installed: {INSTALL}") from None
    return np


def _entry(ruleset, players: int):
    return cache.entry("learned", FORMAT, ruleset.hash, str(ruleset.variant), str(players))


def cached(ruleset, players: int) -> Model | None:
    """The kept model of these rules, variant and players, else None."""
    kept = cache.load(_entry(ruleset, players))
    if kept is None:
        return None
    try:
        model = pickle.loads(kept)
    except Exception:
        return None
    return model.bind(ruleset) if isinstance(model, Model) and model.players == players else None


_MODELS: dict = {}   # (rules hash, variant, players) -> Model, once per process


def model(ruleset, players: int, progress=None) -> Model:
    """The kept model, else one learned now with the default settings (and kept)."""
    key = (ruleset.hash, ruleset.variant, players)
    if key not in _MODELS:
        _MODELS[key] = cached(ruleset, players) or learn(ruleset, players, Settings(), progress)
    return _MODELS[key]


def learn(ruleset, players: int, settings: Settings = Settings(), progress=None) -> Model:
    """Play ``settings.rounds`` rounds of ``settings.games`` games, fit the model, keep it.
    ``progress(done, total)`` is called after every game."""
    np = numpy()
    from railrules.tools.bots.players import GreedyBot, seat_bots   # players imports this module
    start = time.process_time()
    features = _Features(ruleset, players)
    xs: list = []
    ys: list = []
    total = settings.games * settings.rounds
    current: Model | None = None
    first = settings.bots or ("greedy" if ruleset.program.estimate is not None else "random")
    for r in range(settings.rounds):
        for g in range(settings.games):
            seed = settings.seed + r * settings.games + g
            game = ruleset.new_game(players, seed)
            if current is None:
                bots = seat_bots(first, game.players, seed, ruleset)
            else:
                bots = dict.fromkeys(game.players, GreedyBot(seed, estimate=current))
            seen = []
            pick = random.Random(seed)
            while not game.is_over:
                seen.append(features.of(game))
                if pick.random() < settings.explore:
                    game.apply(pick.choice(game.legal_actions()))
                else:
                    game.apply(bots[game.current_player].choose(game))
            final = standings(game)
            for position in seen:
                for seat, x in position.items():
                    xs.append(x)
                    ys.append(final[seat])
            if progress:
                progress(r * settings.games + g + 1, total)
        current = _fit(np, ruleset, players, xs, ys, settings, time.process_time() - start,
                       (r + 1) * settings.games)
    assert current is not None
    cache.store(_entry(ruleset, players), pickle.dumps(current), keep=50)
    _MODELS[ruleset.hash, ruleset.variant, players] = current
    return current


def _fit(np, ruleset, players: int, xs: list, ys: list, settings: Settings, seconds: float,
         games: int) -> Model:
    """Ridge regression on the standardized features that vary (the primal form, or the dual
    when there are more features than positions); the weights given back on the raw features."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    keep = np.flatnonzero(scale > 1e-9)
    z = (x[:, keep] - mean[keep]) / scale[keep]
    yc = y - y.mean()
    n, d = z.shape
    penalty = settings.ridge * max(n, 1)
    if d == 0:
        w = np.zeros(0)
    elif d <= n:
        w = np.linalg.solve(z.T @ z + penalty * np.eye(d), z.T @ yc)
    else:
        w = z.T @ np.linalg.solve(z @ z.T + penalty * np.eye(n), yc)
    raw = w / scale[keep]
    bias = float(y.mean() - raw @ mean[keep])
    weights = {int(i): float(v) for i, v in zip(keep, raw) if v != 0.0}
    spread = float(yc @ yc)
    r2 = 1 - float(((z @ w - yc) ** 2).sum()) / spread if spread > 0 else 0.0
    return Model(ruleset, players, weights, bias, n, seconds, games, r2, settings)


# ------------------------------------------------------------------ the verb: railrules learn
def add_arguments(parser) -> None:
    parser.description = (
        "Play games with bots and fit a value model (ridge regression over the observation vector, "
        "from each seat's point of view) of how each seat finishes; kept in the user cache under the "
        "rules' content hash (changed rules are learned again). mcts:estimate=learned (and mcts, when "
        "the ruleset has no estimate) stands by it. A progress bar on a terminal.")
    parser.add_ruleset()
    parser.add_players()
    parser.add_argument("--games", type=parser.count(1), default=Settings.games,
                        help=f"games per round (default {Settings.games})")
    parser.add_argument("--rounds", type=parser.count(1), default=Settings.rounds,
                        help="rounds: the first played by --bots, each next one by greedy bots standing "
                        f"by the model of the round before (default {Settings.rounds})")
    parser.add_bots("--bots", "--bot", dest="bot", default=None,
                    help="the first round's bots (default greedy when the ruleset has an estimate, else random).")
    parser.add_argument("--ridge", type=float, default=Settings.ridge, help="the ridge penalty per "
                        f"position, on standardized features (default {Settings.ridge})")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    parser.add_argument("--again", action="store_true", help="learn again even if a model learned with "
                        "the same settings is kept (other settings are always learned again)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")


def run(args) -> int:
    import json
    import sys

    from railrules.interpreter import load_ruleset
    from railrules.tools.common import verbs
    from railrules.tools.common.outputs import progress_bar
    ruleset = load_ruleset(args.ruleset, args.variant)
    players = verbs.players(ruleset, args.players)
    settings = Settings(args.games, args.rounds, args.bot or "", args.ridge, args.seed)
    kept = cached(ruleset, players)
    if args.again or (kept is not None and kept.settings != settings):
        kept = None   # learned again: asked to, or with other settings
    fresh = kept is None
    if kept is None:
        try:
            numpy()
        except LearnError as err:
            raise verbs.Usage(str(err)) from None
        bar = progress_bar if sys.stderr.isatty() and not args.json else None
        kept = learn(ruleset, players, settings, bar)
        if bar:
            print(file=sys.stderr)
    per_game = round(kept.seconds / max(kept.games, 1), 3)
    if args.json:
        print(json.dumps({"ruleset": ruleset.name, "variant": ruleset.variant, "players": players,
                          "games": kept.games, "positions": kept.positions, "weights": len(kept.weights),
                          "fit_r2": round(kept.r2, 3), "cpu_seconds": round(kept.seconds, 2),
                          "cpu_seconds_per_game": per_game, "learned_now": fresh}))
        return verbs.EXIT_OK
    print(f"{ruleset.name}{f' ({ruleset.variant})' if ruleset.variant else ''}, {players} players: "
          f"a value model of {len(kept.weights)} weights from {kept.positions} positions of "
          f"{kept.games} self-play games (R² {kept.r2:.2f} on them), "
          f"{'learned' if fresh else 'already kept: learned'} in {kept.seconds:.1f} s of CPU "
          f"({per_game} s a game); kept in the user cache for these rules: the bots use it with "
          "--bots mcts:estimate=learned (and mcts by default when the ruleset has no estimate)")
    return verbs.EXIT_OK
