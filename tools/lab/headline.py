"""The verdict of `railrules compare` in plain words: the few changes that matter, first.

A change **matters** when its corrected verdict is significant (see :mod:`.compare`) and its
estimate is at least the practical threshold (``--min-effect``): for a share of games (a win
rate, an end reason, a shared win) ``share`` percentage points (default 5); for any other figure
(decisions, a count, a metric of the rules) ``count`` per cent of the base arm's mean (default
5). A metric's own threshold may be given by its name. The changes that matter are ranked by
their size in thresholds and said in the game's words; the action and rule counts are folded
into one line, "play volume", unless they are asked for (``--metrics`` or ``--primary``).

Turn-order balance is an equivalence test (two one-sided tests, TOST): the paired change of every
position's win rate has a 90 % t interval inside ± the share threshold, i.e. each one-sided test
at 5 %; all positions at once is an intersection–union test, which needs no correction. When an
interval reaches past the threshold the line says how large a change the games cannot rule out.
"""
from __future__ import annotations

import math

from railrules.tools.lab import stats

DEFAULT_MIN_EFFECT = {"share": 5.0, "count": 5.0}   # percentage points; per cent of the base mean
FOLDED = ("action ", "rule ")


class MinEffectError(ValueError):
    pass


def parse_min_effect(items: list[str] | None, known=None) -> dict:
    """``share=POINTS``, ``count=PERCENT`` or ``METRIC=N`` (comma-separated or repeated) over the
    defaults."""
    out = dict(DEFAULT_MIN_EFFECT)
    for item in ",".join(items or []).split(","):
        if not item.strip():
            continue
        name, eq, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not eq or not name.strip() or not number >= 0:
            raise MinEffectError(f"--min-effect '{item}': write share=POINTS, count=PERCENT or "
                                 f"METRIC=N (a number, 0 or more)")
        name = name.strip()
        if name not in DEFAULT_MIN_EFFECT and known is not None and name not in known \
                and not name.startswith("end: "):
            raise MinEffectError(f"--min-effect '{item}': no metric '{name}' (share, count, or a metric "
                                 f"as the table names it)")
        out[name] = number
    return out


def _threshold(name: str, row: dict, base_mean: float, min_effect: dict) -> float:
    """The smallest change that matters, in the metric's own unit."""
    kind = row.get("kind", "count")
    x = min_effect.get(name, min_effect[kind])
    return x / 100 if kind == "share" else x / 100 * abs(base_mean)


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _more(name: str, rising: bool) -> str:
    if name == "decisions":
        return "longer" if rising else "shorter"
    if name == "winner's margin":
        return "larger" if rising else "smaller"
    if name.startswith("metric "):
        return "higher" if rising else "lower"
    return "more" if rising else "fewer"


def words(name: str, row: dict, base: str, arm: str, ends: dict | None = None) -> str:
    """A change as a designer says it: "end "the bank ran out at …" (bank_broken): 87 % of games
    (was 18 %)" (``ends``: an end condition's name -> its own words, :func:`end_words`), "end
    reason X: ..." for one that has none, "games 10 % shorter (257 -> 234 decisions)"."""
    old, new, d = row[base]["mean"], row[arm]["mean"], row[arm]["change"]
    if row.get("kind") == "share":
        if name.startswith("end: "):
            about = (ends or {}).get(name[5:])
            reason = f'end "{about}" ({name[5:]})' if about else f"end reason {name[5:]}"
            said = f"{reason}: {_pct(new)} of games (was {_pct(old)})"
        elif name.startswith("ladder: "):
            strong, _, weak = name[8:].partition(" beats ")
            said = f"{strong} outscores {weak} in {_pct(new)} of pairings (was {_pct(old)})"
        elif name == "shared win":
            said = f"shared wins: {_pct(new)} of games (was {_pct(old)})"
        else:
            subject = name.removeprefix("metric ")
            subject = f"the {subject}" if name.endswith("player wins") else subject
            said = f"{subject} {_pct(new)} of games (was {_pct(old)})" if name.endswith(" wins") \
                else f"{subject}: {_pct(new)} of games (was {_pct(old)})"
        return f"{said}; change {100 * d['low']:+.0f} to {100 * d['high']:+.0f} points (95 %)"
    subject = {"decisions": "games", "lead changes": "lead changes"}.get(name, name.removeprefix("metric "))
    unit = {"decisions": " decisions", "lead changes": " a game"}.get(name, "")
    if old:
        size = f"{abs(new / old - 1) * 100:.0f} % {_more(name, new > old)}"
    else:
        size = f"{_more(name, new > old)} (none in the base)"
    return (f"{subject} {size} ({old:.3g} -> {new:.3g}{unit}); change {d['low']:+.3g} to "
            f"{d['high']:+.3g} (95 %)")


