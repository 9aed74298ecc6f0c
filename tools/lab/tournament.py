"""`railrules tournament`: bots ranked against each other, with ratings and head-to-head records.

**Schedule.** Every combination of ``players`` bots (each bot meets every other) is a table; a
table plays ``games`` deals (seeds ``seed``, ``seed + 1``...), and each deal once per rotation of
the seats: every bot sits in every seat on the same deal (paired seeds), so neither the seat nor
the luck of the deal favours anyone. At a table, seat k's bot is seeded ``seed + k``.

**Figures.** Ratings are openskill's Plackett-Luce model (the optional extra ``rating``) over
every finished game in schedule order (so the same games give the same ratings whoever played
them, in any number of processes), each with a 95 % interval (μ ± 1.96σ). The head-to-head
record of two bots counts the games where both sat: a wins when it ranks above b (winners
first, then by score), ties apart; its win rate (ties left out) has a Wilson 95 % interval.
The games run through :mod:`.runner` (``--jobs``, ``--cluster``, Ctrl-C keeps those finished).
"""
from __future__ import annotations

import html
import math
import statistics
from itertools import combinations

from railrules.interpreter.errors import RailrulesError

from railrules.tools.common import verbs
from railrules.tools.lab import runner
from railrules.tools.bots.players import play_out, seat_bots
from railrules.tools.lab.stats import wilson
from railrules.tools.common.tables import Table

Z95 = statistics.NormalDist().inv_cdf(0.975)


def schedule(bots: list, players: int, games: int, seed: int) -> tuple[list, list]:
    """The tables (every combination of ``players`` bots) and the tasks: (table, seed, rotation)."""
    tables = [list(t) for t in combinations(bots, players)]
    tasks = [(t, seed + g, r) for t in range(len(tables)) for g in range(games) for r in range(players)]
    return tables, tasks


def play(shared: tuple, task: tuple) -> dict:
    """One game of the schedule: the bots rotated ``rotation`` seats along."""
    ruleset, players, tables = shared
    t, seed, rotation = task
    specs = tables[t][rotation:] + tables[t][:rotation]
    game = ruleset.new_game(players, seed)
    record = {"seats": dict(zip(game.players, specs))}
    try:
        play_out(game, seat_bots(",".join(specs), game.players, seed))
    except RailrulesError as err:
        return {**record, "error": f"seed {seed}: {err.diagnostics[0]}"}
    return {**record, "scores": {p: float(s) for p, s in game.result["scores"].items()},
            "winners": game.result["winners"], "decisions": game.decisions}


def tournament(ruleset, bots: list, players: int, games: int, seed: int = 1, jobs: int = 1,
               time_limit: float | None = None, progress: bool = False, cluster: str | None = None) -> dict:
    """Play the schedule and rate the bots (ImportError without openskill)."""
    from openskill.models import PlackettLuce   # before any game: the figures need it
    tables, tasks = schedule(bots, players, games, seed)
    done, stopped = runner.run(play, (ruleset, players, tables), tasks, jobs, time_limit, progress, cluster)
    records = [done[t] for t in tasks if t in done]
    finished = [r for r in records if "error" not in r]
    return {"ruleset": ruleset.name, "variant": ruleset.variant, "players": players, "bots": bots,
            "games": games, "seed": seed, "tables": tables, "planned": len(tasks), "played": len(finished),
            "partial": stopped, "errors": [r["error"] for r in records if "error" in r][:20],
            "model": "openskill PlackettLuce", "ratings": _ratings(PlackettLuce(), bots, finished),
            "head_to_head": _head_to_head(bots, finished)}


def _order(record: dict) -> dict:
    """Seat -> (won, score): what ranks the seats, winners first."""
    return {p: (p in record["winners"], s) for p, s in record["scores"].items()}


