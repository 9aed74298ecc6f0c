"""`railrules compare`: the same seeded games under each arm (base, other ruleset folders,
variants, overrides), and what changed, with corrected verdicts.

Games are paired: game i of every arm has the same seed, the same seating of the bots (rotated
from game to game, so every bot sits in every seat) and the same bot seeds. Each metric is a
number per game; an arm's figure is its mean over the games with a 95 % interval (exact for
shares such as win rates, bootstrap otherwise), and its change is the mean of the game-by-game
differences to the base arm with a t interval, a p-value (paired t-test; McNemar's exact test
for 0/1 figures; the exact sign test for win shares with ties, where a shared win counts 1/k)
and an effect size. The p-values of an arm's metrics are corrected together (Holm, or
Benjamini-Hochberg; with ``--primary``, the primary metrics apart from the others): only a change
that stays significant is a verdict. The report leads with the verdict in plain words
(:mod:`.headline`).
"""
from __future__ import annotations

import csv
import difflib
import io
import math
from collections import Counter
from typing import Callable

from railrules.interpreter.checks.lint_coverage import rules_of, unit_rule
from railrules.interpreter.errors import RailrulesError

from railrules.tools.common import verbs
from railrules.tools.lab import runner, stats
from railrules.tools.lab.arms import ArmError, setting_value
from railrules.tools.bots.players import as_played, seat_bots
from railrules.tools.common.tables import Table


def seating(specs: str, players: int, game_index: int) -> list[str]:
    """The bot of each seat in game ``game_index``: one spec everywhere, or the list rotated by
    one seat per game."""
    parts = specs.split(",")
    if len(parts) == 1:
        return parts * players
    return [parts[(k + game_index) % len(parts)] for k in range(players)]


def play_game(rulesets: list, task: tuple) -> dict:
    """One game of one arm; a task is (game index, arm index, seed, players, bot specs)."""
    i, k, seed, players, specs = task
    game = rulesets[k].new_game(players, seed, count_rules=True)
    seats = seating(specs, players, i)
    bots = seat_bots(",".join(seats), game.players, seed, game.ruleset) if len(set(seats)) > 1 \
        else seat_bots(seats[0], game.players, seed, game.ruleset)
    record = {"game": i, "seed": seed, "seats": dict(zip(game.players, seats)), "error": None}
    actions: Counter = Counter()
    leader, changes = None, 0
    order: list = []   # the players in the order of their first decision: the turn order
    declared, start = start_variable(rulesets[k]), None
    estimating = rulesets[k].program.estimate is not None
    try:
        while not game.is_over:
            if game.current_player not in order:
                order.append(game.current_player)
            if declared and start is None:
                start = game.state["globals"].get(declared)
            action = bots[game.current_player].choose(game)
            game.apply(action)
            actions[action.name] += 1
            if estimating and not game.is_over:
                now = _leader(game)
                if now is not None and now != leader:
                    changes += leader is not None
                    leader = now
    except RailrulesError as err:
        record["error"] = str(err.diagnostics[0])
        return record
    scores = game.result["scores"]
    top = sorted(scores.values(), reverse=True)
    record.update(metrics={k: float(v) for k, v in game.metrics().items()})
    record.update(order=turn_order(game.players, order, start))
    record.update(decisions=game.decisions, reasons=game.result["reasons"], scores=scores,
                  winners=game.result["winners"], margin=top[0] - top[1] if len(top) > 1 else 0,
                  lead_changes=changes if estimating else None, actions=dict(actions),
                  rules={rule[1]: v for key, v in game.rule_counts.items() if (rule := unit_rule(key))})
    return record


def start_variable(ruleset) -> str | None:
    """The variable that holds the start player: the one ruleset.yaml's ``start_player:`` names,
    else a variable called ``start_player`` if the ruleset has one, else none."""
    return ruleset.meta.get("start_player") or ("start_player" if "start_player" in ruleset.variables else None)


def turn_order(players: list, deciders: list, start: str | None) -> list:
    """The players in turn order: from the declared start player round the seats, else in the
    order of their first decisions (then those who never decided, in seat order)."""
    first = start if start in players else (deciders[0] if deciders else players[0])
    k = players.index(first)
    rotated = players[k:] + players[:k]
    return rotated if start in players else deciders + [p for p in rotated if p not in deciders]


