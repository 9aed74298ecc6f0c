"""`railrules bench`: the engine's figures per ruleset, on one core.

Each figure is measured, never asserted (tests do not time anything): random playouts per
second and decisions per game (from `simulate`; the games' CPU time beside their wall time,
and whether the machine was busy: tools/common/clock.py), each bot's choices per second and seconds
spent choosing per game, microseconds per decision, a clone of a
mid-game state and that state's memory (tools/lab/memory.py), an action applied and undone, a warm load+compile of
the ruleset and the cold start of `railrules play` (to its first prompt), and the cold start of
the command (`railrules list`, which loads every ruleset); then the median time to lint them all.
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from railrules.interpreter import load_ruleset

from railrules.tools.common.clock import describe as describe_time
from railrules.tools.lab.bytecodes import count
from railrules.tools.lab.memory import allocated, deep_size
from railrules.tools.lab.simulate import simulate


def _per_call_us(fn, seconds: float = 0.3) -> float:
    """Median microseconds of one call of fn(), over batches for about ``seconds``."""
    samples: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(samples) < 5:
        t = time.perf_counter()
        for _ in range(20):
            fn()
        samples.append((time.perf_counter() - t) / 20 * 1e6)
    return round(statistics.median(samples), 1)


def _mid_game(ruleset, players: int, seed: int):
    """A game played at random for half of a typical game's decisions."""
    game = ruleset.new_game(players, seed)
    rng = random.Random(seed)
    probe = ruleset.new_game(players, seed)
    while not probe.is_over:
        probe.apply(rng.choice(probe.legal_actions()))
    rng = random.Random(seed)
    for _ in range(probe.decisions // 2):
        game.apply(rng.choice(game.legal_actions()))
    return game


def _apply_us(game) -> float:
    """Microseconds to apply one action at the mid-game position and undo it."""
    action = game.legal_actions()[0]

    def once():
        game.apply(action)
        game.undo()
    return _per_call_us(once)


def bench_ruleset(name: str, games: int, seed: int, players: int | None, bot: str,
                  forced: bool, counted: int = 0) -> dict:
    loads = []
    for _ in range(3):
        t = time.perf_counter()
        ruleset = load_ruleset(name)
        loads.append((time.perf_counter() - t) * 1000)
    players = players if players is not None else min(max(4, ruleset.players_min), ruleset.players_max)
    r = simulate(ruleset, games, seed, players, bot, forced=forced)
    game = _mid_game(ruleset, players, seed)
    apply_us = _apply_us(game)
    return {
        "players": players, "games": games, "finished": r["finished"], "bot": bot, "forced": forced,
        "playouts_per_second": r["playouts_per_second"], "decisions_mean": r["decisions_mean"],
        "decisions_per_second": r["decisions_per_second"],
        "us_per_decision": round(1e6 / r["decisions_per_second"], 1) if r["decisions_per_second"] else None,
        "clone_us": _per_call_us(game.clone), "apply_undo_us": apply_us,
        "state_kb": round(deep_size(game.state) / 1024, 1),
        "clone_kb": round(allocated(game.clone) / 1024, 1),
        "load_ms": round(min(loads), 1), "play_cold_start_ms": play_cold_start_ms(name),
        "seconds": r["seconds"],
        "seconds_per_game": round(r["seconds"] / r["finished"], 3) if r["finished"] else None,
        "cpu_seconds_per_game": r["cpu_seconds_per_game"], "timing": r["timing"],
        "bots": r["bots"],
        **({"bytecodes": count(name, players, counted, seed)} if counted else {}),
    }


def compiles_at_start(module: str | None = None) -> bool:
    """Whether the cold starts measured here compile Python's sources at every start: the
    commands started inherit PYTHONDONTWRITEBYTECODE, which tells Python not to keep compiled
    modules, and none were kept before (``module``, the engine's by default, has none), so each
    start takes more than that of an installed copy (which compiles them once)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return False
    from importlib.util import cache_from_source
    from railrules.interpreter.engine import machine
    return not Path(cache_from_source(module or machine.__file__)).exists()


def cold_start_ms(*command: str, typed: str = "", runs: int = 3) -> float:
    """The best wall time of `railrules COMMAND` (default: list) in a new Python process, in a
    folder of its own, ``typed`` on its input."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "railrules", *(command or ("list",))], input=typed,
                           capture_output=True, text=True, check=False, cwd=folder)
            times.append((time.perf_counter() - t) * 1000)
    return round(min(times), 1)


