"""A PettingZoo AEC environment for any ruleset: ``railrules.pettingzoo.env(ruleset, players=...)``.

>>> import railrules
>>> from railrules.interpreter.paths import shipped_rulesets
>>> env = railrules.pettingzoo.env(shipped_rulesets()[0], players=3)   # doctest: +SKIP
>>> env.reset(seed=7)                                                # doctest: +SKIP

Agents are the player ids (``p1``, ``p2``...). Actions are indices into a fixed space made from
the ruleset (:mod:`.encoding` says how labels map to indices; ``env.labels`` lists them).
``observe(agent)`` gives ``{"observation": float32 vector, "action_mask": int8 vector}``: the
vector is the agent's view (secrets of others hidden), encoded as :mod:`.encoding` documents
(``env.describe_observation()`` names each slot). ``infos[agent]`` holds, as of the agent's
last turn to act (and for everyone at the end), the whole structured view (``"view"``), the
legal action labels (``"legal"``) and how many legal actions fall outside the space
(``"unmapped"``). Rewards come at the end, from the standings: a winner gets
1/(number of winners), everybody 1/(number of players) less, so that they sum to 0.
Needs the optional extra: pip install ".[agents]".
"""
from __future__ import annotations

import random

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as err:  # pragma: no cover - the message is the point
    raise ImportError('the PettingZoo environment needs the agents extra: pip install ".[agents]"') from err

from railrules.interpreter import load_ruleset

from .encoding import encoding


def env(ruleset, players: int = 4, variant: str | None = None, render_mode: str | None = None,
        samples: int = 8) -> "RulesEnv":
    """A PettingZoo AEC environment: ``ruleset`` is a shipped name, a folder or a loaded Ruleset."""
    rs = load_ruleset(ruleset, variant) if isinstance(ruleset, str) else ruleset
    return RulesEnv(rs, players, render_mode=render_mode, samples=samples)


def standings_rewards(game) -> dict:
    """Each player's share of the win, less the average, so that the rewards sum to 0."""
    players = game.players
    winners = game.result["winners"] if game.result else []
    return {p: (1 / len(winners) if p in winners else 0.0) - 1 / len(players) for p in players}


class RulesEnv(AECEnv):
    """One ruleset's game as a PettingZoo AEC environment."""

    def __init__(self, ruleset, players: int, render_mode: str | None = None, samples: int = 8):
        super().__init__()
        self.ruleset = ruleset
        self.encoding = encoding(ruleset, players, samples=samples)
        self.metadata = {"name": f"railrules_{ruleset.name}", "render_modes": ["ansi"],
                         "is_parallelizable": False}
        self.render_mode = render_mode
        self.players = players
        self.possible_agents = list(self.encoding.seats)
        self.labels = self.encoding.labels()
        size, width = self.encoding.size, self.encoding.width
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(width,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8)})
            for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.game = None

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def describe_observation(self) -> list[str]:
        return self.encoding.describe()

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.seed_used = seed if seed is not None else random.randrange(1 << 31)
        self.game = self.ruleset.new_game(self.players, self.seed_used)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def _mask(self) -> np.ndarray:
        mask = np.zeros(self.encoding.size, dtype=np.int8)
        mask[self._legal] = 1
        return mask

    def observe(self, agent):
        obs = np.asarray(self.encoding.observe(self.game, agent), dtype=np.float32)
        mask = self._mask() if agent == self.agent_selection and not self.game.is_over \
            else np.zeros(self.encoding.size, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def _after_move(self) -> None:
        """Whose turn it is, the legal indices, and each agent's info, after a move."""
        game = self.game
        if game.is_over:
            self._legal, unmapped, labels = [], 0, []
        else:
            self._legal, unmapped = self.encoding.legal(game)
            labels = [a.label for a in game.legal_actions()]
            if not self._legal:
                raise RuntimeError(f"every legal action ({', '.join(labels)}) falls outside the action "
                                   "space: make the environment with more samples")
            self.agent_selection = game.current_player
        # the structured view of the agent to act (of every agent at the end): a view is a copy
        # of the state, too dear to make for everybody at every step
        for a in self.agents if game.is_over else [self.agent_selection]:
            self.infos[a] = {"view": game.view(a), "legal": labels, "unmapped": unmapped}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if action not in self._legal:
            raise ValueError(f"action {action} ({self.encoding.action_at(action).label}) is not legal for "
                             f"{agent} now; the legal ones are in observe(agent)['action_mask']")
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(self.encoding.action_at(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.is_over:
            self.rewards = standings_rewards(self.game)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        self._after_move()
        self._accumulate_rewards()

    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        from railrules.tools.board_view import board_picture
        return board_picture(self.game)

    def close(self) -> None:
        self.game = None