def _leader(game):
    values = game.estimates()
    best = max(values.values())
    first = [p for p, v in values.items() if v == best]
    return first[0] if len(first) == 1 else None


def run_arms(arms: list, games: int, players: int, specs: str, seed: int, jobs: int = 1,
             time_limit: float | None = None, progress: bool = False, cluster: str | None = None,
             correction: str = "holm", only: list | None = None, primary: list | None = None) -> dict:
    """Play every arm's games; return the records and the figures as one JSON-ready dict."""
    records, stopped = play(arms, 0, games, players, specs, seed, jobs, time_limit, progress, cluster)
    return summarize(arms, records, games, stopped, players, specs, seed, correction, only, primary=primary)


def play(arms: list, first: int, games: int, players: int, specs: str, seed: int, jobs: int = 1,
         time_limit: float | None = None, progress: bool = False, cluster: str | None = None) -> tuple[dict, bool]:
    """Games ``first`` .. ``first + games - 1`` of every arm: (arm label -> records of the games
    every arm finished, whether the work stopped early)."""
    tasks = [(i, k, seed + i, players, specs) for i in range(first, first + games) for k in range(len(arms))]
    done, stopped = runner.run(play_game, [a.ruleset for a in arms], tasks, jobs, time_limit, progress, cluster)
    # only games every arm finished are compared (Ctrl-C may stop in the middle of one)
    complete = [i for i in range(games) if all(t in done for t in tasks[i * len(arms):(i + 1) * len(arms)])]
    return {a.label: [done[tasks[i * len(arms) + k]] for i in complete] for k, a in enumerate(arms)}, stopped


def summarize(arms: list, records: dict, games: int, stopped: bool, players: int, specs: str, seed: int,
              correction: str = "holm", only: list | None = None, alpha: float = 0.05,
              primary: list | None = None, nominal=None) -> dict:
    """The figures of the records of every arm as one JSON-ready dict (``nominal``: a sequential
    look's boundary)."""
    return {"ruleset": arms[0].ruleset.name, "arms": [a.label for a in arms], "games": games,
            "compared": len(records[arms[0].label]), "partial": stopped, "players": players,
            "bots": as_played(specs, arms[0].ruleset),   # (with the settings the ruleset declares)
            "seed": seed, "correction": correction, "primary": primary or [],
            "differences": {a.label: a.ruleset.changed_since(arms[0].ruleset.fingerprints) for a in arms[1:]},
            "settings": {a.label: list(a.setting) for a in arms if a.setting},
            "base_values": {a.setting[0]: setting_value(arms[0].ruleset, a.setting[0]) for a in arms if a.setting},
            "metrics": figures(records, [a.label for a in arms], players, correction, alpha, only, primary, nominal),
            "records": records}


def _per_game(records: list, players: int) -> dict:
    """Metric name -> one value per game (None where a game failed: such games are left out)."""
    ok = [r for r in records if r["error"] is None]
    seats = [f"p{k}" for k in range(1, players + 1)]
    reasons = sorted({x for r in ok for x in r["reasons"]})
    actions = sorted({x for r in ok for x in r["actions"]})
    specs = sorted({s for r in ok for s in r["seats"].values()})

    def share(r, who):
        return (1 / len(r["winners"])) if who in r["winners"] else 0.0

    def beats(r, strong, weak):
        """How often a seat of ``strong`` outscores a seat of ``weak`` in the game (a tie: half)."""
        pairs = [(r["scores"][p], r["scores"][q]) for p, a in r["seats"].items() if a == strong
                 for q, b in r["seats"].items() if b == weak]
        return stats.mean([1.0 if x > y else 0.5 if x == y else 0.0 for x, y in pairs])

    m: dict[str, Callable[..., float]] = {   # called with a game's record
        "decisions": lambda r: r["decisions"], "winner's margin": lambda r: r["margin"],
        "shared win": lambda r: float(len(r["winners"]) > 1),
        "first player wins": lambda r: share(r, r["order"][0])}
    if ok and ok[0]["lead_changes"] is not None:
        m["lead changes"] = lambda r: r["lead_changes"]
    for x in sorted({x for r in ok for x in r["metrics"]}):
        m[f"metric {x}"] = lambda r, x=x: r["metrics"][x]
    for x in reasons:
        m[f"end: {x}"] = lambda r, x=x: float(x in r["reasons"])
    for s in seats:
        m[f"seat {s} wins"] = lambda r, s=s: share(r, s)
    for k in range(1, players):
        m[position_name(k)] = lambda r, k=k: share(r, r["order"][k])
    if len(specs) > 1:
        for b in specs:
            m[f"bot {b} wins"] = lambda r, b=b: stats.mean([share(r, p) for p, x in r["seats"].items() if x == b])
        listed = list(dict.fromkeys(ok[0]["seats"].values()))   # as --bots lists them: weaker first
        for i, weak in enumerate(listed):
            for strong in listed[i + 1:]:
                m[f"ladder: {strong} beats {weak}"] = lambda r, a=strong, b=weak: beats(r, a, b)
    for a in actions:
        m[f"action {a}"] = lambda r, a=a: r["actions"].get(a, 0)
    for x in sorted({x for r in ok for x in r.get("rules", ())}):
        m[f"rule {x}"] = lambda r, x=x: r["rules"].get(x, 0)
    return {name: [f(r) if r["error"] is None else None for r in records] for name, f in m.items()}


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def position_name(k: int) -> str:
    """The metric of the player ``k``-th (from 0) in turn order: the start player is first."""
    return f"{_ORDINALS[k]} player wins" if k < len(_ORDINALS) else f"player {k + 1} in turn order wins"


