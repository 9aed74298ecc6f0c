"""`railrules tune`: search constant values toward an objective.

Each trial sets the constants (``--param NAME=LO..HI``, entries of maps too: ``prices.3``)
to values Optuna's TPE sampler proposes (seeded: the same command proposes the same values); a
value it proposes again is told the score it had and not played twice. Trial k (from 0) plays
``--games`` games on seeds of its own, ``seed + k * games`` on, so that the search cannot fit one
set of seeds. The objective is ``balance`` (the largest gap between a turn-order position's win
rate and an equal share) or ``METRIC=TARGET`` (the distance of a metric's mean from TARGET); each
is given with a 95 % bootstrap interval over the trial's games and printed to the digits that
interval supports.

A trial's objective is measured on the games that chose it, so the best of many is better than
it is (the winner's curse). After the search the ``--finalists`` best trials play again, on the
same fresh seeds (after every trial's): the best is the best on those games, and a value ties
with it when the 95 % paired bootstrap interval (games resampled together) of its difference from
the best reaches 0. Ctrl-C ends the search; the best so far is reported, not re-measured.

Optuna (``pip install ".[tune]"``) is the optimiser: a maintained library whose TPE sampler
handles integer and real ranges, few and noisy evaluations, and seeded runs out of the box.
"""
from __future__ import annotations

import contextlib
import math
import random
from pathlib import Path

from railrules.tools.common import verbs
from railrules.tools.lab import compare, stats
from railrules.tools.lab.arms import ArmError, Arms, overrides, together

OBJECTIVE_HELP = "balance, or METRIC=TARGET (a metric as compare names it: 'decisions=150')"


def parse_params(base, params: list[str]) -> list[tuple[str, float, float, bool]]:
    """``NAME=LO..HI`` -> (NAME, LO, HI, whole numbers?), each checked against the constant's type
    (RR501 before any game)."""
    out = []
    for item in params:
        name, eq, span = item.partition("=")
        lo, dots, hi = span.partition("..")
        if not eq or not dots:
            raise ArmError(f"--param '{item}': write NAME=LO..HI (prices.3=30..60)")
        overrides(base, [f"{name}={lo},{hi}"])   # the constant exists and takes such values
        low, high = _range(lo, hi, item)
        out.append((name.strip(), low, high, isinstance(low, int) and isinstance(high, int)))
    return out


def _range(lo: str, hi: str, item: str):
    from railrules.tools.lab.arms import parse_value
    low, high = parse_value(lo), parse_value(hi)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high)) or low >= high:
        raise ArmError(f"--param '{item}': the range must be two numbers, the lower first")
    return low, high


def parse_objective(text: str) -> tuple[str, float | None]:
    """``balance`` -> ("balance", None); ``METRIC=TARGET`` -> (METRIC, TARGET)."""
    if text == "balance":
        return "balance", None
    name, eq, target = text.rpartition("=")
    try:
        return name.strip(), float(target)
    except ValueError:
        raise ArmError(f"--objective '{text}': write {OBJECTIVE_HELP}") from None


def columns(records: list, players: int, goal: tuple[str, float | None]) -> list[list]:
    """The per-game figures the objective is a function of (one list per figure, a game's value
    None where it failed): the win shares of every turn-order position for ``balance``, else the
    metric's values."""
    per = compare._per_game(records, players)
    names = [compare.position_name(k) for k in range(players)] if goal[0] == "balance" else [goal[0]]
    return [per.get(name, [0.0 if v is not None else None for v in per["decisions"]]) for name in names]


def objective(cols: list[list], goal: tuple[str, float | None], games: list[int] | None = None) -> float:
    """The objective (smaller is better) over the games ``games`` (indices; default all):
    ``balance`` is the largest gap between a position's win rate and an equal share, else the
    distance of the metric's mean from its target."""
    idx = range(len(cols[0])) if games is None else games
    means = [stats.mean([col[i] for i in idx]) for col in cols]
    if goal[0] == "balance":
        return max(abs(m - 1 / len(cols)) for m in means)
    return abs(means[0] - goal[1])   # type: ignore[operator]


