"""Bots: players that pick actions without a person.

A bot is made from a spec, ``KIND`` or ``KIND:name=value:...`` (``mcts:iterations=400:depth=8``),
and a seed; the same spec, seed and game give the same choices. Seats are given one spec for all,
or one per seat separated by commas (``mcts,random,random``). Every bot but ``random`` and
``options`` looks at the game only through :func:`tools.bots.search.imagine`: a copy in which what the
seat may not see (other players' secret fields, the future of chance) is replaced by guesses.

**Your own bot** is named ``package.module:Class`` (``package.module:Class:name=value:...``); the
module is imported as Python imports any (the working folder is searched too). The protocol:

- ``Class(seed, **options)`` makes it: ``seed`` is an int (use it for every random choice: same
  seed, same choices); the options are the spec's ``name=value`` items. With a class attribute
  ``settings = {name: default}``, only those names are accepted and each value is converted to
  its default's type; without it, the values are passed as strings.
- ``bot.choose(view, legal)`` returns one of ``legal``: ``view`` is ``game.view(seat)`` (what the
  seat to move, ``view["turn"]``, may see: no other player's secrets, no seed), ``legal`` the
  legal actions (:class:`railrules.Action`: ``.name``, ``.args``, ``.label``). It is never shown
  the game itself.

A spec that cannot be imported or does not follow the protocol is refused (RR401) before any
game starts; a bot that returns something else than a legal action stops its game (RR401).
See ``tools/agents/example_bot.py``.
"""
from __future__ import annotations

import importlib
import inspect
import os
import random
import sys
import time
from typing import Any, Callable

from railrules.interpreter.errors import Diagnostic, RailrulesError

from railrules.tools.bots.search import FOLLOW, Mcts, estimates, followed, imagine, standing, trusting


class BotSpecError(ValueError):
    """A bot spec that names no bot, or a setting it does not have."""


class BotError(RailrulesError):
    """A bot of the user's (``module:Class``) that broke the protocol during a game (RR401)."""


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""
    settings: dict = {}

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, game):
        return self.rng.choice(game.legal_actions())


ESTIMATES = ("auto", "rules", "learned")


class Estimating:
    """What a bot stands by (its ``estimate`` setting): ``rules``, the ruleset's estimate;
    ``learned``, the model learned by self-play for the game's rules and player count
    (tools/bots/learned.py: kept in the user cache, else learned when first needed; needs
    numpy); ``auto``, the ruleset's estimate if it has one, else the learned one (else, without
    numpy, none). A :class:`learned.Model` may be given instead of a name. (The learned module
    is imported when a bot first needs it: a game of random bots never does.) With ``trust``
    other than 1, the ruleset's estimate counts only that share of what it promises above the
    score (search.trusting): a learned estimate predicts standings, not scores, so it takes none."""
    trust = 1.0

    def _estimate_setting(self, estimate, trust: float = 1.0) -> None:
        if isinstance(estimate, str) and estimate not in ESTIMATES:
            raise BotSpecError(f"estimate must be one of {', '.join(ESTIMATES)}, not '{estimate}'")
        if trust != 1 and estimate == "learned":
            raise BotSpecError("trust scales what the ruleset's estimate promises above the score: "
                               "a learned estimate predicts standings, so it takes no trust")
        self.trust = trust
        if estimate == "learned":
            from railrules.tools.bots import learned
            try:
                learned.numpy()
            except learned.LearnError as err:
                raise BotSpecError(f"estimate=learned: {err}") from None
        self.estimate = estimate

    def values(self, game):
        """The seat values the bot stands by in ``game`` (None: the ruleset's estimate)."""
        from railrules.tools.bots import learned
        estimate = self.estimate
        if isinstance(estimate, learned.Model):
            return estimate.value
        has = game.ruleset.program.estimate is not None
        if estimate == "rules" or (estimate == "auto" and has):
            return trusting(self.trust) if self.trust != 1 and has else None
        if estimate == "auto":
            try:
                learned.numpy()
            except learned.LearnError:
                return None
        return learned.model(game.ruleset, len(game.players)).value