_FIRST = ("decisions", "winner's margin", "shared win", "first player wins", "lead changes")
_GROUPS = ("ladder: ", "metric ", "end: ", "seat ", "second player", "third player", "fourth player", "fifth player",
           "sixth player", "player ", "bot ", "action ", "rule ")
BALANCES = ("seat balance", "turn order balance")


def _order(name: str) -> tuple:
    """Game-wide metrics first, then the ruleset's, end reasons, seats, bots, actions and rules,
    each by name."""
    if name in _FIRST:
        return (0, _FIRST.index(name), "")
    return (1 + next((i for i, g in enumerate(_GROUPS) if name.startswith(g)), len(_GROUPS)), 0, name)


FAMILIES = ("metric", "end", "seat", "bot", "ladder", "action", "rule")


def known_metrics(ruleset, players: int, specs: str) -> set:
    """The metrics a comparison of ``ruleset`` can report, as far as the rules say before any
    game (an end reason given as text by ``end game`` is known only once met)."""
    names = set(_FIRST) | {position_name(k) for k in range(1, players)}
    names |= {f"seat p{k} wins" for k in range(1, players + 1)}
    names |= {f"bot {b} wins" for b in set(specs.split(","))}
    listed = list(dict.fromkeys(specs.split(",")))
    names |= {f"ladder: {b} beats {a}" for i, a in enumerate(listed) for b in listed[i + 1:]}
    names |= {f"metric {name}" for name, _, _ in ruleset.program.metrics}
    prefix = {"procedure": "rule ", "trigger": "rule ", "option": "action ", "end": "end: "}
    names |= {prefix[r["kind"]] + r["name"] for r in rules_of(ruleset) if r["kind"] in prefix}
    return names