def _complete(*tables: list[list]) -> list[int]:
    """The games every figure of every table has (a failed game is left out of all)."""
    return [i for i in range(len(tables[0][0])) if all(col[i] is not None for t in tables for col in t)]


RESAMPLES = 1000


def interval(cols: list[list], goal, seed: int = 0) -> tuple[float, float]:
    """The 95 % percentile bootstrap interval of the objective, resampling games (seeded)."""
    games = _complete(cols)
    rng = random.Random(seed)
    found = sorted(objective(cols, goal, rng.choices(games, k=len(games))) for _ in range(RESAMPLES)) if games else []
    return (found[int(0.025 * RESAMPLES)], found[int(0.975 * RESAMPLES) - 1]) if found else (math.nan, math.nan)


def difference(cols: list[list], best: list[list], goal, seed: int = 0) -> tuple[float, float]:
    """The 95 % paired bootstrap interval of objective(cols) - objective(best) on the same games
    (the same seeds): the games are resampled together."""
    games = _complete(cols, best)
    rng = random.Random(seed)
    found = sorted(objective(cols, goal, g) - objective(best, goal, g)
                   for g in (rng.choices(games, k=len(games)) for _ in range(RESAMPLES))) if games else []
    return (found[int(0.025 * RESAMPLES)], found[int(0.975 * RESAMPLES) - 1]) if found else (math.nan, math.nan)


def noisy(x: float, low: float, high: float) -> str:
    """``x`` to the digits its interval supports: rounded at the first digit of the interval's
    half-width, which follows it (0.1234 in [0.05, 0.19] -> "0.12 ± 0.07"; 153.4 ± 12 -> "150 ± 10")."""
    half = (high - low) / 2
    if not math.isfinite(x) or not math.isfinite(half) or half <= 0:
        return f"{x:.3g}"
    places = -math.floor(math.log10(half))
    shown = max(0, places)
    return f"{round(x, places):.{shown}f} ± {round(half, places):.{shown}f}"


def _space_size(space: list) -> float:
    """How many value combinations there are (infinite with a real range)."""
    size = 1.0
    for _, lo, hi, whole in space:
        size *= (hi - lo + 1) if whole else math.inf
    return size


FEW_TRIALS = 10