class OptionBot(RandomBot):
    """Chooses an option uniformly (bid, pass, build...), then one of its values uniformly:
    a player facing 40 possible bids and a pass passes half the time, not once in 41."""

    def choose(self, game):
        by_option: dict = {}
        for action in game.legal_actions():
            by_option.setdefault(action.name, []).append(action)
        return self.rng.choice(by_option[self.rng.choice(sorted(by_option))])


class GreedyBot(RandomBot, Estimating):
    """Looks one decision ahead: tries every legal action on an imagined copy of the game
    (followed by the seat's own decisions that come right after it, each taken the same way,
    one decision ahead) and takes the one after which the seat stands best: ahead of the most players, then furthest
    ahead of (or least behind) the best of the others; ties at random. It stands by the ruleset's
    ``estimate`` (or the score once the game is over); a ruleset without an estimate has each
    action's result played out to the end ``playouts`` times by random players instead."""
    settings = {"playouts": 4, "estimate": "rules", "trust": 1.0}
    FOLLOW = FOLLOW   # the seat's own decisions followed after the one rated (see _follow)

    def __init__(self, seed: int, playouts: int = 4, estimate="rules", trust: float = 1.0):
        super().__init__(seed)
        self.playouts = playouts
        self._estimate_setting(estimate, trust)
        self._values = None

    def choose(self, game):
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = game.current_player
        self._values = self.values(game)
        seen = imagine(game, me, self.rng)
        best, value = [], None
        for action in legal:
            v = self._value(seen, action, me)
            if value is None or v > value:
                best, value = [action], v
            elif v == value:
                best.append(action)
        return self.rng.choice(best)

    def _value(self, seen, action, me) -> tuple:
        """(standing, lead): the share of players the seat is ahead of, then by how much it
        leads the best of the others (or trails them), once the seat's own decisions that
        follow ``action`` are taken (:meth:`_follow`). A commitment in a round of secret choices
        is rated once the round is revealed: the seats still to commit commit at random,
        ``playouts`` times, and the ratings are averaged."""
        if seen.committing:
            rated = [self._revealed(seen, action, me) for _ in range(self.playouts)]
            return tuple(sum(r[i] for r in rated) / len(rated) for i in range(2))
        after = seen.clone()
        after.apply(action)
        estimated = estimates(after, self._values)   # (once the game is over: the scores)
        if after.is_over or estimated[me] is not None:
            return self._follow(after, me, estimated)
        total = 0.0
        for _ in range(self.playouts):
            out = after.clone()
            while not out.is_over:
                out.apply(self.rng.choice(out.legal_actions()))
            total += standing(out, me)
        return total / self.playouts, 0

    def _follow(self, game, me, estimated: dict | None = None) -> tuple:
        """The rating of ``game`` once the seat's own next decisions are taken (search.followed;
        ``estimated``: the seats' estimates in ``game``, if worked out already)."""
        return followed(game, me, self.FOLLOW, self._values, estimated)[0]

    def _revealed(self, seen, action, me) -> tuple:
        """The rating after committing ``action`` and the others' imagined commitments (random)."""
        after = seen.clone()
        after.apply(action)
        while after.committing and after.decisions == seen.decisions:   # until the reveal
            after.apply(self.rng.choice(after.legal_actions()))
        if after.is_over or estimates(after, self._values)[me] is not None:
            return self._follow(after, me)
        while not after.is_over:
            after.apply(self.rng.choice(after.legal_actions()))
        return standing(after, me), 0


