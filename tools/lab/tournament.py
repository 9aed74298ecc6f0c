"""`railrules tournament`: bots ranked against each other, with ratings and head-to-head records.

**Schedule.** Every combination of ``players`` bots (each bot meets every other) is a table; a
table plays ``games`` deals (seeds ``seed``, ``seed + 1``...), and each deal once per rotation of
the seats: every bot sits in every seat on the same deal (paired seeds), so neither the seat nor
the luck of the deal favours anyone. At a table, seat k's bot is seeded ``seed + k``.

**Figures.** The games of one deal (every table and seating on one seed) share their luck, so a
deal, not a game or a pairing, is the independent unit: every interval is clustered by deal.

- *Rating*: a Bradley–Terry maximum-likelihood fit (Newton's method) to every pair of seats
  of every game (the one ranked above wins: winners first, then by score; a tie is half a win
  each), penalised by one virtual drawn pairing between every two bots so that a bot that wins
  every pairing keeps a finite rating. It is given on the Elo scale (a difference of 400: odds of
  10 to 1 of ranking above), centred on 0, with a 95 % percentile bootstrap interval: the deals
  resampled with replacement (``RESAMPLES`` times, seeded by ``--seed``), the fit made again each
  time. The pairs of one game are not independent (a composite likelihood); the bootstrap over
  deals accounts for it.
- *Win share* (a game won by k bots counts 1/k) and *head to head* (how often a ranks above b,
  ties left out): the share with Wilson's 95 % interval at the effective number of independent
  trials, N / deff, where the design effect deff is the cluster-robust variance of the share (the
  linearised variance of a ratio over deals, which a bootstrap over deals estimates too) over its
  binomial variance (at least 1; when every trial went one way, N / deff is the number of deals).

The figures depend on the games, not on the order they were scheduled or finished in: the records
are put in schedule order and the deals sorted before any sum. The games run through
:mod:`.runner` (``--jobs``, ``--cluster``, Ctrl-C keeps those finished).
"""
from __future__ import annotations

import html
import math
import random
from itertools import combinations

from railrules.interpreter.errors import RailrulesError

from railrules.tools.common import verbs
from railrules.tools.lab import runner
from railrules.tools.bots.players import play_out, seat_bots
from railrules.tools.lab.stats import mean, percentile, wilson
from railrules.tools.common.tables import Table

RESAMPLES = 1000
ELO = 400 / math.log(10)   # Elo points per unit of log strength


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
    record = {"seats": dict(zip(game.players, specs)), "deal": seed}
    try:
        play_out(game, seat_bots(",".join(specs), game.players, seed, game.ruleset))
    except RailrulesError as err:
        return {**record, "error": f"seed {seed}: {err.diagnostics[0]}"}
    return {**record, "scores": {p: float(s) for p, s in game.result["scores"].items()},
            "winners": game.result["winners"], "decisions": game.decisions}


def tournament(ruleset, bots: list, players: int, games: int, seed: int = 1, jobs: int = 1,
               time_limit: float | None = None, progress: bool = False, cluster: str | None = None) -> dict:
    """Play the schedule and rate the bots."""
    tables, tasks = schedule(bots, players, games, seed)
    done, stopped = runner.run(play, (ruleset, players, tables), tasks, jobs, time_limit, progress, cluster)
    records = [done[t] for t in sorted(tasks) if t in done]
    finished = [r for r in records if "error" not in r]
    figures = rate(bots, finished, seed)
    return {"ruleset": ruleset.name, "variant": ruleset.variant, "players": players, "bots": bots,
            "games": games, "seed": seed, "tables": tables, "planned": len(tasks), "played": len(finished),
            "partial": stopped, "errors": [r["error"] for r in records if "error" in r][:20],
            "model": "Bradley-Terry", "resamples": RESAMPLES, "deals": figures["deals"],
            "ratings": figures["ratings"], "head_to_head": figures["head_to_head"]}


def _order(record: dict) -> dict:
    """Seat -> (won, score): what ranks the seats, winners first."""
    return {p: (p in record["winners"], s) for p, s in record["scores"].items()}


