"""PettingZoo environments for any ruleset: ``from railrules.pettingzoo import env, parallel_env``.

>>> from railrules.pettingzoo import env                             # doctest: +SKIP
>>> from railrules.interpreter.paths import shipped_rulesets
>>> aec = env(shipped_rulesets()[0], players=3)                      # doctest: +SKIP
>>> aec.reset(seed=7)                                                # doctest: +SKIP

Agents are ``player_0``, ``player_1``... (PettingZoo's convention), in seat order; the game's own
name of the seat (``p1``...) is ``infos[agent]["seat"]``. Actions are indices into a fixed space
made from the ruleset (:mod:`.encoding` says how labels map to indices; ``env.labels`` lists
them). ``observe(agent)`` gives ``{"observation": float32 vector, "action_mask": int8 vector}``:
the vector is the agent's view (secrets of others hidden), encoded as :mod:`.encoding` documents
(``env.describe_observation()`` names each slot; ``railrules observe RULESET`` lists them); the
mask is all zero but for the agent to move. ``infos[agent]`` holds the seat's name and, as of
the agent's last turn to act (and for everyone at the end), the whole structured view
(``"view"``), the legal action labels (``"legal"``), the same in the game's words
(``"described"``: 'bid 8 — bid this much for the share; 8 is the amount Player 1 bids', as the
agent to move reads them) and how many legal actions fall outside the space (``"unmapped"``);
``views=False`` leaves the view and the words out (a view is a copy of the state: it
can cost more than the game's step and the observation together). Rewards come at the end, from
the standings: a winner gets 1/(number of winners), everybody 1/(number of players) less, so that
they sum to 0.

``parallel_env`` is the same game in PettingZoo's Parallel API: the games are turn-based (one
seat decides at a time), so each step every live agent may send an action but only the one of
the agent to move (``infos[agent]["to_move"]``, the one whose mask is not all zero) is played;
the others' are ignored (send anything, or nothing). It is there for libraries that take only
parallel environments; the AEC ``env`` is the natural form of these games.
Needs the optional extra: pip install ".[agents]".
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as err:  # pragma: no cover - the message is the point
    raise ImportError('the PettingZoo environment needs the agents extra: pip install ".[agents]"') from err

from railrules.interpreter import load_ruleset

from railrules.tools.common.encoding import encoding
from railrules.tools.common import words

if TYPE_CHECKING:
    from railrules.interpreter.engine.game import Game


def _load(ruleset, variant):
    return load_ruleset(ruleset, variant) if isinstance(ruleset, str) else ruleset


def env(ruleset, players: int = 4, variant: str | None = None, render_mode: str | None = None,
        samples: int = 8, views: bool = True) -> "RulesEnv":
    """A PettingZoo AEC environment: ``ruleset`` is a shipped name, a folder or a loaded Ruleset."""
    return RulesEnv(_load(ruleset, variant), players, render_mode=render_mode, samples=samples, views=views)


def parallel_env(ruleset, players: int = 4, variant: str | None = None, render_mode: str | None = None,
                 samples: int = 8, views: bool = True) -> "RulesParallelEnv":
    """The same game as a PettingZoo Parallel environment (only the agent to move's action counts)."""
    return RulesParallelEnv(_load(ruleset, variant), players, render_mode=render_mode, samples=samples,
                            views=views)


def standings_rewards(game) -> dict:
    """Each player's share of the win, less the average, so that the rewards sum to 0."""
    players = game.players
    winners = game.result["winners"] if game.result else []
    return {p: (1 / len(winners) if p in winners else 0.0) - 1 / len(players) for p in players}


class _Rules:
    """What both environments share: the encoding, the spaces, the agents' names, the game."""

    def _setup(self, ruleset, players: int, render_mode: str | None, samples: int, parallel: bool,
               views: bool) -> None:
        self.ruleset, self.views = ruleset, views
        self.encoding = encoding(ruleset, players, samples=samples)
        self.metadata = {"name": f"railrules_{ruleset.name}", "render_modes": ["ansi"],
                         "is_parallelizable": parallel}
        self.render_mode = render_mode
        self.players = players
        self.seat_of = {f"player_{i}": seat for i, seat in enumerate(self.encoding.seats)}
        self.agent_of = {seat: agent for agent, seat in self.seat_of.items()}
        self.possible_agents = list(self.seat_of)
        self.labels = self.encoding.labels()
        size, width = self.encoding.size, self.encoding.width
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(width,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8)})
            for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.game: Game | None = None
        self._legal: list = []

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def describe_observation(self) -> list[str]:
        return self.encoding.describe()

    def _new_game(self, seed: int | None) -> None:
        self.seed_used = seed if seed is not None else random.randrange(1 << 31)
        self.game = self.ruleset.new_game(self.players, self.seed_used)
        self.agents = list(self.possible_agents)
        self.infos = {a: {"seat": self.seat_of[a]} for a in self.agents}

    @property
    def playing(self) -> Game:
        """The game that reset() started."""
        if self.game is None:
            raise RuntimeError("no game: reset() starts one")
        return self.game

    def _to_move(self) -> str | None:
        seat = self.playing.current_player
        return None if self.playing.is_over or seat is None else self.agent_of[seat]

    def _mover(self) -> str:
        """The agent to move in a game that is not over."""
        agent = self._to_move()
        if agent is None:
            raise RuntimeError("the game is over: nobody moves")
        return agent

    def _observe(self, agent, vector: list | None = None):
        if vector is None:
            vector = self.encoding.observe(self.playing, self.seat_of[agent])
        mask = np.zeros(self.encoding.size, dtype=np.int8)
        if agent == self._to_move():
            mask[self._legal] = 1
        return {"observation": np.asarray(vector, dtype=np.float32), "action_mask": mask}

    def _after_move(self) -> None:
        """The legal indices and each agent's info after a move (or the start)."""
        game = self.playing
        if game.is_over:
            self._legal, unmapped, labels = [], 0, []
        else:
            self._legal, unmapped = self.encoding.legal(game)
            labels = [a.label for a in game.legal_actions()]
            if not self._legal:
                raise RuntimeError(f"every legal action ({', '.join(labels)}) falls outside the action "
                                   "space: make the environment with more samples")
        # the structured view of the agent to act (of every agent at the end): a view is a copy
        # of the state, too dear to make for everybody at every step
        for a in self.agents if game.is_over else [self._mover()]:
            seat = self.seat_of[a]
            self.infos[a] = {"seat": seat, "legal": labels, "unmapped": unmapped}
            if self.views:
                self.infos[a]["view"] = game.view(seat)
                if labels:   # each legal action in the game's words, for an agent that reads
                    self.infos[a]["described"] = [words.option_text(game, x) for x in game.legal_actions()]

    def _play(self, agent, action) -> None:
        action = int(action)
        if action not in self._legal:
            raise ValueError(f"action {action} ({self.encoding.action_at(action).label}) is not legal for "
                             f"{agent} now; the legal ones are in observe(agent)['action_mask']")
        self.playing.apply(self.encoding.action_at(action))

    def _commit(self, agent, action) -> None:
        """The commitment of ``agent``, not the agent asked first, in a round of secret choices."""
        seat = self.seat_of[agent]
        action = int(action)
        if action not in self.encoding.legal(self.playing, seat)[0]:
            raise ValueError(f"action {action} ({self.encoding.action_at(action).label}) is not legal for "
                             f"{agent} now; the legal ones are in its observation's action_mask")
        self.playing.apply(self.encoding.action_at(action), player=seat)

    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        from railrules.tools.pictures.board_view import board_picture
        return board_picture(self.game)

    def close(self) -> None:
        self.game = None