class MctsBot(RandomBot, Estimating):
    """Monte Carlo tree search (UCT) over imagined copies of the game (information-set MCTS:
    each iteration imagines the hidden part afresh); with ``keep`` > 0, the part of the tree the
    game went on to is kept for the seat's next decision; with ``ties`` 1, no tree: greedy's
    choice, its ties broken by playing each tied action on. See tools/bots/search.py."""
    settings = {"iterations": 200, "depth": 0, "explore": 0.7, "seconds": 0.0, "lead": 0.5,
                "widen": 1.0, "keep": 0.0, "follow": 0, "rank": 1, "runs": 0, "answers": 0, "sure": 0.0,
                "estimate": "auto", "trust": 1.0, "playout": "random", "ties": 0}

    def __init__(self, seed: int, iterations: int = 200, depth: int = 0, explore: float = 0.7,
                 seconds: float = 0.0, lead: float = 0.5, widen: float = 1.0, keep: float = 0.0,
                 follow: int = 0, rank: int = 1, runs: int = 0, answers: int = 0, sure: float = 0.0,
                 estimate="auto", trust: float = 1.0, playout: str = "random", ties: int = 0):
        super().__init__(seed)
        self._estimate_setting(estimate, trust)
        for name, value in (("lead", lead), ("keep", keep)):
            if value > 1:
                raise BotSpecError(f"mcts: {name} must be between 0 and 1, not {value}")
        self.search = Mcts(self.rng, iterations, depth, explore, seconds, lead, widen, keep)
        self.search.follow = follow
        self.search.rank = rank
        self.search.runs = bool(runs)
        self.search.answers = bool(answers)
        self.search.sure = sure
        if playout not in ("random", "greedy"):
            raise BotSpecError(f"mcts: playout must be random or greedy, not {playout}")
        self.search.playout = playout
        self.search.ties = bool(ties)

    def choose(self, game):
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.search.values = self.values(game)
        return self.search.best(game, legal)


BOTS = {"random": RandomBot, "options": OptionBot, "greedy": GreedyBot, "mcts": MctsBot}
BOT_HELP = ("random: uniform over legal actions; options: uniform over options, then values; "
            "greedy: the action after which the seat's estimate is best; mcts: tree search "
            "(settings as mcts:iterations=200:depth=0:explore=0.7:seconds=0:lead=0.5:widen=1:keep=0:rank=1"
            ":follow=0:runs=0:answers=0:sure=0:trust=1:playout=random:ties=0; playout=greedy plays the "
            "depth decisions as greedy would, ties=1 searches only among greedy's tied choices); "
            "mcts stands by estimate=auto (the ruleset's estimate, else one learned by self-play: "
            "railrules learn), greedy by estimate=rules (without one: random playouts); either "
            "takes estimate=rules, learned or auto, and trust=T (the share of what the ruleset's "
            "estimate promises above the score that it counts); "
            "your own: package.module:Class[:name=value...] (a class made with (seed, **options) "
            "whose choose(view, legal) returns one of legal); "
            "one for all seats, or one per seat separated by commas (mcts,random,random)")


def make_bot(spec: str, seed: int):
    """The bot a spec names (``KIND``, ``KIND:name=value:...`` or ``module:Class:name=value:...``),
    seeded; BotSpecError if the spec is wrong, saying what would be right."""
    kind, *items = spec.split(":")
    cls = BOTS.get(kind)
    if cls is None and items and "=" not in items[0]:
        return _users_bot(f"{kind}:{items[0]}", items[1:], seed)
    if cls is None:
        raise BotSpecError(f"no bot '{kind}': the bots are {', '.join(BOTS)}, or your own as module:Class")
    values = _settings(kind, cls.settings, items)
    texts = dict(item.partition("=")[::2] for item in items)
    for name, value in values.items():
        default = cls.settings[name]
        if isinstance(default, str):
            continue
        # an int setting whose default is 0 (depth, follow, runs, answers, ties) may be 0; the
        # others count something (iterations, rank, playouts) and must be at least 1
        if value < 0 or (isinstance(default, int) and default > 0 and value < 1):
            raise BotSpecError(f"{kind}: {name} must be {'at least 1' if isinstance(default, int) else '>= 0'}, not {texts[name]}")
    return cls(seed, **values)