def check_metrics(chosen: list, rulesets: list, players: int, specs: str) -> None:
    """Refuse a metric name no arm can report, before any game is played."""
    known = set().union(*(known_metrics(r, players, specs) for r in rulesets))
    for name in chosen:
        if name in known or name in FAMILIES or name.startswith("end: "):
            continue
        close = difflib.get_close_matches(name, sorted(known) + list(FAMILIES), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else "; a family (metric, end, seat, bot, ladder, action, rule) chooses all of its metrics"
        raise ArmError(f"--metrics/--plot: no metric '{name}'{hint}", "RR502")


def _chosen(name: str, only: list | None) -> bool:
    return not only or any(name == w or name.startswith(w + " ") or name.startswith(w + ": ") for w in only)


def _merge_duplicates(per_arm: dict, names: list, keep: list | None = None) -> tuple[list, dict]:
    """One row per quantity: a metric whose per-game values equal an earlier one's in every arm
    (an action and the rule that only it calls) is that metric's row. Constant figures are not
    merged (they carry no signal; the warning says so), nor are the win rates by seat, position
    and bot, each of which a designer looks for, nor the metrics ``keep`` names (the primary
    ones). Returns (names kept, kept -> the same)."""
    first: dict = {}
    same: dict = {}
    for name in names:
        key = tuple(tuple(arm.get(name) or ()) for arm in per_arm.values())
        values = {v for arm_values in key for v in arm_values}
        if len(values) > 1 and key in first and not name.endswith(" wins") and not name.startswith("ladder: ") \
                and name not in (keep or ()):
            same.setdefault(first[key], []).append(name)
        else:
            first.setdefault(key, name)
    return [name for name in names if not any(name in v for v in same.values())], same


def figures(records: dict, labels: list, players: int, correction: str = "holm", alpha: float = 0.05,
            only: list | None = None, primary: list | None = None, nominal=None) -> dict:
    """Per metric and arm: mean and interval, and (not for the base) the paired change with its
    p-value corrected over the metrics of that arm (``holm`` or ``fdr``); ``only``: the metrics
    (names or families) to report; ``primary``: metrics corrected among themselves, the others
    apart as exploratory; ``nominal``: a sequential look's boundary (see :mod:`.sequential`)."""
    per_arm = {label: _per_game(records[label], players) for label in labels}
    names = sorted({name for label in labels for name in per_arm[label] if _chosen(name, only)}, key=_order)
    names, same = _merge_duplicates(per_arm, names, primary)
    out = {}
    for name in names:
        base = per_arm[labels[0]].get(name)
        row: dict = {"kind": "count"}
        shares = []   # a share of games only if every arm's values are (all 0 in one arm is not)
        for label in labels:
            xs = per_arm[label].get(name)
            if xs is None:  # e.g. an end reason only this arm met: 0 in every other game
                xs = [0.0 if v is not None else None for v in per_arm[label]["decisions"]]
            both = [(x, b) for x, b in zip(xs, base or [0.0] * len(xs)) if x is not None and b is not None]
            mine = [x for x, _ in both] if label != labels[0] else [x for x in xs if x is not None]
            shares.append(_is_share(name, mine))
            cell = stats.proportion(mine) if _is_share(name, mine) else stats.summary(mine)
            cell["same"] = bool(mine) and min(mine) == max(mine)   # the same in every game
            if label != labels[0]:
                cell["change"] = stats.paired_test([x for x, _ in both], [b for _, b in both],
                                                   exact=_is_share(name, mine + [b for _, b in both]))
            row[label] = cell
        row["kind"] = "share" if all(shares) else "count"
        if name in same:
            row["same as"] = same[name]
        out[name] = row
    families = [[n for n in names if n in primary], [n for n in names if n not in primary]] if primary else [names]
    for label in labels[1:]:
        for family in families:
            changes = [out[name][label]["change"] for name in family]
            if not changes:
                continue
            adjusted, rejected = stats.CORRECTIONS[correction]([c["p"] for c in changes], alpha,
                                                               nominal or stats.as_is)
            for c, a, r in zip(changes, adjusted, rejected):
                # the smallest change found with 80 % power at the level Holm's first step asks of a
                # comparison of this many games at 5 % (a sequential look tests at less: see there)
                c.update(p_corrected=a, significant=bool(r),
                         detectable=stats.detectable(c["sd"], c["n"], 0.05 / len(changes)) if c["sd"] else None)
                if primary:
                    c["family"] = "primary" if family is families[0] else "exploratory"
    for label in labels:
        for balance, names in (("seat balance", [f"seat p{k} wins" for k in range(1, players + 1)]),
                               ("turn order balance", [position_name(k) for k in range(players)])):
            wins = [sum(x for x in per_arm[label][name] if x is not None) for name in names]
            chi2, p = stats.chi_square_equal(wins)
            total = sum(wins)
            out.setdefault(balance, {})[label] = {
                "largest seat advantage": (max(wins) / total - 1 / players) if total else math.nan,
                "chi2": chi2, "p": p}
    return out


def _is_share(name: str, xs: list) -> bool:
    """A win rate, an end reason's or a tie's frequency, or a true/false metric: its interval is
    the exact one of a proportion."""
    if name.endswith(" wins") or name.startswith(("end: ", "ladder: ")) or name == "shared win":
        return stats.is_rate(xs)
    return name.startswith("metric ") and bool(xs) and all(x in (0, 1) for x in xs)


CORRECTION_NAMES = {"holm": "Holm's step-down (the chance of any false verdict per arm at most 5 %)",
                    "fdr": "Benjamini-Hochberg (the expected share of false verdicts at most 5 %)"}


def tests_made(result: dict) -> int:
    """How many metrics each arm's correction counted."""
    return sum(1 for name in result["metrics"] if name not in BALANCES)


def interval_cell(c: dict) -> str:
    if c["n"] == 0 or math.isnan(c["mean"]):
        return "-"
    return f"{c['mean']:.3g} [{c['low']:.3g}, {c['high']:.3g}]"


def change_text(d: dict) -> str:
    """A paired change as the table shows it: mean [interval], or that no game differed."""
    if d["n"] == 0 or math.isnan(d["mean"]):
        return "-"
    if d["differed"] == 0:
        return "Δ none: no game differed"
    text = f"Δ {d['mean']:+.3g} [{d['low']:+.3g}, {d['high']:+.3g}]{'*' if d['significant'] else ''}"
    return text + (f" (detectable ±{d['detectable']:.2g})" if d.get("detectable") else "")


def _effect(d: dict) -> str:
    if d["effect_kind"] == "d":
        return f"d={d['effect']:+.2f}" if not math.isinf(d["effect"]) else "d=inf: both arms constant"
    return f"{d['effect_kind']} {d['effect']:+.3g}"


def most_changed(result: dict, k: int = 6) -> list[str]:
    """The ``k`` metrics that changed most against the base: smallest corrected p-value over the
    arms, then largest effect; metrics where no game differed are left out."""
    labels = result["arms"][1:]
    scored = []
    for name, row in result["metrics"].items():
        changes = [row[a]["change"] for a in labels if name not in BALANCES and "change" in row[a]]
        if any(c["differed"] for c in changes):
            scored.append((min(c["p_corrected"] for c in changes),
                           -max(abs(c["effect"]) for c in changes), name))
    return [name for *_, name in sorted(scored)[:k]]


def verdicts(result: dict) -> list[str]:
    """One line per metric and arm whose paired change stays more than the games' noise after
    the correction for the number of metrics."""
    labels = result["arms"]
    out = []
    for name, row in result["metrics"].items():
        for label in labels[1:]:
            d = row[label].get("change") if name not in BALANCES else None
            if d and d["significant"]:
                out.append(f"{label}: {'(exploratory) ' if d.get('family') == 'exploratory' else ''}{name} {row[labels[0]]['mean']:.3g} -> {row[label]['mean']:.3g} "
                           f"(change {d['mean']:+.3g}, 95% interval {d['low']:+.3g} to {d['high']:+.3g}; "
                           f"{_effect(d)}; corrected p={d['p_corrected']:.2g})")
    return out


def difference_notes(result: dict, shown: int = 12) -> list[str]:
    """What each arm's rules and data differ in from the base's (by their fingerprints)."""
    out = []
    for label, changes in result.get("differences", {}).items():
        more = f", and {len(changes) - shown} more" if len(changes) > shown else ""
        out.append(f"{label} differs from the base in: {', '.join(changes[:shown]) + more}" if changes
                   else f"{label} has the base's rules and data")
    return out


def signal_warnings(result: dict) -> list[str]:
    """Figures that cannot tell the arms apart: every game of an arm tied, or a metric the same
    in every game of every arm."""
    labels, m = result["arms"], result["metrics"]
    out = [f"WARNING: every game of {label} ended in a tie: its win figures carry no signal"
           for label in labels if "shared win" in m and m["shared win"][label]["n"]
           and m["shared win"][label]["mean"] == 1]
    constant = [name for name, row in m.items() if name not in BALANCES and all(
        row[a]["n"] and row[a]["same"] and row[a]["mean"] == row[labels[0]]["mean"] for a in labels)]
    if constant:
        out.append(f"WARNING: the same in every game (no signal): {', '.join(constant)}")
    return out


def correction_note(result: dict) -> str:
    """What the verdicts were corrected for, said once."""
    method = result.get("correction", "holm")
    return (f"changes that stay significant after {CORRECTION_NAMES[method]}, over "
            f"{tests_made(result)} tests per arm (one per metric):")


def table(result: dict) -> Table:
    """The figures as a table: one row per metric, one column per arm; rows with a change marked *."""
    labels = result["arms"]
    title = (f"{result['ruleset']}: {result['compared']} paired games of {result['games']}"
             f"{' (PARTIAL: stopped early)' if result['partial'] else ''}, {result['players']} players, "
             f"bots {result['bots']}, seeds {result['seed']}..{result['seed'] + result['games'] - 1}")
    t = Table(title, ["metric"] + labels)
    for name, row in result["metrics"].items():
        if name in BALANCES:
            continue
        cells = [name + "".join(f" = {x}" for x in row.get("same as", ()))]
        for label in labels:
            c = row[label]
            text = interval_cell(c)
            if "change" in c:
                d = c["change"]
                text += "  " + change_text(d)
                if d["significant"]:
                    t.marked.add(len(t.rows))
            cells.append(text)
        t.rows.append(cells)
    for name in BALANCES:
        balance = result["metrics"].get(name, {})
        t.rows.append([f"{name} (largest advantage; χ² p)"] + [
            f"{balance[label]['largest seat advantage']:+.3g}; p={balance[label]['p']:.2g}" for label in labels])
    t.notes += [result["sequential"]["summary"]] if "sequential" in result else []
    t.notes += difference_notes(result)
    t.notes += signal_warnings(result)
    t.notes += [correction_note(result)]
    t.notes += [f"  {v}" for v in verdicts(result)] or ["  none"]
    errors = [(label, r) for label, rs in result["records"].items() for r in rs if r["error"]]
    t.notes += [f"error in {label}, seed {r['seed']}: {r['error']}" for label, r in errors[:5]]
    return t


def to_csv(result: dict) -> str:
    """One row per game and arm (for pandas or R)."""
    players = [f"p{k}" for k in range(1, result["players"] + 1)]
    actions = sorted({a for rs in result["records"].values() for r in rs for a in r.get("actions", {})})
    metrics = sorted({a for rs in result["records"].values() for r in rs for a in r.get("metrics", {})})
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["arm", "game", "seed", "error", "decisions", "reasons", "winners", "margin", "lead_changes", "turn_order"]
               + [f"score_{p}" for p in players] + [f"bot_{p}" for p in players] + [f"metric_{a}" for a in metrics]
               + [f"action_{a}" for a in actions])
    for label, rs in result["records"].items():
        for r in rs:
            ok = r["error"] is None
            w.writerow([label, r["game"], r["seed"], r["error"] or "",
                        r.get("decisions", ""), ";".join(r.get("reasons", [])), ";".join(r.get("winners", [])),
                        r.get("margin", ""), "" if r.get("lead_changes") is None else r["lead_changes"],
                        ";".join(r.get("order", []))]
                       + [r["scores"][p] if ok else "" for p in players] + [r["seats"][p] for p in players]
                       + [r["metrics"][a] if ok else "" for a in metrics]
                       + [r["actions"].get(a, 0) if ok else "" for a in actions])
    return out.getvalue()