def _deal_counts(bots: list, records: list) -> list[dict]:
    """Per deal (sorted by seed): each bot's games and win share, and each ordered pair's
    (wins, losses, ties) of the row's bot against the column's."""
    deals: dict = {}
    for r in records:
        c = deals.setdefault(r["deal"], {"games": dict.fromkeys(bots, 0), "share": dict.fromkeys(bots, 0.0),
                                         "pairs": {(a, b): [0, 0, 0] for a in bots for b in bots if a != b}})
        key = _order(r)
        for p, bot in r["seats"].items():
            c["games"][bot] += 1
            c["share"][bot] += 1 / len(r["winners"]) if p in r["winners"] else 0.0
        for p, q in combinations(r["seats"], 2):
            a, b = r["seats"][p], r["seats"][q]
            k = 0 if key[p] > key[q] else 1 if key[p] < key[q] else 2
            c["pairs"][a, b][k] += 1
            c["pairs"][b, a][(1, 0, 2)[k]] += 1
    return [deals[d] for d in sorted(deals)]


def _total(bots: list, deals: list) -> dict:
    total: dict = {"games": dict.fromkeys(bots, 0), "share": dict.fromkeys(bots, 0.0),
             "pairs": {(a, b): [0, 0, 0] for a in bots for b in bots if a != b}}
    for c in deals:
        for b in bots:
            total["games"][b] += c["games"][b]
            total["share"][b] += c["share"][b]
        for pair, counts in c["pairs"].items():
            for k in range(3):
                total["pairs"][pair][k] += counts[k]
    return total


def bradley_terry(bots: list, pairs: dict, prior: float = 0.5) -> dict:
    """Bradley–Terry ratings (Elo scale, centred on 0) from ``pairs``: (a, b) -> (wins, losses,
    ties) of a against b; a tie is half a win each, and every two bots get ``prior`` wins each
    (one virtual drawn pairing). The maximum of the (concave) log-likelihood by Newton's method
    with step halving, the last bot's log strength held at 0, to a step of 1e-12."""
    k = len(bots)
    wins = [[pairs[a, b][0] + pairs[a, b][2] / 2 + prior if a != b else 0.0 for b in bots] for a in bots]
    theta = [0.0] * k

    def log_likelihood(t):
        return sum(wins[i][j] * (t[i] - _log_add(t[i], t[j])) for i in range(k) for j in range(k) if i != j)
    for _ in range(100):
        p = [[1 / (1 + math.exp(theta[j] - theta[i])) for j in range(k)] for i in range(k)]
        n = [[wins[i][j] + wins[j][i] for j in range(k)] for i in range(k)]
        grad = [sum(wins[i][j] - n[i][j] * p[i][j] for j in range(k) if j != i) for i in range(k - 1)]
        info = [[sum(n[i][m] * p[i][m] * (1 - p[i][m]) for m in range(k) if m != i) if i == j
                 else -n[i][j] * p[i][j] * (1 - p[i][j]) for j in range(k - 1)] for i in range(k - 1)]
        step = _solve(info, grad)
        before, scale = log_likelihood(theta), 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step)] + [0.0]
            if log_likelihood(trial) >= before or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        if max((abs(s) for s in step), default=0.0) * scale < 1e-12:
            break
    centre = mean(theta)
    return {b: ELO * (t - centre) for b, t in zip(bots, theta)}


def _log_add(x: float, y: float) -> float:
    """log(e^x + e^y) without overflow."""
    high = max(x, y)
    return high + math.log1p(math.exp(min(x, y) - high))


