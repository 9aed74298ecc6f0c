"""`railrules tune`: search constant values toward an objective with paired games.

Each trial sets the constants (``--param NAME=LO..HI``, entries of maps too: ``prices.3``)
to values Optuna's TPE sampler proposes (seeded: the same command proposes the same values) and
plays the same seeded games as every other trial (paired: the values differ, not the luck). The
objective is ``balance`` (the largest gap between a position in turn order's win rate and an
equal share, as compare reports it) or ``METRIC=TARGET`` (the distance of a metric's mean from
TARGET). Ctrl-C or the budget ends the search; the best values found so far are reported with
their figures' 95 % intervals.

Optuna (``pip install ".[tune]"``) is the optimiser: a maintained library whose TPE sampler
handles integer and real ranges, few and noisy evaluations, and seeded runs out of the box.
"""
from __future__ import annotations

import math
from pathlib import Path

from railrules.tools.common import verbs
from railrules.tools.lab import compare
from railrules.tools.lab.arms import ArmError, Arms, overrides

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


def score(result: dict, objective: tuple[str, float | None], label: str) -> float:
    """The objective of one arm's figures (smaller is better)."""
    name, target = objective
    if name == "balance":
        return abs(result["metrics"]["turn order balance"][label]["largest seat advantage"])
    return abs(result["metrics"][name][label]["mean"] - target)


def tune(ruleset: str, params: list[str], objective: str, budget: int, games: int, players_of, specs: str,
         seed: int, jobs: int = 1, progress=None) -> dict:
    """Run the search; ``players_of(ruleset)`` gives the player count. Returns the trials and the
    best one with its figures."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with Arms(ruleset, [], []) as arms:
        base = arms[0].ruleset
        space = parse_params(base, params)
        goal = parse_objective(objective)
        players = players_of(base)
        if goal[0] != "balance":
            compare.check_metrics([goal[0]], [base], players, specs)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
    trials: list = []
    stopped: list = []

    def trial_fn(trial) -> float:
        values = {name: (trial.suggest_int(name, lo, hi) if whole else trial.suggest_float(name, lo, hi))
                  for name, lo, hi, whole in space}
        with Arms(ruleset, [], [f"{k}={v}" for k, v in values.items()]) as arms:
            result = compare.run_arms(arms[-1:] if values else arms, games, players, specs, seed, jobs)
        if result["partial"]:   # stopped in the middle of a trial: it is not one, and the search ends
            stopped.append(True)
            study.stop()
            raise optuna.TrialPruned()
        label = result["arms"][0]
        value = score(result, goal, label)
        figures = {k: row[label] for k, row in result["metrics"].items() if k not in compare.BALANCES
                   and (k == goal[0] or goal[0] == "balance" and k.endswith("player wins"))}
        trials.append({"values": values, "objective": value, "figures": figures})
        if progress:
            progress(len(trials), values, value)
        return value

    try:
        study.optimize(trial_fn, n_trials=max(1, budget // games), catch=())
    except KeyboardInterrupt:
        stopped.append(True)
    done = [t for t in trials if not math.isnan(t["objective"])]
    best = min(done, key=lambda t: t["objective"]) if done else None
    return {"ruleset": base.name, "objective": objective, "params": params, "games_per_trial": games,
            "games": games * len(trials), "players": players, "bots": specs, "seed": seed,
            "partial": bool(stopped), "trials": trials, "best": best}


def describe(result: dict) -> str:
    lines = [f"{result['ruleset']}: tune {', '.join(result['params'])} toward {result['objective']}: "
             f"{len(result['trials'])} trials of {result['games_per_trial']} paired games ({result['games']} games)"
             f"{' (PARTIAL: stopped early)' if result['partial'] else ''}"]
    best = result["best"]
    if best is None:
        return lines[0] + "\nno trial finished"
    values = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in best["values"].items())
    lines.append(f"best: {values} (objective {best['objective']:.3g})")
    for name, cell in best["figures"].items():
        lines.append(f"  {name}: {cell['mean']:.3g} [{cell['low']:.3g}, {cell['high']:.3g}]")
    return "\n".join(lines)


def plot(result: dict, path: str) -> None:
    """The objective against each parameter's value, one panel a parameter (SVG or PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(result["trials"][0]["values"]) if result["trials"] else []
    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(3.2 * max(1, len(names)), 3), squeeze=False)
    for ax, name in zip(axes[0], names):
        ax.plot([t["values"][name] for t in result["trials"]], [t["objective"] for t in result["trials"]], "o")
        if result["best"]:
            ax.plot([result["best"]["values"][name]], [result["best"]["objective"]], "*", markersize=14)
        ax.set_xlabel(name)
    axes[0][0].set_ylabel(f"objective ({result['objective']}; smaller is better)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ------------------------------------------------------------------ the verb: railrules tune
def add_arguments(parser) -> None:
    parser.description = (
        "Each trial sets the --param constants to values Optuna's seeded TPE sampler proposes and "
        "plays the same seeded games (--games) as every other trial; the search ends at --budget "
        "games or Ctrl-C (exit 130) and reports the best values with their figures' 95%% intervals.")
    parser.add_argument("ruleset", help="a shipped ruleset's name (see: railrules list) or a ruleset folder")
    parser.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                        help="a constant of components.yaml (or a map's entry: prices.3) and its range; "
                        "whole numbers for a whole-number constant (repeatable)")
    parser.add_argument("--objective", default="balance", help="balance (default: the largest gap between "
                        "a turn-order position's win rate and an equal share), or METRIC=TARGET "
                        "('decisions=150')")
    parser.add_argument("--budget", type=parser.count(1), default=1000, help="games in all (default 1000)")
    parser.add_argument("--games", type=parser.count(1), default=50, help="paired games per trial (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and of the sampler")
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

    def progress(k, values, value):
        if sys.stderr.isatty() and not args.json:
            print(f"trial {k}: {values} -> {value:.3g}", file=sys.stderr)
    try:
        result = tune(args.ruleset, args.param, args.objective, args.budget, args.games,
                      lambda rs: verbs.players(rs, args.players), args.bot, args.seed, args.jobs, progress)
    except ArmError as err:
        raise verbs.Usage(str(err)) from None
    if args.plot and result["trials"]:
        try:
            plot(result, args.plot)
        except ImportError:
            print('railrules tune: no plot: matplotlib is not installed (pip install "railrules[report]")',
                  file=sys.stderr)
    print(json.dumps(result) if args.json else describe(result))
    return verbs.STOPPED if result["partial"] else verbs.EXIT_OK