def _ratings(model, bots: list, records: list) -> dict:
    rating = {b: model.rating(name=b) for b in bots}
    played = dict.fromkeys(bots, 0)
    share = dict.fromkeys(bots, 0.0)
    for r in records:
        seats, key = list(r["seats"]), _order(r)
        ranks = [1 + sum(key[q] > key[p] for q in seats) for p in seats]
        new = model.rate([[rating[r["seats"][p]]] for p in seats], ranks=ranks)
        for p, [after] in zip(seats, new):
            bot = r["seats"][p]
            rating[bot] = after
            played[bot] += 1
            share[bot] += 1 / len(r["winners"]) if p in r["winners"] else 0.0
    out = {b: {"mu": rating[b].mu, "sigma": rating[b].sigma, "low": rating[b].mu - Z95 * rating[b].sigma,
               "high": rating[b].mu + Z95 * rating[b].sigma, "games": played[b],
               "win_share": share[b] / played[b] if played[b] else math.nan} for b in bots}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["mu"]))


def _head_to_head(bots: list, records: list) -> dict:
    table: dict[str, dict[str, dict[str, float]]] = {   # counts, then the rate and its interval
        a: {b: {"wins": 0, "losses": 0, "ties": 0} for b in bots if b != a} for a in bots}
    for r in records:
        key = _order(r)
        for p, q in combinations(r["seats"], 2):
            a, b = r["seats"][p], r["seats"][q]
            outcome = "wins" if key[p] > key[q] else "losses" if key[p] < key[q] else "ties"
            table[a][b][outcome] += 1
            table[b][a][{"wins": "losses", "losses": "wins", "ties": "ties"}[outcome]] += 1
    for a in table:
        for cell in table[a].values():
            n = int(cell["wins"] + cell["losses"])
            cell["rate"] = cell["wins"] / n if n else math.nan
            cell["low"], cell["high"] = wilson(cell["wins"], n)
    return table


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.0f}%"


def report_tables(result: dict) -> list[Table]:
    """The ratings, then the head-to-head win rates (row against column)."""
    head = (f"{result['ruleset']}: tournament of {len(result['bots'])} bots, {result['players']} players, "
            f"{result['played']}/{result['planned']} games"
            + (" (PARTIAL: stopped early)" if result["partial"] else "")
            + f", deals {result['seed']}..{result['seed'] + result['games'] - 1} in rotated seats")
    ratings = Table(head, ["#", "bot", "rating", "95% interval", "games", "win share"], right=(0, 2, 3, 4, 5))
    for i, (bot, r) in enumerate(result["ratings"].items(), 1):
        ratings.rows.append([str(i), bot, f"{r['mu']:.1f}", f"{r['low']:.1f}..{r['high']:.1f}",
                             str(r["games"]), _pct(r["win_share"])])
    ratings.notes = [f"rating: {result['model']} μ, interval μ ± 1.96σ"]
    order = list(result["ratings"])
    letters = [chr(ord("A") + i) if i < 26 else str(i) for i in range(len(order))]
    h2h = Table("head to head: how often the row's bot ranks above the column's (ties left out), "
                "Wilson 95% interval", ["", "bot"] + letters, right=tuple(range(2, 2 + len(order))))
    for letter, a in zip(letters, order):
        row = [letter, a]
        for b in order:
            c = result["head_to_head"][a].get(b)
            row.append("" if c is None else f"{_pct(c['rate'])} [{_pct(c['low'])}..{_pct(c['high'])}]")
        h2h.rows.append(row)
    h2h.notes = [f"{'; '.join(result['errors'][:3])}"] if result["errors"] else []
    return [ratings, h2h]


def to_html(result: dict) -> str:
    """One self-contained page: the tables, and (with matplotlib) the ratings and the head-to-head
    plot."""
    from railrules.tools.common.tables import plain
    try:
        figures = "".join(f"<figure><figcaption>{html.escape(t)}</figcaption>{svg}</figure>"
                          for t, svg in _plots(result))
    except ImportError:
        figures = '<p>No plots: matplotlib is not installed (pip install "railrules[report]").</p>'
    text = "\n\n".join(plain(t) for t in report_tables(result))
    title = f"railrules tournament: {result['ruleset']}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body {{ font-family: sans-serif; margin: 2em; color: #222; }} figure svg {{ max-width: 100%; height: auto; }}