# ------------------------------------------------------------------ the verb: railrules compare
def add_arguments(parser) -> None:
    parser.description = (
        "Arms: the base ruleset, each --variant, and each value of each --set NAME=V1,V2,... (a "
        "sweep). Game i of every arm uses the same seed, bot seating (rotated game by game) and bot "
        "seeds. Per metric: each arm's mean with a 95 % interval, and the paired change to the base "
        "arm with its effect size; * marks a change that stays significant after correcting for the "
        "number of metrics (Holm, or --fdr). Ctrl-C or --time-limit stops early and reports the games "
        "finished, marked partial (exit 130).")
    parser.add_argument("rulesets", nargs="+", metavar="RULESET", help="the base: a shipped ruleset's "
                        "name (see: railrules list) or a ruleset folder; more folders (or names) are arms "
                        "of their own, played with the same seeds, and the report names the definitions "
                        "and data that differ")
    parser.add_argument("--variant", action="append", metavar="VARIANT",
                        help="an arm: " + parser.VARIANT_HELP + " (repeatable)")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="an arm with a constant of components.yaml changed; NAME=V1,V2,... makes one "
                        "arm per value (repeatable)")
    parser.add_argument("--games", type=parser.count(1), default=100, help="games per arm (default 100); "
                        "with --until-verdict, games per block")
    parser.add_argument("--until-verdict", action="store_true", help="play block after block (of --games) "
                        "and stop at the first block after which a metric (with --primary: every primary "
                        "metric; with --metrics: every metric chosen) has a corrected verdict, testing each "
                        "look at its Lan-DeMets O'Brien-Fleming-type boundary (5%% spent over the looks) so "
                        "that stopping early keeps the error rate; the report says how many games and why "
                        "it stopped")
    parser.add_argument("--primary", metavar="METRIC[,...]", help="the metrics the comparison is for: "
                        "corrected among themselves, told first in the headline, and with --until-verdict "
                        "what it stops on; the others are reported as exploratory")
    parser.add_argument("--min-effect", action="append", metavar="KIND=N", help="the smallest change that "
                        "matters in the headline: share=POINTS for win rates and other shares of games "
                        "(default 5 points), count=PERCENT of the base's mean for other figures (default "
                        "5), or METRIC=N for one metric (comma-separated or repeatable)")
    parser.add_argument("--max-games", type=parser.count(1), metavar="N", help="with --until-verdict: the "
                        "most games per arm (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    parser.add_players()
    parser.add_bots("--bots", "--bot", dest="bot", default="random",
                    help="the bots (default random), seated in rotation when several.")
    parser.add_parallel()
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object (figures and games)")
    parser.add_argument("--csv", metavar="FILE", help="also write one row per game and arm to FILE")
    parser.add_argument("--html", metavar="FILE", help="also write a self-contained report with plots to "
                        "FILE (plots need matplotlib: pip install \".[report]\")")
    parser.add_argument("--force", action="store_true", help="allow --csv and --html to overwrite existing files")
    parser.add_argument("--metrics", nargs="+", metavar="NAME", help="report (and correct over) only these "
                        "metrics: names as the table shows them, or families (metric, end, seat, bot, "
                        "ladder, action, rule)")
    parser.add_argument("--ladder", type=parser.bots, metavar="BOTS", help="a skill ladder, weaker bots "
                        "first (random,greedy,mcts): seats them in rotation and reports how often each "
                        "stronger bot outscores each weaker one per arm, and whether a variant makes skill "
                        "matter more or less")
    parser.add_argument("--plot", nargs="+", metavar="METRIC", help="the metrics of the --html report's "
                        "change and sweep plots (default: the six that changed most)")
    parser.add_argument("--fdr", action="store_true", help="correct the verdicts with Benjamini-Hochberg "
                        "(the expected share of false verdicts at most 5%%) instead of Holm (the chance "
                        "of any false verdict per arm at most 5%%)")


def run(args) -> int:
    import sys
    from functools import partial
    from pathlib import Path

    from railrules.tools.common.outputs import OutputError, write
    from railrules.tools.lab import sequential
    from railrules.tools.lab.arms import Arms
    from railrules.tools.lab.headline import MinEffectError, end_words, headline, parse_min_effect
    from railrules.tools.lab.report import to_html
    verbs.check_outputs({"--csv": args.csv, "--html": args.html}, args.force)
    try:
        with Arms(args.rulesets[0], args.variant or [], args.set or [], args.rulesets[1:]) as arms:
            players = verbs.players(arms[0].ruleset, args.players)
            if args.ladder:
                args.bot, args.metrics = args.ladder, (args.metrics or []) + ["ladder"]
            primary = [m.strip() for m in args.primary.split(",") if m.strip()] if args.primary else []
            check_metrics((args.metrics or []) + (args.plot or []) + primary, [a.ruleset for a in arms],
                          players, args.bot)
            min_effect = parse_min_effect(args.min_effect, known_metrics(arms[0].ruleset, players, args.bot))
            if args.max_games and not args.until_verdict:
                raise verbs.Usage("--max-games goes with --until-verdict")
            play_them = partial(sequential.run, arms, args.games, max(args.max_games or 1000, args.games)) \
                if args.until_verdict else partial(run_arms, arms, args.games)
            result = play_them(players, args.bot, args.seed, args.jobs, args.time_limit,
                               progress=sys.stderr.isatty() and not args.json, cluster=args.cluster,
                               correction="fdr" if args.fdr else "holm",
                               only=args.metrics and args.metrics + primary, primary=primary)
            result["ends"] = end_words([a.ruleset for a in arms])
    except (ArmError, MinEffectError) as err:
        raise verbs.Usage(str(err)) from None
    result["headline"] = headline(result, min_effect, args.metrics)
    failed = False
    for path, make in ((args.csv, to_csv), (args.html, lambda r: to_html(r, verdicts(r), args.plot))):
        if path:
            try:
                write(Path(path), make(result))
            except OutputError as err:
                print(f"railrules compare: {err}", file=sys.stderr)
                failed = True
    failed = failed or any(r["error"] for rs in result["records"].values() for r in rs)
    if not args.json:
        print("\n".join(result["headline"]) + "\n")
    code = verbs.figures(result, args.json, table)
    return verbs.EXIT_FAIL if failed and code == verbs.EXIT_OK else code