def _settings(kind: str, settings: dict, items: list) -> dict:
    """``name=value`` items, each converted to the type of its default in ``settings``."""
    values = {}
    for item in items:
        name, eq, text = item.partition("=")
        if name not in settings or not eq:
            known = ", ".join(f"{k}={v}" for k, v in settings.items()) or "none"
            raise BotSpecError(f"bot '{kind}' has no setting '{item}' (its settings: {known})")
        default = settings[name]
        try:
            values[name] = type(default)(text)
        except ValueError:
            raise BotSpecError(f"{kind}: {name} must be a {type(default).__name__}, not '{text}'") from None
    return values


def _refuse(spec: str, why: str) -> BotSpecError:
    return BotSpecError(f"RR401 bot {spec}: {why} (the protocol: railrules codes RR401)")


def _users_bot(spec: str, items: list, seed: int) -> "UsersBot":
    """A bot of the user's, ``module:Class``, checked against the protocol (RR401 if not)."""
    module_name, _, class_name = spec.partition(":")
    if os.getcwd() not in sys.path:   # as `python -m` does: a module in the working folder
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except BaseException as err:  # whatever the user's module raises, it cannot be used
        _reraise_stop(err)
        raise _refuse(spec, f"cannot import {module_name}: {type(err).__name__}: {err}") from None
    cls = getattr(module, class_name, None)
    if not inspect.isclass(cls):
        raise _refuse(spec, f"{module_name} has no class {class_name}")
    settings = getattr(cls, "settings", None)
    if isinstance(settings, dict):
        try:
            options = _settings(class_name, settings, items)
        except BotSpecError as err:
            raise _refuse(spec, str(err)) from None
    else:
        options = {}
        for item in items:
            name, eq, text = item.partition("=")
            if not eq or not name.isidentifier():
                raise _refuse(spec, f"'{item}' is not name=value")
            options[name] = text
    try:
        make: Callable[..., Any] = cls   # the user's class: any constructor
        bot = make(seed, **options)
    except BaseException as err:  # the user's constructor: any failure is a refusal
        _reraise_stop(err)
        raise _refuse(spec, f"{class_name}(seed, {', '.join(f'{k}={v!r}' for k, v in options.items())}) "
                      f"failed: {type(err).__name__}: {err}") from None
    choose = getattr(bot, "choose", None)     # on the bot: a static or class method will do too
    if not callable(choose) or not _takes(choose, 2):
        raise _refuse(spec, "it has no method choose(self, view, legal)")
    return UsersBot(spec, bot)


def _reraise_stop(err: BaseException) -> None:
    """Raise ``err`` again if it stops the program (Ctrl-C, or a stop railrules raises itself,
    such as a time limit) rather than being the failure of the user's code that it came through:
    a SystemExit or any other exception of the user's ends only its game, with words."""
    if isinstance(err, KeyboardInterrupt) or type(err).__module__.startswith("railrules."):
        raise err


def _takes(function, count: int) -> bool:
    """Whether ``function`` can be called with ``count`` positional arguments."""
    try:
        inspect.signature(function).bind(*range(count))
    except TypeError:
        return False
    except ValueError:   # no signature to read (a builtin): let the call decide
        return True
    return True


class UsersBot:
    """A bot of the user's behind the built-ins' interface: it is shown the view of the seat to
    move and the legal actions, never the game."""

    def __init__(self, spec: str, bot):
        self.spec, self.bot = spec, bot

    def choose(self, game):
        legal = game.legal_actions()
        try:
            action = self.bot.choose(game.view(game.current_player), list(legal))
        except BaseException as err:  # the user's code: its game stops, said why
            _reraise_stop(err)
            raise BotError(Diagnostic("RR401", f"bot {self.spec} failed in choose: {type(err).__name__}: {err}")) from err
        if action not in legal:
            raise BotError(Diagnostic("RR401", f"bot {self.spec} chose {action!r}, which is not one of "
                                      f"the {len(legal)} legal actions: choose(view, legal) must return one of legal"))
        return action