figcaption {{ font-weight: bold; }}</style></head><body>
<h1>{html.escape(title)}</h1>{figures}<pre>{html.escape(text)}</pre></body></html>
"""


def _plots(result: dict) -> list[tuple[str, str]]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from railrules.tools.lab.report import figure_svg
    order = list(result["ratings"])
    r = result["ratings"]
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.4 * len(order)))
    ys = list(range(len(order)))[::-1]
    ax.errorbar([r[b]["mu"] for b in order], ys, xerr=[[r[b]["mu"] - r[b]["low"] for b in order],
                [r[b]["high"] - r[b]["mu"] for b in order]], fmt="o", capsize=4)
    ax.set_yticks(ys, order)
    ax.set_xlabel("rating (μ ± 1.96σ)")
    plots = [("Ratings with 95 % intervals", figure_svg(fig))]
    fig, ax = plt.subplots(figsize=(1.5 + 0.8 * len(order), 1 + 0.6 * len(order)))
    grid = [[result["head_to_head"][a][b]["rate"] if a != b else math.nan for b in order] for a in order]
    ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    for i, row in enumerate(grid):
        for j, x in enumerate(row):
            if not math.isnan(x):
                ax.text(j, i, _pct(x), ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
    ax.set_yticks(range(len(order)), order)
    plots.append(("Head to head: how often the row's bot ranks above the column's", figure_svg(fig)))
    return plots


# ------------------------------------------------------------------ the verb: railrules tournament
def add_arguments(parser) -> None:
    parser.description = (
        "Every combination of P of the bots is a table; each table plays N deals (seeds S, S+1...), "
        "each deal once per rotation of the seats, so every bot plays every seat on the same deal. "
        "Prints each bot's rating (openskill Plackett-Luce, needs pip install \".[rating]\") with a "
        "95 % interval, its games and share of wins, and head-to-head win rates with Wilson 95 % "
        "intervals. Ctrl-C or --time-limit stops early and reports the games finished (exit 130).")
    parser.add_ruleset()
    parser.add_bots("--bots", "--bot", dest="bot", required=True, metavar="A,B,C,...",
                    help="the bots, each once (at least P).")
    parser.add_argument("--games", type=parser.count(1), default=10, help="deals per table (default 10); "
                        "each is played once per seat rotation, so a table plays N x P games")
    parser.add_argument("--players", type=parser.count(2), help="players per game (default: the fewest "
                        "the ruleset allows, at least 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first deal; deal i uses seed+i")
    parser.add_parallel()
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--html", metavar="FILE", help="also write a page with the tables and plots (plots "
                        "need matplotlib: pip install \".[report]\")")
    parser.add_argument("--force", action="store_true", help="allow --html to overwrite an existing file")


def run(args) -> int:
    import json
    import sys
    from pathlib import Path

    from railrules.interpreter import load_ruleset

    from railrules.tools.common.outputs import OutputError, write
    from railrules.tools.common.tables import show
    bots = args.bot.split(",")
    if len(set(bots)) < len(bots):
        raise verbs.Usage("--bots: each bot once (give a setting to tell two of a kind apart: "
                          "mcts:iterations=100,mcts)")
    ruleset = load_ruleset(args.ruleset, args.variant)
    least = max(2, ruleset.players_min)
    players = least if args.players is None else verbs.players(ruleset, args.players)
    if len(bots) < max(2, players):
        raise verbs.Usage(f"--bots: {players}-player games need at least {max(2, players)} bots (one a "
                          f"seat), not {len(bots)}")
    verbs.check_outputs({"--html": args.html}, args.force)
    try:
        result = tournament(ruleset, bots, players, args.games, args.seed, args.jobs, args.time_limit,
                            progress=sys.stderr.isatty() and not args.json, cluster=args.cluster)
    except ImportError:
        raise verbs.Usage('ratings need openskill: pip install "railrules[rating]" (or pip install '
                          '".[rating]" in the checkout)') from None
    failed = False
    if args.html:
        try:
            write(Path(args.html), to_html(result))
        except OutputError as err:
            print(f"railrules tournament: {err}", file=sys.stderr)
            failed = True
    if args.json:
        print(json.dumps(result))
    else:
        for each in report_tables(result):
            show(each)
    if verbs.stopped_early(result):
        return verbs.STOPPED
    return verbs.EXIT_FAIL if result["errors"] or failed else verbs.EXIT_OK