def end_words(rulesets) -> dict:
    """Each end condition's name -> the words it is said in (``as "..."``), what it reads from
    the game shown as "…" (the words of a game are not those of all games): the first ruleset's
    where two say it differently."""
    from railrules.interpreter.dsl import nodes
    out: dict = {}
    for ruleset in rulesets:
        for d in ruleset.definitions:
            if isinstance(d, nodes.EndDef) and isinstance(d.about, nodes.Str) and d.name not in out:
                out[d.name] = "".join(p if isinstance(p, str) else "…" for p in d.about.parts)
    return out


def _balance(result: dict, arm: str, margin: float) -> str | None:
    """The turn-order line: an equivalence test (TOST) of every position's paired change."""
    from railrules.tools.lab.compare import position_name
    rows = [result["metrics"].get(position_name(k)) for k in range(result["players"])]
    if not all(rows) or not all("change" in r[arm] for r in rows):
        return None
    widest, who = 0.0, ""
    for k, row in enumerate(rows):
        d = row[arm]["change"]
        if d["n"] < 2:
            return None
        half = stats.t_isf(0.05, d["n"] - 1) * d["sd"] / math.sqrt(d["n"])
        reach = max(abs(d["mean"] - half), abs(d["mean"] + half))
        if reach > widest:
            widest, who = reach, position_name(k).removesuffix(" wins")
    points = 100 * margin
    if widest < margin:
        return (f"turn-order balance: no position's win rate changed by more than ±{points:.0f} points "
                f"(equivalence test, TOST: every 90 % interval within ±{points:.0f})")
    return (f"turn-order balance: not shown unchanged: the {who}'s win rate may have moved by up to "
            f"±{100 * widest:.0f} points (90 % interval; TOST at ±{points:.0f} needs more games)")


def headline(result: dict, min_effect: dict | None = None, asked: list | None = None) -> list[str]:
    """The verdict in a few lines per arm, the largest change first."""
    from railrules.tools.lab.compare import BALANCES, position_name
    min_effect = min_effect or dict(DEFAULT_MIN_EFFECT)
    labels, metrics = result["arms"], result["metrics"]
    primary = result.get("primary") or []
    ends = result.get("ends")
    base = labels[0]
    unfolded = {n for n in metrics if any(n == a or n.startswith(a + " ") for a in (asked or []) + primary)}
    out: list[str] = []
    for arm in labels[1:]:
        setting = result.get("settings", {}).get(arm)
        was = f" (base: {setting[0]}={result['base_values'].get(setting[0])})" if setting else ""
        out.append(f"{arm} against the base{was}, {result['compared']} paired games, bots {result['bots']}:")
        matters, smaller, folded = [], 0, []
        for name, row in metrics.items():
            if name in BALANCES or "change" not in row[arm]:
                continue
            d = row[arm]["change"]
            if name in primary:
                continue
            if not d["significant"]:
                continue
            threshold = _threshold(name, row, row[base]["mean"], min_effect)
            if abs(d["mean"]) < threshold or d["mean"] == 0:
                smaller += 1
                continue
            size = abs(d["mean"]) / threshold if threshold else math.inf
            if name.startswith(FOLDED) and name not in unfolded:
                folded.append((size, name, d["mean"] > 0))
            else:
                matters.append((size, words(name, row, base, arm, ends)))
        for name in primary:
            if name in metrics and "change" in metrics[name][arm]:
                d = metrics[name][arm]["change"]
                said = words(name, metrics[name], base, arm, ends)
                out.append(f"  primary: {said}" + ("" if d["significant"] else " -- no verdict"))
        if folded:
            folded.sort(reverse=True)
            rising = sum(1 for *_, up in folded if up)
            largest = words(folded[0][1], metrics[folded[0][1]], base, arm).split(";")[0]
            matters.append((folded[0][0], f"play volume: {len(folded)} action and rule counts changed "
                                          f"({len(folded) - rising} fewer, {rising} more; largest: {largest})"))
        matters.sort(key=lambda m: -m[0])
        tag = "  exploratory: " if primary else "  "
        out += [tag + said for _, said in matters]
        if not matters and not primary:
            out.append("  no change that matters (significant and at least --min-effect)")
        margin = min_effect.get(position_name(0), min_effect["share"]) / 100
        balance = _balance(result, arm, margin) if position_name(0) not in primary else None
        out += [f"  {balance}"] if balance else []
        if smaller:
            out.append(f"  and {smaller} significant change{'s' if smaller > 1 else ''} smaller than "
                       f"--min-effect (share {min_effect['share']:g} points, count {min_effect['count']:g} %): "
                       f"see the table")
    if "sequential" in result:
        out.append(f"  {result['sequential']['why']}")
    return out