def tune(ruleset: str, params: list[str], objective_text: str, trials: int, games: int, players_of, specs: str,
         seed: int, jobs: int = 1, progress=None, finalists: int = 3, confirm_games: int | None = None) -> dict:
    """Run the search; ``players_of(ruleset)`` gives the player count. Returns the trials, the
    finalists re-measured on fresh seeds, the best and the values that tie with it."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with Arms(ruleset, [], []) as arms:
        base = arms[0].ruleset
        space = parse_params(base, params)
        goal = parse_objective(objective_text)
        players = players_of(base)
        if goal[0] != "balance":
            compare.check_metrics([goal[0]], [base], players, specs)
    planned = int(min(trials, _space_size(space)))
    confirm_games = confirm_games or 2 * games
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
    rng = random.Random(seed)
    done: list = []
    played: dict = {}
    stopped = False

    def propose(trial) -> dict:
        return {name: (trial.suggest_int(name, lo, hi) if whole else trial.suggest_float(name, lo, hi))
                for name, lo, hi, whole in space}

    try:
        repeats = 0
        while len(done) < planned:
            trial = study.ask()
            values = propose(trial)
            key = tuple(values.values())
            if key in played:   # told again what it scored, never played twice
                study.tell(trial, played[key])
                repeats += 1
                if repeats >= 20:   # the sampler keeps coming back: the next value is a fresh one at random
                    study.enqueue_trial(_unplayed(space, played, rng))
                continue
            repeats = 0
            first = seed + len(done) * games   # fresh seeds: trial k plays seeds S + k G .. S + (k+1) G - 1
            with together(ruleset, values) as arm:
                result = compare.run_arms([arm], games, players, specs, first, jobs)
            if result["partial"]:   # stopped in the middle of a trial: it is not one, and the search ends
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                stopped = True
                break
            cols = columns(result["records"][arm.label], players, goal)
            value = objective(cols, goal, _complete(cols))
            low, high = interval(cols, goal)
            played[key] = value
            study.tell(trial, value)
            done.append({"values": values, "objective": value, "low": low, "high": high,
                         "seeds": [first, first + games - 1], "figures": _figures(result, goal, arm.label)})
            if progress:
                progress(len(done), values, noisy(value, low, high))
    except KeyboardInterrupt:
        stopped = True
    out = {"ruleset": base.name, "objective": objective_text, "params": params, "trials_planned": planned,
           "games_per_trial": games, "games": games * len(done), "players": players, "bots": specs,
           "seed": seed, "seeds": "trial k (from 0) plays seeds seed + k * games, the finalists the next "
           f"{confirm_games} seeds after the planned trials'", "partial": stopped, "trials": done,
           "warning": (f"only {len(done)} trials of a space of more values: too few to choose among "
                       f"(give --trials {FEW_TRIALS} or more)") if len(done) < min(FEW_TRIALS, _space_size(space)) else None,
           "confirm_games": confirm_games, "finalists": [], "best": None, "ties": []}
    if done and not stopped and finalists:
        try:
            out.update(confirm(ruleset, done, goal, finalists, confirm_games, players, specs,
                               seed + planned * games, jobs))
        except KeyboardInterrupt:
            out["partial"] = True
    if out["best"] is None and done:   # no re-measure: the best trial, said to be chosen on its own games
        out["best"] = {**min(done, key=lambda t: t["objective"]), "remeasured": False}
    return out


def _unplayed(space: list, played: dict, rng: random.Random) -> dict:
    """A value combination not played yet, at random (the space has one: trials <= its size)."""
    while True:
        values = {name: rng.randint(lo, hi) if whole else rng.uniform(lo, hi) for name, lo, hi, whole in space}
        if tuple(values.values()) not in played:
            return values


def _figures(result: dict, goal: tuple, label: str) -> dict:
    """The figures the objective is made of, as compare reports them."""
    return {k: row[label] for k, row in result["metrics"].items() if k not in compare.BALANCES
            and (k == goal[0] or goal[0] == "balance" and k.endswith("player wins"))}


def confirm(ruleset: str, done: list, goal: tuple, k: int, games: int, players: int, specs: str, first: int,
            jobs: int = 1) -> dict:
    """The ``k`` best trials' values played again on ``games`` fresh seeds (the same for each: paired):
    the best on these games, and those whose paired difference from it has a 95 % interval that
    reaches 0 (a tie within the noise)."""
    chosen = sorted(done, key=lambda t: t["objective"])[:k]
    with contextlib.ExitStack() as stack:
        arms = [stack.enter_context(together(ruleset, t["values"])) for t in chosen]
        for i, arm in enumerate(arms):
            arm.label = f"finalist {i + 1}"
        records, stopped = compare.play(arms, 0, games, players, specs, first, jobs)
        if stopped:
            raise KeyboardInterrupt
        result = compare.summarize(arms, records, games, stopped, players, specs, first)
    cols = [columns(records[a.label], players, goal) for a in arms]
    scored = []
    for t, c, a in zip(chosen, cols, arms):
        low, high = interval(c, goal)
        scored.append({"values": t["values"], "objective": objective(c, goal, _complete(c)), "low": low,
                       "high": high, "search_objective": t["objective"], "figures": _figures(result, goal, a.label),
                       "remeasured": True, "_cols": c})
    best = min(scored, key=lambda f: f["objective"])
    for f in scored:
        f["difference"] = list(difference(f["_cols"], best["_cols"], goal)) if f is not best else [0.0, 0.0]
        f["tie"] = f is best or f["difference"][0] <= 0
    for f in scored:
        del f["_cols"]
    return {"finalists": scored, "best": best, "ties": [f["values"] for f in scored if f["tie"]],
            "confirm_seeds": [first, first + games - 1]}


def _values(values: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())


def describe(result: dict) -> str:
    lines = [f"{result['ruleset']}: tune {', '.join(result['params'])} toward {result['objective']}: "
             f"{len(result['trials'])} trials of {result['games_per_trial']} games on fresh seeds "
             f"({result['games']} games){' (PARTIAL: stopped early)' if result['partial'] else ''}"]
    if result.get("warning"):
        lines.append(f"WARNING: {result['warning']}")
    best = result["best"]
    if best is None:
        return lines[0] + "\nno trial finished"
    if not best.get("remeasured"):
        lines.append(f"best trial: {_values(best['values'])} (objective {noisy(best['objective'], best['low'], best['high'])}"
                     f" on the games that chose it: not re-measured, so likely better than it is)")
    else:
        lines.append(f"the {len(result['finalists'])} best trials re-measured on {result['confirm_games']} fresh "
                     f"paired games (seeds {result['confirm_seeds'][0]}..{result['confirm_seeds'][1]}):")
        for f in result["finalists"]:
            said = ("best" if f is best or f["values"] == best["values"] else
                    f"{'ties' if f['tie'] else 'worse'}: {f['difference'][0]:+.2g} to {f['difference'][1]:+.2g} "
                    f"from the best (95 % paired bootstrap)")
            lines.append(f"  {_values(f['values'])}: objective {noisy(f['objective'], f['low'], f['high'])} "
                         f"(search {f['search_objective']:.2g}); {said}")
        lines.append(f"best: {_values(best['values'])} (objective {noisy(best['objective'], best['low'], best['high'])}"
                     f", 95 % bootstrap)")
        if len(result["ties"]) > 1:
            lines.append(f"tie with the best within the noise: {'; '.join(_values(v) for v in result['ties'])}")
    for name, cell in best["figures"].items():
        lines.append(f"  {name}: {cell['mean']:.3g} [{cell['low']:.3g}, {cell['high']:.3g}]")
    return "\n".join(lines)


def plot(result: dict, path: str) -> None:
    """The objective of every trial (with its 95 % interval) against each parameter's value, one
    panel a parameter, and the finalists re-measured (SVG or PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(result["trials"][0]["values"]) if result["trials"] else []
    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(max(7.0, 5.0 * len(names)), 4.2), squeeze=False)
    trials = result["trials"]
    for ax, name in zip(axes[0], names):
        xs = [t["values"][name] for t in trials]
        ys = [t["objective"] for t in trials]
        ax.errorbar(xs, ys, yerr=[[y - t["low"] for y, t in zip(ys, trials)], [t["high"] - y for y, t in zip(ys, trials)]],
                    fmt="o", color="tab:grey", alpha=0.7, capsize=2, label="trials (own games)")
        if result["finalists"]:
            fs = result["finalists"]
            ax.errorbar([f["values"][name] for f in fs], [f["objective"] for f in fs],
                        yerr=[[f["objective"] - f["low"] for f in fs], [f["high"] - f["objective"] for f in fs]],
                        fmt="s", color="tab:blue", capsize=3, label="best trials re-measured (fresh games)")
        if result["best"]:
            ax.plot([result["best"]["values"][name]], [result["best"]["objective"]], "*", color="tab:red",
                    markersize=14, label="best")
        if all(isinstance(x, int) for x in xs):
            ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel(name)
        ax.set_ylabel("objective (smaller is better)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"{result['ruleset']}: {result['objective']}, 95 % intervals", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


# ------------------------------------------------------------------ the verb: railrules tune
def add_arguments(parser) -> None:
    parser.description = (
        "Each trial sets the --param constants to values Optuna's seeded TPE sampler proposes (a value "
        "is never played twice) and plays --games games on seeds of its own (trial k: seeds S + k x "
        "games...). After --trials trials (or Ctrl-C, exit 130) the best few are played again on fresh "
        "paired seeds, and the report gives the best on those games, the values that tie with it "
        "within the noise (95% paired bootstrap) and its figures' 95% intervals.")
    parser.add_argument("ruleset", help="a shipped ruleset's name (see: railrules list) or a ruleset folder")
    parser.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                        help="a constant of components.yaml (or a map's entry: prices.3) and its range; "
                        "whole numbers for a whole-number constant (repeatable)")
    parser.add_argument("--objective", default="balance", help="balance (default: the largest gap between "
                        "a turn-order position's win rate and an equal share), or METRIC=TARGET "
                        "('decisions=150')")
    parser.add_argument("--trials", type=parser.count(1), default=20, help="values to try (default 20; at "
                        f"most the number of values there are; fewer than {FEW_TRIALS} is warned about)")
    parser.add_argument("--games", type=parser.count(1), default=50, help="games per trial (default 50)")
    parser.add_argument("--finalists", type=parser.count(0), default=3, help="the best trials played again "
                        "on fresh seeds before the report (default 3; 0: none, and the best is chosen on "
                        "the games that found it)")
    parser.add_argument("--confirm-games", type=parser.count(1), metavar="N", help="games each finalist "
                        "plays again (default twice --games)")
    parser.add_argument("--budget", type=parser.count(1), metavar="GAMES", help="deprecated: games in all "
                        "for the search, read as --trials GAMES / --games")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game and of the sampler")
    parser.add_players()
    parser.add_bots("--bots", "--bot", dest="bot", default="random", help="the bots (default random).")
    parser.add_argument("--jobs", type=parser.count(1), default=1, help="worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object (every trial)")
    parser.add_argument("--plot", metavar="FILE", help="also draw the objective against each value (.svg "
                        "or .png; needs matplotlib)")
    parser.add_argument("--force", action="store_true", help="allow --plot to overwrite an existing file")