def play_cold_start_ms(name: str) -> float:
    """`railrules play NAME` started, shown its first prompt and quit (saving the game)."""
    return cold_start_ms("play", str(Path(name).resolve()) if Path(name).is_dir() else name,
                         "--seed", "1", typed="quit\n")


def describe(report: dict) -> str:
    lines = []
    for name, r in report["rulesets"].items():
        lines.append(
            f"{name} ({r['players']} players, {r['games']} {r['bot']} games"
            f"{', forced moves applied' if r['forced'] else ''}): {r['playouts_per_second']} playouts/s "
            f"({r['seconds_per_game']} s/game wall, {r['cpu_seconds_per_game']} s/game CPU), "
            f"{r['decisions_mean']} decisions/game, {r['us_per_decision']} us/decision; "
            f"clone {r['clone_us']} us; mid-game state {r['state_kb']} KB (a clone allocates "
            f"{r['clone_kb']} KB); apply+undo {r['apply_undo_us']} us; "
            f"load+compile {r['load_ms']} ms; cold start of `railrules play` {r['play_cold_start_ms']} ms")
        lines += [f"  bot {spec}: {b['choices_per_second']} choices/s, {b['seconds_per_game']} s "
                  "choosing per game" for spec, b in r["bots"].items()]
        lines.append(f"  games: {describe_time(r['timing'])}")
        if "bytecodes" in r:
            b = r["bytecodes"]
            lines.append(f"  work a decision ({b['games']} games, {b['decisions']} decisions, exact): "
                         f"{b['bytecodes']} bytecodes, {b['generated']} of them in generated code; "
                         f"{b['calls']} Python calls")
    lines.append(f"cold start of the command (railrules list): {report['cold_start_ms']} ms"
                 + (" (each start compiled Python's sources: PYTHONDONTWRITEBYTECODE is set and no "
                    "compiled module was kept, so the cold starts are longer than an installed copy's)"
                    if report.get("cold_start_compiles") else ""))
    lines.append(f"lint of {', '.join(report['rulesets'])}: median {report['lint_seconds_median']} s "
                 f"over {report['lint_runs']} runs")
    return "\n".join(lines)


# ------------------------------------------------------------------ the verb: railrules bench
def add_arguments(parser) -> None:
    parser.description = (
        "Benchmark, one core: random playouts per second, decisions per game and microseconds per "
        "decision for each ruleset; a clone and an action applied and undone at a mid-game position; "
        "warm load+compile; the cold start of `railrules play` (to its first prompt) and of "
        "`railrules list`; the median time to lint them all. --json for machines.")
    parser.add_argument("rulesets", nargs="*", help="ruleset names (default: all shipped)")
    parser.add_games(100)
    parser.add_argument("--lint-runs", type=parser.count(1), default=5, help="lint runs to take the median of")
    parser.add_argument("--bytecodes", type=parser.count(0), default=0, metavar="GAMES",
                        help="also count the bytecodes and Python calls a decision over GAMES random "
                             "games (exact, whatever the machine's load; tracing is ~50x slower; "
                             "default 0: not counted)")


def run(args) -> int:
    import json

    from railrules.interpreter.paths import shipped_rulesets

    from railrules.tools.author.lint import lint_paths
    names = args.rulesets or shipped_rulesets()
    report: dict = {"rulesets": {}}
    for name in names:
        report["rulesets"][name] = bench_ruleset(name, args.games, args.seed, args.players,
                                                 args.bot, args.forced, args.bytecodes)
    times = []
    for _ in range(args.lint_runs):
        t = time.perf_counter()
        lint_paths(names)
        times.append(time.perf_counter() - t)
    report["lint_seconds_median"] = round(statistics.median(times), 3)
    report["lint_runs"] = args.lint_runs
    report["cold_start_ms"] = cold_start_ms()
    report["cold_start_compiles"] = compiles_at_start()
    print(json.dumps(report) if args.json else describe(report))
    return 0
