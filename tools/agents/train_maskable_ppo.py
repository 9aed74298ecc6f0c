"""Train a MaskablePPO agent (sb3-contrib) on any ruleset against random bots: an example for
those who install it. CI does not run the training: sb3-contrib brings PyTorch (gigabytes); the
tests check the one-seat environment below with gymnasium's own checker instead.

    pip install ".[agents]" sb3-contrib
    python -m railrules.tools.agents.train_maskable_ppo RULESET --players 2 --steps 200000 --out ppo.zip

The learner plays one seat (the seats rotate from game to game) and random bots the others; its
observation and action mask are those of the PettingZoo environment (``railrules observe RULESET``
lists what the numbers mean); its reward comes at the end, from the standings (1 - 1/players for
a lone winner, -1/players for a loser). At the end it plays ``--games`` new games against the random
bots and prints its win rate with a Wilson 95 % interval.
"""
from __future__ import annotations

import argparse

try:
    import gymnasium
    import numpy as np
except ImportError as err:  # pragma: no cover - the message is the point
    raise ImportError('the example needs the agents extra: pip install ".[agents]"') from err

from railrules.tools.agents.pettingzoo_env import env as make_env
from railrules.tools.agents.pettingzoo_env import standings_rewards


class OneSeat(gymnasium.Env):
    """A ruleset's game as a single-agent gymnasium environment: the learner's seat, the other
    seats played by random bots; ``action_masks()`` for MaskablePPO."""

    def __init__(self, ruleset, players: int = 2, variant: str | None = None):
        self.env = make_env(ruleset, players, variant, views=False)
        width, size = self.env.encoding.width, self.env.encoding.size
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (width,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(size)
        self.episode, self._mask = 0, np.zeros(size, dtype=np.int8)
        self.me: str | None = None   # the learner's agent, from reset()

    def _until_my_turn(self):
        """Random bots play until the learner is to move or the game is over."""
        env = self.env
        while not env.game.is_over and env.agent_selection != self.me:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(self.np_random.choice(np.flatnonzero(mask))))
        obs = env.observe(self.me)
        self._mask = obs["action_mask"]
        return obs["observation"]

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.me = self.env.possible_agents[self.episode % len(self.env.possible_agents)]
        self.episode += 1
        self.env.reset(seed=int(self.np_random.integers(1 << 31)))
        return self._until_my_turn(), {}

    def step(self, action):
        self.env.step(int(action))
        obs = self._until_my_turn()
        over = self.env.game.is_over
        reward = standings_rewards(self.env.game)[self.env.seat_of[self.me]] if over else 0.0
        return obs, float(reward), over, False, {}

    def action_masks(self):
        return self._mask.astype(bool)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ruleset", help="a shipped ruleset's name or a ruleset folder")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=200_000, help="the learner's decisions to train on")
    p.add_argument("--games", type=int, default=200, help="games against the random bots afterwards")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="save the trained model here (.zip)")
    args = p.parse_args(argv)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        p.error("needs sb3-contrib: pip install sb3-contrib")
    from railrules.tools.lab.stats import wilson
    env = OneSeat(args.ruleset, args.players)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.steps)
    if args.out:
        model.save(args.out)
    wins = 0
    obs, _ = env.reset(seed=args.seed + 1)
    for _ in range(args.games):
        over = False
        while not over:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, over, _, _ = env.step(action)
        wins += reward > 0
        obs, _ = env.reset()
    low, high = wilson(wins, args.games)
    print(f"won {wins} of {args.games} against random bots: {wins / args.games:.0%} "
          f"(95 % interval {low:.0%}..{high:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
