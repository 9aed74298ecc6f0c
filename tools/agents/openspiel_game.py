"""An OpenSpiel game for any ruleset, registered with pyspiel as ``python_railrules``.

>>> import pyspiel, railrules                                          # doctest: +SKIP
>>> from railrules.interpreter.paths import shipped_rulesets
>>> name = shipped_rulesets()[0]                                         # any ruleset name or folder
>>> game = railrules.openspiel.game(name, players=3)                    # doctest: +SKIP
>>> game = pyspiel.load_game("python_railrules", {"ruleset": name, "players": 3})  # doctest: +SKIP

- Players are the seats in order (0 is ``p1``). Actions are the indices of :mod:`.encoding`
  (``game.labels`` lists them); ``legal_actions()`` are ascending.
- Chance: every draw of the rules (``draw x from xs``) is a chance node whose outcomes are the
  positions in the list, each as likely; nothing else is random. The draws are not taken from
  the seed (the game's ``chance`` hook asks this state), so OpenSpiel decides them.
- Information: the information state string of a player is their view (others' secret fields
  hidden) and every move so far (moves are public in every shipped game); the observation
  string is the view alone; the observation tensor is :mod:`.encoding`'s vector.
- Returns at the end from the standings: a winner gets 1/(number of winners), everybody
  1/(number of players) less (zero-sum).
- Secret choices: a ruleset with ``choose secretly`` is OpenSpiel's simultaneous-move game type.
  A round of secret choices is a simultaneous node (``current_player()`` is
  ``PlayerId.SIMULTANEOUS``): each seat still to commit has its legal actions, every other seat
  the one action ``wait`` (the last index, ``game.labels[-1]``), and ``apply_actions`` commits
  them all, so the round is revealed in the same step. Every other decision is a node of one
  player, as in the sequential type, which every other ruleset keeps.
- Returns are terminal; perfect information unless the ruleset has secret fields. An OpenSpiel
  MCTS bot searches the real state (it sees the secrets).
Needs the optional extra: pip install ".[agents]".
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

try:
    import numpy as np
    import pyspiel
except ImportError as err:  # pragma: no cover - the message is the point
    raise ImportError('the OpenSpiel game needs the agents extra: pip install ".[agents]"') from err

from railrules.interpreter import load_ruleset
from railrules.interpreter.runtime.values import MAX_LIST

from railrules.tools.common.encoding import Encoding, encoding
from railrules.tools.agents.pettingzoo_env import standings_rewards

if TYPE_CHECKING:
    from railrules.interpreter.engine.game import Game

SHORT_NAME = "python_railrules"
WAIT_LABEL = "wait"
_PARAMS = {"ruleset": "", "players": 0, "variant": "", "samples": 8}


def _game_type(information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
               chance=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
               dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="railrules: any ruleset (ruleset=NAME or folder, players=N)",
        dynamics=dynamics, chance_mode=chance, information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=64, min_num_players=1,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_PARAMS)


def game(ruleset: str, players: int, variant: str = "", samples: int = 8) -> "RulesGame":
    """The OpenSpiel game of a ruleset (a shipped name or a folder)."""
    return pyspiel.load_game(SHORT_NAME, {"ruleset": ruleset, "players": players, "variant": variant,
                                          "samples": samples})


class _NeedChance(BaseException):
    """A draw that OpenSpiel has not decided yet: the action is taken back (the transaction
    rolls back on any exception) and the state becomes a chance node with ``n`` outcomes."""

    def __init__(self, n: int):
        self.n = n


def _uses(ruleset, found) -> bool:
    """Whether any rule of ``ruleset`` holds a node for which ``found(node)`` is true."""
    from railrules.interpreter.dsl.nodes import walk
    return any(found(x) for d in ruleset.definitions for x in walk(d))


def _has_draws(ruleset) -> bool:
    from railrules.interpreter.dsl import nodes as n
    return _uses(ruleset, lambda x: isinstance(x, n.Draw))


def _has_secret_choices(ruleset) -> bool:
    from railrules.interpreter.dsl import nodes as n
    return _uses(ruleset, lambda x: isinstance(x, n.Choose) and x.secret is not None)


class RulesGame(pyspiel.Game):
    def __init__(self, params=None):
        params = {**_PARAMS, **(params or {})}
        if not params["ruleset"] or params["players"] < 1:
            raise ValueError(f"{SHORT_NAME} needs ruleset=NAME (a shipped ruleset or a folder) and players=N")
        ruleset = load_ruleset(params["ruleset"], params["variant"] or None)
        players = int(params["players"])
        coding = encoding(ruleset, players, samples=int(params["samples"]))
        simultaneous = _has_secret_choices(ruleset)
        info = pyspiel.GameInfo(
            num_distinct_actions=coding.size + simultaneous, max_chance_outcomes=MAX_LIST,
            num_players=players, min_utility=-1 / players, max_utility=1 - 1 / players,
            utility_sum=0.0, max_game_length=2 * ruleset.decision_budget)
        kind = _game_type(
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION if ruleset.meta.get("secret")
            else pyspiel.GameType.Information.PERFECT_INFORMATION,
            chance=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if _has_draws(ruleset)
            else pyspiel.GameType.ChanceMode.DETERMINISTIC,
            dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous
            else pyspiel.GameType.Dynamics.SEQUENTIAL)
        super().__init__(kind, info, params)   # before any attribute: pybind11 sets the object up
        self.ruleset, self.players, self.encoding = ruleset, players, coding
        self.labels = coding.labels() + ([WAIT_LABEL] if simultaneous else [])
        # in a simultaneous game, the action of a seat that is not asked in a round of secret choices
        self.wait = coding.size if simultaneous else None

    def new_initial_state(self):
        return RulesState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return RulesObserver(self.encoding)


class RulesState(pyspiel.State):
    game: Game | None          # None while the setup waits for its first draw
    _moves: list[str]
    _pending: tuple | None     # (action or None for the setup, its seat, outcomes so far, n)
    _seen: dict                # seat -> the view as text, until the next move
    _legal: dict | None        # seat -> its legal indices, until the next move

    def __init__(self, game: RulesGame, copy_of: "RulesState | None" = None):
        super().__init__(game)
        if copy_of is not None:  # (no game yet while the setup waits for its first draw)
            self.game = copy_of.game.clone() if copy_of.game is not None else None
            self._pending = copy_of._pending
            self._moves = list(copy_of._moves)
            self._legal = copy_of._legal
            self._seen = copy_of._seen
            return
        self.game = None
        self._moves = []
        self._pending = None
        self._seen = {}
        self._legal = None
        self._try(None, [])

    # ---------------------------------------------------------------- chance
    def _try(self, action, outcomes: list[int], seat: str | None = None) -> None:
        """Take ``action`` (None: set the game up; ``seat``: the seat that commits it in a round
        of secret choices) with the draws decided so far; a draw beyond them makes this a chance
        node."""
        script = iter(outcomes)
        self._seen = {}

        def chance(n: int) -> int:
            for x in script:
                return x
            raise _NeedChance(n)

        try:
            if action is None:
                self.game = game = self.get_game().ruleset.new_game(self.get_game().players, 0, chance=chance)
            else:
                game = self.game
                assert game is not None  # an action comes after the setup
                game.machine.chance = chance
                try:
                    game.apply(action, player=seat)
                finally:
                    game.machine.chance = None
            self._pending = None
            self._legal = None
        except _NeedChance as need:
            self._pending = (action, seat, outcomes, need.n)

    # ---------------------------------------------------------------- the pyspiel API
    def _simultaneous(self) -> bool:
        """Whether this is a round of secret choices (in a game of the simultaneous type)."""
        return self.get_game().wait is not None and self.game is not None and self.game.committing

    def current_player(self):
        if self._pending is not None:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self._simultaneous():
            return pyspiel.PlayerId.SIMULTANEOUS
        return self.get_game().encoding.seats.index(self.game.current_player)

    def _legal_actions(self, player):
        if self._pending is not None or self.game.is_over:
            return []
        if self._legal is None:
            coding = self.get_game().encoding
            self._legal = {seat: coding.legal(self.game, seat)[0] for seat in self.game.deciding}
        seat = self.get_game().encoding.seats[player]
        if seat in self._legal:
            return list(self._legal[seat])
        return [self.get_game().wait] if self._simultaneous() else []

    def chance_outcomes(self):
        n = self._pending[3]
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action):
        if self._pending is not None:
            what, seat, outcomes, _ = self._pending
            self._moves.append(f"draw {action}")
            self._try(what, outcomes + [int(action)], seat)
        else:
            act = self.get_game().encoding.action_at(int(action))
            self._moves.append(act.label)
            self._try(act, [])

    def _apply_actions(self, actions):
        """A round of secret choices: every seat still to commit commits its action (the
        others' ``wait`` is ignored); the last commitment reveals them all."""
        coding = self.get_game().encoding
        deciding = self.game.deciding
        for player, action in enumerate(actions):
            seat = coding.seats[player]
            if seat in deciding and int(action) not in self._legal_actions(player):
                raise ValueError(f"action {action} ({self._action_to_string(player, action)}) is not "
                                 f"legal for player {player} in this round of secret choices")
        commits = [(coding.seats[i], coding.action_at(int(a))) for i, a in enumerate(actions)
                   if coding.seats[i] in deciding]
        for seat, act in commits:
            self._moves.append(f"{seat}: {act.label}")
            self._try(act, [], seat)
            if self._pending is not None:   # the reveal draws: the last commitment waits for chance
                break

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {action}"
        return self.get_game().labels[action]

    def is_terminal(self):
        return self._pending is None and self.game.is_over

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.get_game().players
        rewards = standings_rewards(self.game)
        return [rewards[p] for p in self.get_game().encoding.seats]

    def information_state_string(self, player):
        return f"{self.observation_string(player)}\nmoves: {' | '.join(self._moves)}"

    def observation_string(self, player):
        seat = self.get_game().encoding.seats[player]
        if self.game is None:  # the setup draws before there is anything to see
            return ""
        if seat not in self._seen:
            self._seen[seat] = json.dumps(self.game.view(seat), sort_keys=True)
        return self._seen[seat]

    def observation_tensor(self, player):
        if self.game is None:  # the setup draws before there is anything to see
            return [0.0] * self.get_game().encoding.width
        return self.get_game().encoding.observe(self.game, self.get_game().encoding.seats[player])

    def __str__(self):
        if self.game is None:
            return "setting up: drawing"
        return json.dumps(self.game.view(None), sort_keys=True)

    def clone(self):
        return RulesState(self.get_game(), copy_of=self)

    def __deepcopy__(self, memo):
        return self.clone()


class RulesObserver:
    """OpenSpiel's Python observer: the :mod:`.encoding` vector, and the view as a string."""

    def __init__(self, encoding: Encoding):
        self.encoding = encoding
        self.tensor = np.zeros(encoding.width, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: RulesState, player: int) -> None:
        self.tensor[:] = state.observation_tensor(player)

    def string_from(self, state: RulesState, player: int) -> str:
        return state.observation_string(player)


pyspiel.register_game(_game_type(), RulesGame)