def _solve(a: list, b: list) -> list:
    """x with a x = b (Gaussian elimination with partial pivoting; a small positive definite a)."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def clustered_wilson(successes: list, trials: list) -> tuple[float, float, float]:
    """The share sum(successes) / sum(trials) of per-deal counts and its Wilson 95 % interval at
    the effective number of trials N / deff (see the module's doc); the design effect comes from
    the linearised (cluster-robust) variance of the ratio, which the bootstrap over deals
    estimates: sum over deals of (s_d - p n_d)² / N², times D / (D - 1)."""
    n, deals = sum(trials), sum(1 for t in trials if t)
    if not n:
        return math.nan, math.nan, math.nan
    p = sum(successes) / n
    binomial = p * (1 - p) / n
    if binomial == 0 or deals < 2:
        effective = float(deals)
    else:
        robust = sum((s - p * t) ** 2 for s, t in zip(successes, trials)) / n ** 2 * deals / (deals - 1)
        effective = n / max(1.0, robust / binomial)
    low, high = wilson(p * effective, effective) if effective else (math.nan, math.nan)
    return p, low, high


def rate(bots: list, records: list, seed: int = 1) -> dict:
    """The ratings (with bootstrap intervals over deals), win shares and head to head."""
    deals = _deal_counts(bots, records)
    total = _total(bots, deals)
    point = bradley_terry(bots, total["pairs"])
    rng = random.Random(seed)
    again: dict = {b: [] for b in bots}
    for _ in range(RESAMPLES if len(deals) > 1 else 0):
        fit = bradley_terry(bots, _total(bots, rng.choices(deals, k=len(deals)))["pairs"])
        for b in bots:
            again[b].append(fit[b])
    ratings = {}
    for b in bots:
        share, low, high = clustered_wilson([c["share"][b] for c in deals], [c["games"][b] for c in deals])
        ratings[b] = {"rating": point[b], "low": percentile(again[b], 0.025), "high": percentile(again[b], 0.975),
                      "games": total["games"][b], "win_share": share, "win_low": low, "win_high": high}
    table: dict = {a: {} for a in bots}
    for (a, b), (w, lost, tied) in total["pairs"].items():
        rate_, low, high = clustered_wilson([c["pairs"][a, b][0] for c in deals],
                                            [c["pairs"][a, b][0] + c["pairs"][a, b][1] for c in deals])
        table[a][b] = {"wins": w, "losses": lost, "ties": tied, "rate": rate_, "low": low, "high": high}
    return {"deals": len(deals), "ratings": dict(sorted(ratings.items(), key=lambda kv: -kv[1]["rating"])),
            "head_to_head": table}


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.0f}%"


def _span(low: float, high: float, form: str) -> str:
    return "-" if math.isnan(low) else f"{form.format(low)}..{form.format(high)}"


def report_tables(result: dict) -> list[Table]:
    """The ratings, then the head-to-head win rates (row against column)."""
    head = (f"{result['ruleset']}: tournament of {len(result['bots'])} bots, {result['players']} players, "
            f"{result['played']}/{result['planned']} games"
            + (" (PARTIAL: stopped early)" if result["partial"] else "")
            + f", deals {result['seed']}..{result['seed'] + result['games'] - 1} in rotated seats")
    ratings = Table(head, ["#", "bot", "rating", "95% interval", "games", "win share", "95% interval"],
                    right=(0, 2, 3, 4, 5, 6))
    for i, (bot, r) in enumerate(result["ratings"].items(), 1):
        ratings.rows.append([str(i), bot, f"{r['rating']:+.0f}", _span(r["low"], r["high"], "{:+.0f}"),
                             str(r["games"]), _pct(r["win_share"]), f"{_pct(r['win_low'])}..{_pct(r['win_high'])}"])
    ratings.notes = [f"rating: Bradley-Terry maximum-likelihood fit to every pair of seats of every game, Elo "
                     f"scale (+400: 10 to 1 odds of ranking above), centred on 0; interval: 95 % percentile "
                     f"bootstrap over the {result['deals']} deals ({result['resamples']} resamples, seeded)",
                     "win share (a shared win counts 1/k): Wilson 95 % interval clustered by deal"]
    order = list(result["ratings"])
    letters = [chr(ord("A") + i) if i < 26 else str(i) for i in range(len(order))]
    h2h = Table("head to head: how often the row's bot ranks above the column's (ties left out), "
                "Wilson 95% interval clustered by deal", ["", "bot"] + letters, right=tuple(range(2, 2 + len(order))))
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
    ax.errorbar([r[b]["rating"] for b in order], ys, xerr=[[r[b]["rating"] - r[b]["low"] for b in order],
                [r[b]["high"] - r[b]["rating"] for b in order]], fmt="o", capsize=4)
    ax.set_yticks(ys, order)
    ax.set_xlabel("Bradley-Terry rating (Elo scale)")
    plots = [("Ratings with 95 % intervals (bootstrap over deals)", figure_svg(fig))]
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
        "Prints each bot's rating (a Bradley-Terry maximum-likelihood fit on the Elo scale) with a 95 % "
        "bootstrap interval over deals, its games and share of wins, and head-to-head win rates, each "
        "with a Wilson 95 % interval clustered by deal (the games of one deal share its luck). Ctrl-C "
        "or --time-limit stops early and reports the games finished (exit 130).")
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
    result = tournament(ruleset, bots, players, args.games, args.seed, args.jobs, args.time_limit,
                        progress=sys.stderr.isatty() and not args.json, cluster=args.cluster)
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