def run(args) -> int:
    import json
    import sys
    try:
        import optuna  # noqa: F401
    except ImportError:
        raise verbs.Usage('tune needs Optuna: pip install "railrules[tune]"') from None
    if args.plot and Path(args.plot).suffix.lower() not in (".svg", ".png"):   # before any trial
        raise verbs.Usage(f"--plot {args.plot}: the picture is .svg or .png")
    verbs.check_outputs({"--plot": args.plot}, args.force)
    trials = args.trials
    if args.budget is not None:
        trials = max(1, args.budget // args.games)
        print(f"railrules tune: --budget is deprecated (it counted games in all): read as --trials {trials} "
              f"(--budget {args.budget} / --games {args.games}); give --trials and --games", file=sys.stderr)

    def progress(k, values, value):
        if sys.stderr.isatty() and not args.json:
            print(f"trial {k}: {values} -> {value}", file=sys.stderr)
    try:
        result = tune(args.ruleset, args.param, args.objective, trials, args.games,
                      lambda rs: verbs.players(rs, args.players), args.bot, args.seed, args.jobs, progress,
                      args.finalists, args.confirm_games)
    except ArmError as err:
        raise verbs.Usage(str(err)) from None
    if result["warning"]:
        print(f"railrules tune: WARNING: {result['warning']}", file=sys.stderr)
    if args.plot and result["trials"]:
        try:
            plot(result, args.plot)
        except ImportError:
            print('railrules tune: no plot: matplotlib is not installed (pip install "railrules[report]")',
                  file=sys.stderr)
    print(json.dumps(result) if args.json else describe(result))
    return verbs.STOPPED if result["partial"] else verbs.EXIT_OK
