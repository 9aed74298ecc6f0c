"""A learning smoke test: a small policy learns to beat the random bot from nothing but
the PettingZoo environment's observations, action masks and rewards.

The policy is linear and softmax over the legal actions (the mask): logits = b + W·(obs / scale),
starting at zero (so it begins as the random bot). It is trained by REINFORCE with a running
baseline on two-player Chicago Express games against the random bot (seats alternating), then
plays new games (other seeds) against it; the Wilson 95 % interval of its win rate (scipy's) must
exclude 0.5. Seeded: the same run gives the same result. numpy only; about a minute alone.
"""
from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason='the agents extra is not installed: pip install ".[agents]"')
pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
scipy_stats = pytest.importorskip("scipy.stats")

TRAIN, PLAY = 300, 100


class Policy:
    def __init__(self, width: int, size: int, seed: int):
        self.w, self.b = np.zeros((width, size)), np.zeros(size)
        self.scale = np.ones(width)   # the largest magnitude seen per number: inputs within [-1, 1]
        self.rng = np.random.default_rng(seed)

    def act(self, observation, mask) -> tuple:
        np.maximum(self.scale, np.abs(observation), out=self.scale)
        x, legal = observation / self.scale, np.flatnonzero(mask)
        logits = self.b[legal] + x @ self.w[:, legal]
        p = np.exp(logits - logits.max())
        p /= p.sum()
        i = int(self.rng.choice(len(legal), p=p))
        return int(legal[i]), (x, legal, p, i)

    def learn(self, steps: list, advantage: float, rate_b: float = 0.3, rate_w: float = 0.02) -> None:
        for x, legal, p, i in steps:
            grad = -p
            grad[i] += 1      # d log p(i) / d logits
            self.b[legal] += rate_b * advantage * grad
            self.w[:, legal] += rate_w * advantage * np.outer(x, grad)


def play(env, policy: Policy, me: str, seed: int, opponent) -> tuple[bool, list]:
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if agent == me:
            action, step = policy.act(obs["observation"], obs["action_mask"])
            steps.append(step)
        else:   # the random bot: uniform over the legal actions
            action = int(opponent.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return env.seat_of[me] in env.game.result["winners"], steps


@pytest.mark.slow
def test_a_small_policy_learns_to_beat_the_random_bot():
    from railrules.pettingzoo import env as make_env
    env = make_env("chicago_express", players=2, views=False)
    policy = Policy(env.encoding.width, env.encoding.size, seed=1)
    opponent = np.random.default_rng(2)
    baseline = 0.5
    for g in range(TRAIN):
        won, steps = play(env, policy, env.possible_agents[g % 2], 1000 + g, opponent)
        policy.learn(steps, float(won) - baseline)
        baseline = 0.98 * baseline + 0.02 * float(won)
    wins = sum(play(env, policy, env.possible_agents[g % 2], 50_000 + g, opponent)[0] for g in range(PLAY))
    interval = scipy_stats.binomtest(wins, PLAY).proportion_ci(confidence_level=0.95, method="wilson")
    assert interval.low > 0.5, f"won {wins} of {PLAY} against the random bot: {interval}"


def test_the_maskable_ppo_examples_environment_passes_gymnasiums_checks():
    """tools/agents/train_maskable_ppo.py trains with sb3-contrib (PyTorch: not installed in CI);
    its one-seat environment is checked here with gymnasium's checks (all of check_env's but the
    step checks, which play unmasked random actions: illegal ones are refused), then played to the
    end with its masks through gymnasium's passive step checker."""
    from gymnasium.utils import env_checker as checks
    from gymnasium.utils.passive_env_checker import env_step_passive_checker

    from railrules.tools.agents.train_maskable_ppo import OneSeat
    env = OneSeat("chicago_express", players=2)
    checks.check_observation_space(env.observation_space)
    checks.check_action_space(env.action_space)
    checks.check_reset_return_type(env)
    checks.check_reset_seed_determinism(env)
    checks.check_reset_options(env)
    rng = np.random.default_rng(3)
    for episode in range(1):
        obs, _ = env.reset(seed=episode)
        assert env.env.agent_selection == env.me
        over, moves = False, 0
        while not over:
            mask = env.action_masks()
            assert mask.any() and obs.shape == env.observation_space.shape
            obs, reward, over, _, _ = env_step_passive_checker(env, int(rng.choice(np.flatnonzero(mask))))
            moves += 1
        assert moves > 10 and reward in (0.5, -0.5, 0.0)