def seat_bots(specs: str, seats: list, seed: int, ruleset=None) -> dict:
    """Seat -> bot. One spec: one bot (seeded ``seed``) plays every seat; a comma-separated list
    gives each seat its own (seat k seeded ``seed + k``), as many specs as seats. With
    ``ruleset``, each built-in bot takes the settings the ruleset declares for its kind first
    (:func:`declared`)."""
    parts = as_played(specs, ruleset).split(",")
    if len(parts) == 1:
        bot = make_bot(parts[0], seed)
        return dict.fromkeys(seats, bot)
    if len(parts) != len(seats):
        raise BotSpecError(f"{len(parts)} bots for {len(seats)} seats: give one for all, or one per seat")
    return {s: make_bot(p, seed + k) for k, (s, p) in enumerate(zip(seats, parts))}


def declared(spec: str, ruleset) -> str:
    """``spec`` with the settings ``ruleset`` declares for its kind of bot (ruleset.yaml's
    ``bots: {mcts: "answers=1:trust=0.5"}``: how the game's bots play it best) put before its
    own, so that the spec's win (a setting given twice takes the last): ``mcts`` there is
    ``mcts:answers=1:trust=0.5``, ``mcts:trust=1`` is ``mcts:answers=1:trust=0.5:trust=1``.
    A declared setting the bot does not have is refused, saying where it comes from."""
    kind, _, own = spec.partition(":")
    items = ((ruleset.meta.get("bots") or {}).get(kind) if ruleset is not None else None)
    if not items:
        return spec
    refused = _refusal(kind, items)
    if refused:
        raise BotSpecError(f"{_declared_at(ruleset, kind).file}, bots: {kind}: {refused}")
    return f"{kind}:{items}" + (f":{own}" if own else "")


def lint_bots(ruleset) -> list[Diagnostic]:
    """RR215 for each kind of bot whose settings ``ruleset`` declares (ruleset.yaml ``bots:``)
    and that cannot be made with them, at the setting's place in the file."""
    return [Diagnostic("RR215", f"bots: {kind}: {refused}", _declared_at(ruleset, kind))
            for kind, items in (ruleset.meta.get("bots") or {}).items()
            if (refused := _refusal(kind, items))]


def _declared_at(ruleset, kind: str):
    """Where the settings of ``kind`` that ``ruleset`` plays with are written: in the last of its
    overlays (ruleset.yaml with ``extends:``) that declares them, else in its base's ruleset.yaml."""
    places = [at for role, at in ruleset.meta_places.items() if role.startswith("overlay ") and at.has("bots", kind)]
    return (places[-1] if places else ruleset.meta_places["ruleset"]).of("bots", kind)


def _refusal(kind: str, items: str) -> str | None:
    """Why a ``kind`` bot cannot be made with the declared settings ``items``, else None."""
    try:
        make_bot(f"{kind}:{items}", 0)
    except BotSpecError as err:
        return str(err)
    return None


def as_played(specs: str, ruleset) -> str:
    """``specs`` (comma-separated) as the bots play ``ruleset``: each with the settings the
    ruleset declares for its kind (:func:`declared`), for reports to say what played."""
    return ",".join(declared(spec, ruleset) for spec in specs.split(","))


def check_specs(specs: str) -> str:
    """``specs`` if every spec in it makes a bot (for argparse: a wrong one is a usage error)."""
    for spec in specs.split(","):
        make_bot(spec, 0)
    return specs


def play_out(game, bots: dict, forced: bool = False, clock: dict | None = None) -> None:
    """Play ``game`` to the end, ``bots[seat]`` choosing for each seat; with ``forced``, a decision
    with only one legal action is applied without asking the bot. With ``clock`` (a dict), each
    seat's ``[seconds spent choosing, choices]`` is added up in it."""
    while not game.is_over:
        if forced:
            legal = game.legal_actions()
            if len(legal) == 1:
                game.apply(legal[0])
                continue
        seat = game.current_player
        if clock is None:
            game.apply(bots[seat].choose(game))
            continue
        start = time.perf_counter()
        action = bots[seat].choose(game)
        spent = clock.setdefault(seat, [0.0, 0])
        spent[0] += time.perf_counter() - start
        spent[1] += 1
        game.apply(action)
