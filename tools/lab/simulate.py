"""`railrules simulate` and `railrules bench`: many bot games, counted and timed."""
from __future__ import annotations

import time
from collections import Counter

from railrules.interpreter.errors import RailrulesError

from railrules.tools.common.clock import describe as describe_time
from railrules.tools.common import verbs
from railrules.tools.lab import runner
from railrules.tools.bots.players import as_played, play_out, seat_bots


def _one(shared, seed: int) -> dict:
    """One seeded bot game: its figures, or the error that stopped it."""
    ruleset, players, bots, forced = shared
    game = ruleset.new_game(players, seed, undo=False)  # played to the end, never taken back
    clock: dict = {}
    try:
        play_out(game, seat_bots(bots, game.players, seed, game.ruleset), forced=forced, clock=clock)
    except RailrulesError as err:
        return {"seed": seed, "error": str(err.diagnostics[0])}
    played = as_played(bots, game.ruleset).split(",")   # (with the settings the ruleset declares)
    specs = played if len(played) > 1 else played * players
    thinking: dict = {}
    for seat, spec in zip(game.players, specs):
        seconds, choices = clock.get(seat, (0.0, 0))
        mine = thinking.setdefault(spec, [0.0, 0])
        mine[0] += seconds
        mine[1] += choices
    return {"seed": seed, "decisions": game.decisions, "winners": game.result["winners"],
            "reasons": game.result["reasons"], "thinking": thinking}


def simulate(ruleset, games: int, seed: int, players: int, bot: str = "random",
             progress: bool = False, forced: bool = False, jobs: int = 1,
             time_limit: float | None = None, cluster: str | None = None) -> dict:
    """Play ``games`` seeded bot games; return the figures as one JSON-ready dict. Ctrl-C or the
    time limit stops early: the figures are then those of the games finished (``partial``)."""
    start = time.perf_counter()
    timed: dict = {}
    done, stopped = runner.run(_one, (ruleset, players, bot, forced), list(range(seed, seed + games)),
                               jobs, time_limit, progress, cluster, timed)
    elapsed = time.perf_counter() - start
    wins: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    errors: list = []
    decisions: list = []
    ties = 0
    thinking: dict = {}
    for s in sorted(done):
        r = done[s]
        if "error" in r:
            errors.append(r)
            continue
        decisions.append(r["decisions"])
        ties += len(r["winners"]) > 1
        wins.update(r["winners"])
        reasons.update(r["reasons"])
        for spec, (seconds, choices) in r["thinking"].items():
            mine = thinking.setdefault(spec, [0.0, 0])
            mine[0] += seconds
            mine[1] += choices
    finished = len(decisions)
    return {
        "ruleset": ruleset.name, "variant": ruleset.variant, "players": players, "bot": as_played(bot, ruleset),
        "forced": forced,
        "games": games, "seed": seed, "finished": finished, "partial": stopped, "jobs": jobs,
        "wins_by_seat": {p: wins[p] for p in (f"p{k}" for k in range(1, players + 1))},
        "shared_wins": ties,
        "end_reasons": dict(sorted(reasons.items())),
        "decisions_mean": round(sum(decisions) / len(decisions), 1) if decisions else 0,
        "decisions_max": max(decisions, default=0),
        "seconds": round(elapsed, 3),
        # CPU beside wall time, and whether the machine was busy (tools/common/clock.py)
        "timing": timed,
        "cpu_seconds_per_game": round(timed["cpu_seconds"] / finished, 3) if finished else None,
        "playouts_per_second": round(finished / elapsed, 2) if elapsed else 0.0,
        "decisions_per_second": round(sum(decisions) / elapsed) if elapsed else 0,
        # per bot: the time it spent choosing, per choice and per game (the engine's time apart)
        "bots": {spec: {"choices": n, "choices_per_second": round(n / sec, 1) if sec else None,
                        "seconds_per_game": round(sec / finished, 3) if finished else None}
                 for spec, (sec, n) in sorted(thinking.items())},
        "errors": errors,
    }


def describe(r: dict) -> str:
    lines = [f"{r['ruleset']}{' (' + r['variant'] + ')' if r['variant'] else ''}: "
             f"{r['finished']}/{r['games']} games finished{' (PARTIAL: stopped early)' if r.get('partial') else ''}, {r['players']} players, seeds {r['seed']}.."
             f"{r['seed'] + r['games'] - 1}",
             "wins by seat: " + ", ".join(f"{p} {n}" for p, n in r["wins_by_seat"].items())
             + f" (shared wins {r['shared_wins']})",
             "end reasons: " + (", ".join(f"{k} {v}" for k, v in r["end_reasons"].items()) or "-"),
             f"decisions per game: mean {r['decisions_mean']}, max {r['decisions_max']}",
             f"playouts per second: {r['playouts_per_second']} ({r['decisions_per_second']} decisions/s, "
             f"{r['seconds']} s)",
             f"time: {describe_time(r['timing'])}; CPU per game {r['cpu_seconds_per_game']} s"]
    for spec, b in r["bots"].items():
        lines.append(f"bot {spec}: {b['choices_per_second']} choices/s, {b['seconds_per_game']} s "
                     "choosing per game")
    for e in r["errors"][:5]:
        lines.append(f"error (seed {e['seed']}): {e['error']}")
    return "\n".join(lines)


# ------------------------------------------------------------------ the verb: railrules simulate
def add_arguments(parser) -> None:
    parser.description = ("Run N seeded bot games; print finishes, wins by seat, end reasons, "
                          "decisions per game and playouts per second. Ctrl-C or --time-limit stops "
                          "early and reports the games finished (exit 130).")
    parser.add_ruleset()
    parser.add_games(100)
    parser.add_parallel()


def run(args) -> int:
    import json
    import sys

    from railrules.interpreter import load_ruleset
    ruleset = load_ruleset(args.ruleset, args.variant)
    result = simulate(ruleset, args.games, args.seed, verbs.players(ruleset, args.players), args.bot,
                      progress=sys.stderr.isatty() and not args.json, forced=args.forced,
                      jobs=args.jobs, time_limit=args.time_limit, cluster=args.cluster)
    print(json.dumps(result) if args.json else describe(result))
    if verbs.stopped_early(result):
        return verbs.STOPPED
    return verbs.EXIT_OK if result["finished"] == result["games"] else verbs.EXIT_FAIL