class RulesEnv(_Rules, AECEnv):
    """One ruleset's game as a PettingZoo AEC environment."""

    def __init__(self, ruleset, players: int, render_mode: str | None = None, samples: int = 8,
                 views: bool = True):
        AECEnv.__init__(self)
        self._setup(ruleset, players, render_mode, samples, parallel=False, views=views)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._after_move()
        self.agent_selection = self._mover()

    def observe(self, agent):
        return self._observe(agent)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._play(agent, action)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.playing.is_over:
            self.rewards = {self.agent_of[p]: r for p, r in standings_rewards(self.playing).items()}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = self._mover()
        self._after_move()
        self._accumulate_rewards()


class RulesParallelEnv(_Rules, ParallelEnv):
    """One ruleset's game as a PettingZoo Parallel environment: every step plays the action of
    the agent to move (``infos[agent]["to_move"]``); the other agents' actions are ignored. In a
    round of secret choices every agent still to commit (``infos[agent]["deciding"]``) moves at
    once: each has its action mask, and a step commits the action of each of them."""

    def __init__(self, ruleset, players: int, render_mode: str | None = None, samples: int = 8,
                 views: bool = True):
        self._setup(ruleset, players, render_mode, samples, parallel=True, views=views)
        self.agents = []

    def _deciding(self) -> list:
        """The agents that move in the next step: those still to commit in a round of secret
        choices, else the agent to move."""
        game = self.playing
        if game.is_over:
            return []
        return [self.agent_of[s] for s in game.deciding] if game.committing else [self._mover()]

    def _report(self) -> tuple[dict, dict]:
        mover = self._to_move()
        deciding = self._deciding()
        for a in self.agents:
            self.infos[a]["to_move"] = mover
            if len(deciding) > 1 or self.playing.committing:
                self.infos[a]["deciding"] = deciding
            else:
                self.infos[a].pop("deciding", None)
        vectors = self.encoding.observe_seats(self.playing, [self.seat_of[a] for a in self.agents])
        obs = {a: self._observe(a, vectors[self.seat_of[a]]) for a in self.agents}
        for a in deciding:
            if a != mover:   # another agent still to commit: its own legal actions
                obs[a]["action_mask"][self.encoding.legal(self.playing, self.seat_of[a])[0]] = 1
        return obs, {a: self.infos[a] for a in self.agents}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        self._after_move()
        return self._report()

    def step(self, actions: dict):
        mover = self._to_move()
        if mover is None:
            raise ValueError("the game is over: reset() starts another")
        deciding = self._deciding()
        for agent in deciding:
            if actions.get(agent) is None:
                raise ValueError(f"no action for {agent}, an agent to move (infos[agent]['to_move'], "
                                 "and in a round of secret choices infos[agent]['deciding'])")
        for agent in deciding:   # (commitments: in any order, the same game)
            if agent == self._to_move():
                self._play(agent, actions[agent])
            else:
                self._commit(agent, actions[agent])
            self._after_move()
        over = self.playing.is_over
        rewards = dict.fromkeys(self.agents, 0.0)
        if over:
            rewards = {self.agent_of[p]: r for p, r in standings_rewards(self.playing).items()}
        obs, infos = self._report()
        done = dict.fromkeys(self.agents, over)
        truncated = dict.fromkeys(self.agents, False)
        if over:
            self.agents = []
        return obs, rewards, done, truncated, infos
