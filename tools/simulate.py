"""`railrules simulate` and `railrules bench`: many bot games, counted and timed."""
from __future__ import annotations

import sys
import time
from collections import Counter

from interpreter.errors import RailrulesError

from .bots import play_out, seat_bots


def simulate(ruleset, games: int, seed: int, players: int, bot: str = "random",
             progress: bool = False, forced: bool = False) -> dict:
    """Play ``games`` seeded bot games; return the figures as one JSON-ready dict."""
    wins, reasons, errors = Counter(), Counter(), []
    decisions, finished, ties = [], 0, 0
    start = time.perf_counter()
    for i in range(games):
        game = ruleset.new_game(players, seed + i)
        try:
            play_out(game, seat_bots(bot, game.players, seed + i), forced=forced)
        except RailrulesError as err:
            errors.append({"seed": seed + i, "error": str(err.diagnostics[0])})
            continue
        finished += 1
        decisions.append(game.decisions)
        winners = game.result["winners"]
        ties += len(winners) > 1
        for p in winners:
            wins[p] += 1
        reasons.update(game.result["reasons"])
        if progress:
            _bar(i + 1, games)
    elapsed = time.perf_counter() - start
    if progress:
        print(file=sys.stderr)
    return {
        "ruleset": ruleset.name, "variant": ruleset.variant, "players": players, "bot": bot,
        "forced": forced,
        "games": games, "seed": seed, "finished": finished,
        "wins_by_seat": {p: wins[p] for p in (f"p{k}" for k in range(1, players + 1))},
        "shared_wins": ties,
        "end_reasons": dict(sorted(reasons.items())),
        "decisions_mean": round(sum(decisions) / len(decisions), 1) if decisions else 0,
        "decisions_max": max(decisions, default=0),
        "seconds": round(elapsed, 3),
        "playouts_per_second": round(finished / elapsed, 2) if elapsed else 0.0,
        "decisions_per_second": round(sum(decisions) / elapsed) if elapsed else 0,
        "errors": errors,
    }


def _bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)


def describe(r: dict) -> str:
    lines = [f"{r['ruleset']}{' (' + r['variant'] + ')' if r['variant'] else ''}: "
             f"{r['finished']}/{r['games']} games finished, {r['players']} players, seeds {r['seed']}.."
             f"{r['seed'] + r['games'] - 1}",
             "wins by seat: " + ", ".join(f"{p} {n}" for p, n in r["wins_by_seat"].items())
             + f" (shared wins {r['shared_wins']})",
             "end reasons: " + (", ".join(f"{k} {v}" for k, v in r["end_reasons"].items()) or "-"),
             f"decisions per game: mean {r['decisions_mean']}, max {r['decisions_max']}",
             f"playouts per second: {r['playouts_per_second']} ({r['decisions_per_second']} decisions/s, "
             f"{r['seconds']} s)"]
    for e in r["errors"][:5]:
        lines.append(f"error (seed {e['seed']}): {e['error']}")
    return "\n".join(lines)
