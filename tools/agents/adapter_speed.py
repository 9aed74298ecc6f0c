"""Environment steps per second through each agent adapter against the Python API, and the sizes
of the encoding (BENCHMARKS.md keeps the figures):

    python -m railrules.tools.agents.adapter_speed [RULESET...] [--players 3] [--games 3]

Every path plays the same seeded random games (uniform over the legal actions), interleaved game by
game so that a busy machine slows them alike: the Python API (``game.apply``, as the
adapters apply); the encoding alone (the observation vector of the seat to move and the legal
indices: what every adapter adds); PettingZoo's AEC environment, with and without the view in
``infos``, and its parallel environment (each reading the observation of the agent to move);
OpenSpiel (``observation_tensor`` of the player to move, chance nodes drawn at random). A step is
one decision; the overhead is the API's steps per second over the path's.
Needs the optional extra: pip install ".[agents]".
"""
from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets

from railrules.tools.agents.encoding import encoding


def _api(ruleset, players, seed):
    game, rng = ruleset.new_game(players, seed), random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game.decisions


def _encoding(ruleset, players, seed):
    game, rng, code = ruleset.new_game(players, seed), random.Random(seed), encoding(ruleset, players)
    while not game.is_over:
        code.observe(game, game.current_player)
        legal, _ = code.legal(game)
        game.apply(code.action_at(rng.choice(legal)))
    return game.decisions


def _aec(views):
    def play(ruleset, players, seed):
        from railrules.pettingzoo import env
        e, rng = env(ruleset, players, views=views), random.Random(seed)
        e.reset(seed=seed)
        for _ in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            e.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"])))
        return e.game.decisions
    return play


def _parallel(ruleset, players, seed):
    from railrules.pettingzoo import parallel_env
    e, rng = parallel_env(ruleset, players), random.Random(seed)
    obs, infos = e.reset(seed=seed)
    while e.agents:
        mover = infos[e.agents[0]]["to_move"]
        obs, _, _, _, infos = e.step({mover: rng.choice(np.flatnonzero(obs[mover]["action_mask"]))})
    return e.game.decisions


def _openspiel(ruleset, players, seed):
    from railrules.openspiel import game
    state, rng, steps = game(str(ruleset.root), players).new_initial_state(), random.Random(seed), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        state.observation_tensor(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return steps


PATHS = {"python API": _api, "encoding alone": _encoding, "PettingZoo AEC": _aec(True),
         "PettingZoo AEC views=False": _aec(False), "PettingZoo parallel": _parallel, "OpenSpiel": _openspiel}


def measure(name: str, players: int, games: int) -> dict:
    ruleset = load_ruleset(name)
    code = encoding(ruleset, players)      # made once per process, before the clocks start
    for play in PATHS.values():             # a game each first, unmeasured: caches, imports
        play(ruleset, players, 0)
    spent = dict.fromkeys(PATHS, 0.0)
    steps = dict.fromkeys(PATHS, 0)
    for seed in range(1, games + 1):
        for path, play in PATHS.items():    # interleaved: game by game, every path
            start = time.perf_counter()
            steps[path] += play(ruleset, players, seed)
            spent[path] += time.perf_counter() - start
    rate = {p: steps[p] / spent[p] for p in PATHS}
    return {"ruleset": name, "players": players, "games": games, "observation": code.width,
            "actions": code.size, "steps_per_second": {p: round(r) for p, r in rate.items()},
            "overhead": {p: round(rate["python API"] / r, 1) for p, r in rate.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rulesets", nargs="*", help="ruleset names or folders (default: every shipped one)")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    for name in args.rulesets or shipped_rulesets():
        r = measure(name, args.players, args.games)
        if args.json:
            print(json.dumps(r))
            continue
        print(f"{name}, {r['players']} players, {r['games']} games: observation {r['observation']} numbers, "
              f"{r['actions']} actions")
        for path, rate in r["steps_per_second"].items():
            print(f"  {path:<28} {rate:>8} steps/s  overhead x{r['overhead'][path]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
