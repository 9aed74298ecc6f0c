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

from railrules.tools.bots.search import Mcts, imagine, rating, standing


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


class OptionBot(RandomBot):
    """Chooses an option uniformly (bid, pass, build...), then one of its values uniformly:
    a player facing 40 possible bids and a pass passes half the time, not once in 41."""

    def choose(self, game):
        by_option: dict = {}
        for action in game.legal_actions():
            by_option.setdefault(action.name, []).append(action)
        return self.rng.choice(by_option[self.rng.choice(sorted(by_option))])


class GreedyBot(RandomBot):
    """Looks one decision ahead: tries every legal action on an imagined copy of the game and
    takes the one after which the seat stands best: ahead of the most players, then furthest
    ahead of (or least behind) the best of the others; ties at random. It stands by the ruleset's
    ``estimate`` (or the score once the game is over); a ruleset without an estimate has each
    action's result played out to the end ``playouts`` times by random players instead."""
    settings = {"playouts": 4}

    def __init__(self, seed: int, playouts: int = 4):
        super().__init__(seed)
        self.playouts = playouts

    def choose(self, game):
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = game.current_player
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
        leads the best of the others (or trails them)."""
        after = seen.clone()
        after.apply(action)
        if after.is_over or after.estimate(me) is not None:
            return rating(after, me)
        total = 0.0
        for _ in range(self.playouts):
            out = after.clone()
            while not out.is_over:
                out.apply(self.rng.choice(out.legal_actions()))
            total += standing(out, me)
        return total / self.playouts, 0


class MctsBot(RandomBot):
    """Monte Carlo tree search (UCT) over imagined copies of the game (information-set MCTS:
    each iteration imagines the hidden part afresh); with ``keep`` > 0, the part of the tree the
    game went on to is kept for the seat's next decision. See tools/bots/search.py."""
    settings = {"iterations": 200, "depth": 0, "explore": 0.7, "seconds": 0.0, "lead": 0.5,
                "widen": 1.0, "keep": 0.0}

    def __init__(self, seed: int, iterations: int = 200, depth: int = 0, explore: float = 0.7,
                 seconds: float = 0.0, lead: float = 0.5, widen: float = 1.0, keep: float = 0.0):
        super().__init__(seed)
        for name, value in (("lead", lead), ("keep", keep)):
            if value > 1:
                raise BotSpecError(f"mcts: {name} must be between 0 and 1, not {value}")
        self.search = Mcts(self.rng, iterations, depth, explore, seconds, lead, widen, keep)

    def choose(self, game):
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search.best(game, legal)


BOTS = {"random": RandomBot, "options": OptionBot, "greedy": GreedyBot, "mcts": MctsBot}
BOT_HELP = ("random: uniform over legal actions; options: uniform over options, then values; "
            "greedy: the action after which the seat's estimate is best; mcts: tree search "
            "(settings as mcts:iterations=200:depth=0:explore=0.7:seconds=0:lead=0.5:widen=1:keep=0); "
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
        if value < 0 or (isinstance(default, int) and name != "depth" and value < 1):
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
    except (Exception, SystemExit) as err:  # noqa: BLE001 - whatever the user's module raises, it cannot be used
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
    except (Exception, SystemExit) as err:  # noqa: BLE001 - the user's constructor: any failure is a refusal
        raise _refuse(spec, f"{class_name}(seed, {', '.join(f'{k}={v!r}' for k, v in options.items())}) "
                      f"failed: {type(err).__name__}: {err}") from None
    choose = getattr(bot, "choose", None)     # on the bot: a static or class method will do too
    if not callable(choose) or not _takes(choose, 2):
        raise _refuse(spec, "it has no method choose(self, view, legal)")
    return UsersBot(spec, bot)


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
        except (Exception, SystemExit) as err:  # noqa: BLE001 - the user's code: its game stops, said why
            raise BotError(Diagnostic("RR401", f"bot {self.spec} failed in choose: {type(err).__name__}: {err}")) from err
        if action not in legal:
            raise BotError(Diagnostic("RR401", f"bot {self.spec} chose {action!r}, which is not one of "
                                      f"the {len(legal)} legal actions: choose(view, legal) must return one of legal"))
        return action


def seat_bots(specs: str, seats: list, seed: int) -> dict:
    """Seat -> bot. One spec: one bot (seeded ``seed``) plays every seat; a comma-separated list
    gives each seat its own (seat k seeded ``seed + k``), as many specs as seats."""
    parts = specs.split(",")
    if len(parts) == 1:
        bot = make_bot(parts[0], seed)
        return dict.fromkeys(seats, bot)
    if len(parts) != len(seats):
        raise BotSpecError(f"{len(parts)} bots for {len(seats)} seats: give one for all, or one per seat")
    return {s: make_bot(p, seed + k) for k, (s, p) in enumerate(zip(seats, parts))}


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
